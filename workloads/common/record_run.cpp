#include "workloads/common/record_run.h"

#include <utility>

#include "workloads/common/trace_emit.h"

namespace rastro::workloads {

LatencySummary record_run(bool stopped_while_preparing, const std::string& what_was_prepared, const StopSignal& stop,
                          const std::function<WorkloadRun()>& run_workload, trace::TraceHeader header,
                          trace::TraceSink& sink) {
  WorkloadRun run;
  if (stopped_while_preparing) {
    run.stopped_by = stop.load();
    run.stop_reason = describe_stop(run.stopped_by) + " while preparing " + what_was_prepared + " (no request was made)";
  } else {
    run = run_workload();
  }
  emit_run(run, sink);
  const LatencySummary summary = summarize(run);
  finish_header(run, summary.to_json(), header);
  sink.header() = std::move(header);
  return summary;
}

}  // namespace rastro::workloads
