// The fileserver macro benchmark: prepare the file set (untimed), run the Filebench fileserver
// flow on --threads threads for --duration, timing every syscall by the reference method.
#pragma once

#include <string>
#include <vector>

#include "trace/io/trace_sink.h"
#include "workloads/common/latency_summary.h"
#include "workloads/common/stop_signal.h"
#include "workloads/common/thread_calls.h"
#include "workloads/macro/fileserver_options.h"
#include "workloads/macro/fileset_plan.h"

namespace rastro::workloads {

// Validates, makes --dir, checks free space, removes any previous file set under
// <dir>/rastro-fileserver and creates the preallocated files and their directories.
// Sets *stopped when `stop` was raised while filling.
FilesetPlan prepare_fileserver(const FileserverOptions& o, const StopSignal& stop, bool* stopped);

// One run of the flow per thread until the duration elapses, `stop` is raised, or the event cap.
WorkloadRun run_fileserver(const FileserverOptions& o, const FilesetPlan& plan, const StopSignal& stop);

// prepare + run + trace into `sink` (backend "reference-fileserver"; settings list the
// preallocated files and directories a replayer's --init must recreate).
LatencySummary fileserver_to_sink(const FileserverOptions& o, const std::vector<std::string>& command,
                                  const StopSignal& stop, trace::TraceSink& sink);

}  // namespace rastro::workloads
