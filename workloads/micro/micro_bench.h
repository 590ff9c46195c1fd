// The micro benchmark itself: prepare (untimed) and run (every request timed by the reference
// method). The CLI (`rastro bench micro`) and the campaign both call these.
#pragma once

#include <string>

#include "trace/io/trace_sink.h"
#include "workloads/common/latency_summary.h"
#include "workloads/common/stop_signal.h"
#include "workloads/common/thread_calls.h"
#include "workloads/micro/micro_options.h"

namespace rastro::workloads {

// Validates the options, makes the directory, checks free space and creates/fills every file.
// Returns the absolute directory. Throws rastro::Error before writing anything when the input is
// bad; returns with `*stopped` = true if `stop` was raised while filling.
std::string prepare_micro(const MicroOptions& o, const StopSignal& stop, bool* stopped);

// Runs the prepared benchmark in `abs_dir`. Each thread: openat, ops x request (+pause),
// close - all timed. Stops early (partial run) when `stop` is raised.
WorkloadRun run_micro(const MicroOptions& o, const std::string& abs_dir, const StopSignal& stop);

// prepare + run + trace: writes the reference trace into `sink` (header filled: backend
// "reference-micro", settings, command, anchor, host, kernel, environment, summary, partial flag)
// and returns the summary. `command` is recorded in the header.
LatencySummary micro_to_sink(const MicroOptions& o, const std::vector<std::string>& command,
                             const StopSignal& stop, trace::TraceSink& sink);

}  // namespace rastro::workloads
