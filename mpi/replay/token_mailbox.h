// The tokens one rank's replay threads exchange with the other ranks (rank_sync_plan.h): a token is
// (source rank, value), sent once and awaited once. Every replay thread of the rank shares one
// mailbox: a thread waiting for its token drains whatever has arrived into the mailbox, so tokens
// for other threads wait there for them. MPI calls are serialised by one mutex.
//
// A replay must never hang: a token that does not come within the timeout is given up (counted,
// and reported by the caller) and the call goes ahead unordered.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <utility>

#include "mpi/replay/token_transport.h"

namespace rastro::mpi {

class TokenMailbox {
 public:
  TokenMailbox(TokenTransport& transport, std::chrono::nanoseconds timeout)
      : transport_(transport), timeout_(timeout) {}

  void send(int dest, int64_t value);
  // Returns whether it had to wait (the token had not arrived yet).
  bool wait(int source, int64_t value);

  uint64_t sent() const;
  uint64_t received() const;
  uint64_t timed_out() const;

 private:
  bool take(int source, int64_t value);  // with mu_ held

  TokenTransport& transport_;
  const std::chrono::nanoseconds timeout_;
  mutable std::mutex mu_;
  std::multiset<std::pair<int, int64_t>> arrived_;
  uint64_t sent_ = 0, received_ = 0, timed_out_ = 0;
};

}  // namespace rastro::mpi
