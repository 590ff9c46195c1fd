// The replay's results (SPEC §4): the replayed trace in the uniform format, with the replayer's
// own begin/end per call, the planned issue time, the traced rvalue and the mismatch/skipped
// flags, and the end-of-run summary with its fidelity report per call class and syscall
// (trace/analysis/replay_fidelity.h; also stored in the output header's extra.replay_summary and,
// with --summary-json, in a file of its own).
//
// Engines and the compiled replayer log one RequestRecord per request while running (no I/O on
// the replay path; record_log.h) and hand the log here at the end, read in request order.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "replay/runtime/call_executor.h"
#include "replay/runtime/kernel_timing_report.h"
#include "replay/runtime/record_log.h"
#include "trace/analysis/replay_fidelity.h"
#include "trace/io/trace_sink.h"
#include "replay/plan/plan_trace.h"
#include "trace/model/trace.h"

namespace rastro::replay {

struct EcdfPoint {
  uint32_t level = 0;
  double cumulative = 0;
};

struct ReplaySummary {
  std::string engine, ordering, timing;
  uint64_t requests = 0;
  uint64_t replayed = 0;  // executed against the kernel + emulated
  uint64_t emulated = 0;  // process structure, and emulated_files
  uint64_t emulated_files = 0;  // calls on special files and sockets (emulated_call.h)
  uint64_t skipped = 0;
  uint64_t mismatched = 0;
  uint64_t dependency_waits = 0;  // dependency checks that found the dependency not yet done
  uint64_t replay_processes = 0;  // OS processes that ran replay threads (EngineResult::replay_processes)
  std::map<std::string, uint64_t> skipped_by_reason;
  std::map<std::string, uint64_t> unsupported_by_name;
  std::map<std::string, uint64_t> mismatched_by_call;
  int64_t issue_error_p50_ns = 0, issue_error_p99_ns = 0, issue_error_max_ns = 0;
  double issue_error_mean_ns = 0;
  int64_t wall_ns = 0;
  double concurrency_mean_trace = 0, concurrency_mean_replay = 0;
  std::vector<EcdfPoint> concurrency_ecdf_trace, concurrency_ecdf_replay;
  std::vector<std::string> warnings;
  trace::FidelityReport fidelity;  // per class and syscall, with the timer bias; its timing is `timing` above
  // --time-with ebpf (kernel_timing.h): `fidelity` compares kernel times with kernel times (no
  // timer bias); how the calls got them, and the report timed in user space as without the option,
  // to be read side by side.
  std::optional<KernelTimingReport> kernel_timing;
  std::optional<trace::FidelityReport> fidelity_user_space;

  nlohmann::json to_json() const;
  std::string to_text() const;
};

// Request r's source event is records.requests()[r].event; `timer_bias` (timer_bias.h): what the
// fidelity report's corrected latency ratios subtract.
ReplaySummary summarize_replay(const PlanTrace& source, const RecordLog& records, const ExecStats& stats,
                               uint64_t dependency_waits, int64_t wall_ns, const trace::TimerBias& timer_bias = {});

// Appends one event per record (in record order) to `sink`: the source event's pid/tid, call and
// arguments (strings re-interned), replay begin/end and rvalue, planned_ns, expected_rvalue = the
// traced rvalue, flags kEventReplayed | skipped/mismatch.
void append_replay_events(trace::TraceSink& sink, const PlanTrace& source, const RecordLog& records);

// Writes the whole output: header (backend "replay-<engine>", settings, summary in
// extra.replay_summary) and events, via trace::open_trace_sink.
void write_replay_trace(const std::string& path, trace::TraceHeader header, const PlanTrace& source,
                        const RecordLog& records, const ReplaySummary& summary);

// --summary-json: writes summary.to_json() to `path` (throws rastro::Error on failure).
void write_summary_json(const std::string& path, const ReplaySummary& summary);

}  // namespace rastro::replay
