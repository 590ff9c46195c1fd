#include "mpi/replay/clock_rounds.h"

#include "common/clock.h"

namespace rastro::mpi {

std::vector<SyncRound> sync_with_rank0(TokenTransport& transport, int rounds) {
  std::vector<SyncRound> out;
  if (transport.rank() == 0) {
    for (int peer = 1; peer < transport.size(); ++peer)
      for (int k = 0; k < rounds; ++k) {
        transport.recv(peer, kTagClockSync);
        transport.send(peer, kTagClockSync, monotonic_ns());
      }
    return out;
  }
  for (int k = 0; k < rounds; ++k) {
    SyncRound r;
    r.sent = monotonic_ns();
    transport.send(0, kTagClockSync, 0);
    r.reference = transport.recv(0, kTagClockSync);
    r.received = monotonic_ns();
    out.push_back(r);
  }
  return out;
}

}  // namespace rastro::mpi
