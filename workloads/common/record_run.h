// The last step every reference workload shares: run it (unless a stop signal came while its
// files were being prepared), write its calls to the trace under `header`, and summarise them.
#pragma once

#include <functional>
#include <string>

#include "trace/io/trace_sink.h"
#include "trace/model/header.h"
#include "workloads/common/latency_summary.h"
#include "workloads/common/stop_signal.h"
#include "workloads/common/thread_calls.h"

namespace rastro::workloads {

// `stopped_while_preparing`: the stop came before any request; the trace then says so, naming
// `what_was_prepared` ("the files", "the file set").
LatencySummary record_run(bool stopped_while_preparing, const std::string& what_was_prepared, const StopSignal& stop,
                          const std::function<WorkloadRun()>& run_workload, trace::TraceHeader header,
                          trace::TraceSink& sink);

}  // namespace rastro::workloads
