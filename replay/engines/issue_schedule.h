// When each request is issued under the timing policy, and where it ends on the replay's
// schedule: the one timing code of both engines and the compiled replayer (replay/runtime/timing.h
// has the policies and the pure arithmetic).
//
// Think timing counts a call's traced gap from the end of the dependency that completed latest in
// the trace — its end on the schedule (schedule_end_ns), not when the replay finished it. Counted
// from the replayed end, every delay of the replayer's own (a dependant waking up after a
// dependency of another thread, the coordinator's hop, the sandbox's path resolution) was handed
// on to every later call, so on long multi-process traces the delays added up call after call:
// make -j2, 18.5 k requests in 163 ms, replayed 62 % (workers, temporal) to 139 % (coordinator,
// temporal) too long (docs/replay.md, "Span error"). On the schedule they are absorbed by the
// traced gaps that follow, while a call that runs slower than traced still delays its dependants.
#pragma once

#include <cstdint>
#include <vector>

#include "replay/engines/engine_common.h"
#include "replay/plan/plan.h"
#include "replay/runtime/replay_output.h"
#include "replay/runtime/shared_array.h"
#include "replay/runtime/timing.h"

namespace rastro::replay::detail {

// How far after the engine starts its threads trace offset 0 lies: time for every replay thread
// (one per traced thread: 27 for make -j2) to wake from the start line and reach its first
// request. With 200 us, the first call of a 27-thread replay on a busy 2-core machine began
// 1.5-2.5 ms late, and since the schedule keeps later calls at their planned times (instead of
// shifting them all with it) that lateness showed as a span 1.5-2.5 ms too short.
inline constexpr int64_t kStartMarginNs = 5'000'000;

class IssueSchedule {
 public:
  // `across_processes`: the replay threads are in processes of their own (EngineOptions::processes),
  // so where each request begins and ends on the schedule is kept in a shared mapping.
  IssueSchedule(const Plan& plan, const ImplicitDeps& imp, const TimingSpec& timing, bool across_processes = false);

  // Trace offset 0 maps to `start_ns`; set before the replay threads leave the start line (in
  // processes of their own they may already be forked: it is shared with them).
  void start(int64_t start_ns) { start_[0] = start_ns; }
  int64_t start_ns() const { return start_[0]; }

  // When r may be issued, its dependencies being done since `ready_ns` (fullspeed: `ready_ns`);
  // `prev`: the previous request of r's thread (kNoRequest: none), which the caller knows.
  // The schedule ends of r's dependencies must have been recorded (finish) and published.
  int64_t planned_ns(uint32_t r, uint32_t prev, int64_t ready_ns) const;
  // planned_ns, after waiting until then; with think work (think_work.h), the last part of the
  // wait, as long as the thread's own traced gap before r, is spent working instead.
  int64_t await_issue(uint32_t r, uint32_t prev, int64_t ready_ns) const;

  // r ran and `rec` holds its planned time, replayed begin/end and outcome: records where r ends
  // on the schedule. Call before r's completion is published to its dependants.
  void finish(uint32_t r, const RequestRecord& rec);

  // Visible for testing: r's end on the schedule (not at full speed).
  int64_t end_ns(uint32_t r) const { return end_[r]; }

 private:
  const Plan& plan_;
  const ImplicitDeps& imp_;
  TimingSpec timing_;
  SharedArray<int64_t> start_;  // one element
  // Where each request begins (its planned time) and ends on the schedule: written by the
  // request's thread, read by its dependants. Empty at full speed, as is traced_.
  SharedArray<int64_t> begin_;
  SharedArray<int64_t> end_;
  std::vector<TracedTimes> traced_;  // each request's traced times (trace_times); empty at full speed
  ThinkBuffer think_;                 // made before the replay threads start (and fork): shared
  // With think work: each request's traced off-CPU time before it (Event::gap_offcpu_ns), the part
  // of its thread's own gap the program did not run; else empty.
  std::vector<int64_t> gap_offcpu_;
};

}  // namespace rastro::replay::detail
