// The MPI operations rastro records (one row each, as trace/syscalls/ does for syscalls): what an
// operation means for cross-rank order. Names are those the interposition library writes.
#pragma once

#include <span>
#include <string_view>

namespace rastro::mpi {

enum class MpiOpKind {
  kSend,        // point to point, this rank → peer: a matching receive completes after it began
  kRecv,        // point to point, peer → this rank (recorded from posting to completion)
  kCollective,  // every member of the communicator calls it, in the same order
  kCompletion,  // Wait family: completes requests (their receives are recorded themselves)
  kLifecycle,   // MPI_Init, MPI_Finalize
};

struct MpiOpInfo {
  std::string_view name;
  MpiOpKind kind;
};

std::span<const MpiOpInfo> all_mpi_ops();
const MpiOpInfo* mpi_op_by_name(std::string_view name);

// Argument positions of an MPI event in the uniform trace (Event::args).
inline constexpr int kArgComm = 0;   // communicator key (0 = MPI_COMM_WORLD)
inline constexpr int kArgPeer = 1;   // world rank of peer/root (-1 none)
inline constexpr int kArgTag = 2;
inline constexpr int kArgBytes = 3;
inline constexpr int kArgExtra = 4;  // collective sequence number / requests completed
inline constexpr int kArgMatch = 5;  // set by `rastro merge`: the message or collective instance id

}  // namespace rastro::mpi
