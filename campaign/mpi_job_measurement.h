// The measurands of an MPI campaign run (docs/campaign.md, "MPI jobs"), read from a merged job
// trace (`rastro merge`: every rank on rank 0's clock, each rank's offset bound in the header).
// Per rank R of the job, over its calls on the workload's files (paths ending in ".dat"):
//   write.rR  mean response time of its calls writing file data (the syscall table's data_out:
//             write, pwrite64, writev, …) — one clock, no clock component;
//   span.rR   from the begin of rank 0's first workload-file call to the end of rank R's last one:
//             when rank R's I/O was done, counted from the job's start. For R > 0 its two ends
//             were stamped by two ranks' clocks, so it carries the Type-B clock component
//             clock_u = widest bound of rank R / √3 (rank 0, the reference clock, is exact; the
//             widest bound holds wherever in the run the end lies: mpi/job_clocks.h).
// Calls a replay skipped, unfinished calls and failed calls are not counted.
#pragma once

#include <string>
#include <vector>

#include "campaign/results_store.h"
#include "trace/model/trace.h"

namespace rastro::campaign {

// One Measurement per measurand and rank, in rank order (write.r0, span.r0, write.r1, …), each
// named `prefix` + "." + measurand; extra: n (calls), rank, clock_u_ns, half_width_ns.
// Throws rastro::Error naming `origin` when the trace is not a merged job or a rank made no call
// on a workload file.
std::vector<Measurement> mpi_job_measurements(const trace::Trace& job, const std::string& prefix,
                                              const std::string& origin);

}  // namespace rastro::campaign
