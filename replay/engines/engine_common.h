// Pieces both engines share (private to replay/engines).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "replay/plan/plan.h"
#include "replay/plan/thread_order.h"
#include "replay/runtime/call_executor.h"
#include "replay/runtime/process_state.h"
#include "replay/runtime/replay_output.h"
#include "replay/runtime/sandbox_resolver.h"

namespace rastro::replay::detail {

// Implicit dependencies the plan does not store: program order within a thread, and the clone that
// created a thread (for its first request). Program order needs nothing here: the workers engine
// and the compiled replayer walk each thread's requests in order and know the previous one, and
// the coordinator, which does not, builds its own (thread_predecessors). The clone is kept per
// thread, since only a thread's first request has one (issue #16: nothing per request).
class ImplicitDeps {
 public:
  ImplicitDeps() = default;
  explicit ImplicitDeps(const Plan& plan);
  // The clone that created r's thread, when r is the thread's first request; -1 = none.
  int64_t spawn(uint32_t r) const {
    const uint32_t t = plan_->requests[r].thread;
    return first_[t] == r && spawn_[t] != kNone ? int64_t{spawn_[t]} : -1;
  }
  // The clone that created plan thread t, which its first request waits for; -1 = none.
  int64_t spawn_of_thread(size_t t) const { return spawn_[t] != kNone ? int64_t{spawn_[t]} : -1; }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  const Plan* plan_ = nullptr;
  std::vector<uint32_t> first_;  // per thread: its first request (kNone: none)
  std::vector<uint32_t> spawn_;  // per thread: its creating clone (kNone: none)
};

using replay::kNoRequest;           // (replay/plan/thread_order.h)
using replay::thread_predecessors;

// What both engines build before the first call: the traced processes' state (from the Plan's
// process seeds), the call executor and the implicit dependencies.
// The fd keys and seeds are the Plan's; only a plan built by hand (tests, benchmarks: no
// inference, so no fd data) gets them computed here, once, by the same pass code.
struct EngineSetup {
  // Its processes' fd tables are kEngineFdTables: the engines start their threads with
  // ReplayThreads (replay_threads.h).
  EngineSetup(const Plan& plan, const SandboxResolver& sandbox);
  std::vector<ProcessSeed> own_seeds;  // only for a plan without fd data
  FdKeys own_keys;
  const std::vector<ProcessSeed>& seeds;
  const FdKeys& keys;
  ProcessTable procs;
  CallExecutor exec;
  ImplicitDeps imp;
  // ReplayThreads' `own_table` (replay_threads.h): ProcessTable::own_table of t's process.
  std::function<int(size_t, int32_t)> own_table() {
    return [this](size_t t, int32_t parent_tid) { return procs.own_table(plan_->threads[t].pid, parent_tid); };
  }

 private:
  const Plan* plan_;
};

// From the first request's begin to the last one's end.
int64_t wall_time(const RecordLog& records);
// EngineResult::os_threads of an engine that ran plan thread t's requests on OS thread tids[t].
std::vector<int32_t> per_request_os_threads(const Plan& plan, const std::vector<int32_t>& tids);

}  // namespace rastro::replay::detail
