// One replay session, the same for `rastro replay` and for a compiled replayer program: prepare
// the sandbox root, create the initial state (--init), drop caches, run the plan with an engine,
// summarise and write the replayed trace. Only the engine differs between the event-based and
// the compiled replayers — which is exactly what the metrology compares.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "replay/engines/engine.h"
#include "replay/plan/plan.h"
#include "replay/runtime/replay_output.h"
#include "replay/runtime/sandbox_resolver.h"

namespace rastro::replay {

// The instrument that times each replayed call (docs/replay.md, "Timer bias"): the replayer's
// clock reads around the syscall, or the eBPF capture's own probes in the kernel (kernel_timing.h).
enum class CallTimer : uint8_t { kUserSpace, kEbpf };
Result<CallTimer> parse_call_timer(std::string_view name);
std::string_view call_timer_name(CallTimer t);

struct SessionOptions {
  std::string root;
  std::string out;
  std::string summary_json;
  bool init = false;
  bool force = false;              // replay into a non-empty rastro root (root_guard.h)
  bool allow_unsafe_root = false;  // ... even a mount point, a home, or a tree rastro did not make
  bool drop_caches = false;
  bool realtime = false;
  bool coordinator_chain = false;  // EngineOptions::coordinator_chain
  bool processes = false;          // EngineOptions::processes
  TimingSpec timing;
  ThinkWork think_work;  // --think-work: put into the timing (the compiled replayers' is fixed when compiled)
  CallTimer time_with = CallTimer::kUserSpace;
  UringMode uring = UringMode::kAuto;  // io_uring requests: through rings or as plain calls (exec_uring.h)
  std::string engine_name;     // "workers", "coordinator", "compiled"
  std::string source;          // the source trace's path (for the header)
  std::vector<std::string> warnings;  // carried into the summary
};

// Runs the plan in the sandbox; the engine must be ready for a prepared root.
using EngineRunner = std::function<EngineResult(const Plan&, const SandboxResolver&, const EngineOptions&)>;

// --time-with ebpf without what the eBPF probes need (capabilities, kernel BTF): throws
// rastro::Error naming it, before anything is written. What only loading the programs can tell
// (the verifier) fails later, when the timer starts. Nothing to check for user-space timing.
void require_call_timer(const SessionOptions& options);

// Applies the root rules of root_guard.h (a missing root is created and marked; a non-empty one
// needs --force and must be a rastro root). Throws rastro::Error.
void prepare_root(const SessionOptions& options);

// Whether the root may hold a FIFO (sandbox_resolver.h, RootFifos): only if it held anything
// before the replay (`root_was_empty`: root_guard.h's root_is_empty, asked before prepare_root),
// or the trace makes one (mknod of a FIFO).
RootFifos root_fifos(const Plan& plan, bool root_was_empty);

// The whole session; prints warnings and the summary text, returns the summary.
ReplaySummary run_replay_session(const Plan& plan, const SessionOptions& options, const EngineRunner& engine);

}  // namespace rastro::replay
