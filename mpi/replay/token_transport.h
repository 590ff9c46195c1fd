// How the ranks of a replay reach each other: one int64 per message, with a tag. The MPI shim
// (shim_link.h) is the real one; tests give an in-memory one. Not thread-safe: TokenMailbox
// serialises every call.
#pragma once

#include <cstdint>

namespace rastro::mpi {

class TokenTransport {
 public:
  virtual ~TokenTransport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void send(int dest, int tag, int64_t value) = 0;                // never blocks
  virtual bool poll(int tag, int* source, int64_t* value) = 0;           // a message if one arrived
  virtual int64_t recv(int source, int tag) = 0;                          // blocks
  virtual void barrier() = 0;
};

// The tags rastro's replay uses on its own communicator.
inline constexpr int kTagToken = 1;      // dependency tokens
inline constexpr int kTagClockSync = 2;  // Cristian rounds (clock_rounds.h)

}  // namespace rastro::mpi
