// Timing policies (SPEC §4): when a request may be issued once its dependencies are done.
//
//   fullspeed        no waiting beyond dependencies;
//   timestamp[:S]    issue at the traced offset from the trace start (divided by S);
//   think[:S]        keep the traced gap between the latest dependency's completion and this
//                    call, and the gap after the thread's own previous call (divided by S) —
//                    ARTC's "natural" timing — counted from where they end on the replay's
//                    schedule (schedule_end_ns), so the replayer's own delays do not pile up
//                    from call to call.
//
// Waiting uses clock_nanosleep(TIMER_ABSTIME) until shortly before the deadline and then spins on
// CLOCK_MONOTONIC: the thesis measured 300–470 % issue error at 10–50 µs gaps with plain nanosleep,
// whose wake-up latency alone is tens of microseconds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"
#include "replay/runtime/think_work.h"

namespace rastro::replay {

enum class TimingPolicy : uint8_t { kFullspeed, kTimestamp, kThink };

struct TimingSpec {
  TimingPolicy policy = TimingPolicy::kFullspeed;
  double speed = 1.0;  // > 0; 2 = twice as fast as traced
  ThinkWork think_work;  // what a thread does through its own traced gaps (think_work.h; not at full speed)
};

// "fullspeed", "timestamp", "timestamp:2", "think", "think:0.5".
Result<TimingSpec> parse_timing(std::string_view text);
// The policy, its speed and its think work: "think", "think:2", "think+memory:4MiB".
std::string timing_name(const TimingSpec& spec);

// How long before a deadline sleeping stops and spinning starts. Sleep wake-up latency on this
// kind of machine is 50–80 µs at worst under load; below it we spin.
inline constexpr int64_t kSpinMarginNs = 80'000;

// Blocks until CLOCK_MONOTONIC >= deadline_ns; returns the time it observed on return.
int64_t wait_until(int64_t deadline_ns, int64_t spin_margin_ns = kSpinMarginNs);

// The planned issue time of a request (CLOCK_MONOTONIC ns of the replay).
//   start_ns         replay start (trace offset 0 maps here);
//   trace_begin_ns   the request's traced begin relative to the trace start;
//   ready_ns         when its last dependency was seen complete (fullspeed: issue now);
//   dep_trace_end_ns, dep_sched_end_ns: traced end, and end on the replay's schedule
//                    (schedule_end_ns), of the dependency that completed latest in the trace
//                    (think); dep_trace_end_ns < 0 when there is none;
//   prev_trace_end_ns, prev_sched_end_ns: the same for the call's program-order predecessor
//                    (< 0: none): its traced gap — the thread's own work between its calls — is
//                    kept too, even when another thread's call ended later in the trace;
//   deps_sched_end_ns: the latest schedule end of all its dependencies: think timing never plans
//                    a call before a dependency ends on the schedule.
struct IssueInputs {
  int64_t start_ns = 0;
  int64_t trace_begin_ns = 0;
  int64_t ready_ns = 0;
  int64_t dep_trace_end_ns = -1;
  int64_t dep_sched_end_ns = 0;
  int64_t prev_trace_end_ns = -1;
  int64_t prev_sched_end_ns = 0;
  int64_t deps_sched_end_ns = 0;
};
int64_t planned_issue_ns(const TimingSpec& spec, const IssueInputs& in);

// How a completed request counts on the replay's schedule (schedule_end_ns).
enum class ScheduledCall : uint8_t {
  kExecuted,     // the replay ran the call: its replayed duration counts
  kNotExecuted,  // emulated (exec, fork, exit, a socket ...) or skipped: its traced duration counts
  kInstant,      // a page fault: the trace records when it happened, not how long it took
};

// Where a completed request ends on the replay's schedule: the time think timing counts its
// dependants' traced gaps from. Not its replayed end:
//   kExecuted     planned + replayed duration. The replayer's own delay before the call (waking
//                 up after a dependency, the coordinator's hop, the sandbox's path resolution:
//                 begin - planned) is not passed on, so later traced gaps absorb it instead of
//                 every later call inheriting it; a call slower than traced still delays its
//                 dependants by the difference;
//   kNotExecuted  planned + traced duration / speed: the trace spent that time (an execve, a
//                 vfork waiting for its child), the replay's bookkeeping is no measure of it;
//   kInstant      planned: the fault's cost was part of the traced gap that follows it, so the
//                 replayed fault's cost is absorbed by that gap instead of added to it.
int64_t schedule_end_ns(const TimingSpec& spec, ScheduledCall kind, int64_t planned_ns, int64_t replay_duration_ns,
                        int64_t trace_duration_ns);

}  // namespace rastro::replay
