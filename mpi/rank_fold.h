// After a rank's capture: the MPI operations of its log become events of its trace, and the header
// says which rank, host and job the trace is, and carries the clock-sync rounds (`rastro merge`
// turns them into the rank's clock model).
#pragma once

#include <string>

#include "mpi/mpi_log.h"
#include "trace/model/trace.h"

namespace rastro::mpi {

struct FoldOptions {
  std::string log_path;          // the log's own path: the library's writes to it are not the workload's
  int64_t clock_shift_ns = 0;    // added to the trace's syscall events (an eBPF trace inside a time
                                 // namespace is on the kernel's unshifted clock; the log is not)
};

struct FoldReport {
  uint64_t mpi_events = 0;
  uint64_t log_io_events_removed = 0;
  uint64_t unknown_ops = 0;  // records whose name is not in mpi/mpi_ops.h (kept, counted)
};

// Merges `log` into `trace` (events re-sorted by begin, seq renumbered) and writes header.extra.mpi.
FoldReport fold_rank_log(trace::Trace& trace, const RankLog& log, const FoldOptions& options);

}  // namespace rastro::mpi
