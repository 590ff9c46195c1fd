// Timing policies (SPEC §4): when a request may be issued once its dependencies are done.
//
//   fullspeed        no waiting beyond dependencies;
//   timestamp[:S]    issue at the traced offset from the trace start (divided by S);
//   think[:S]        keep the traced gap between the latest dependency's completion and this
//                    call (the gap divided by S) — ARTC's "natural" timing.
//
// Waiting uses clock_nanosleep(TIMER_ABSTIME) until shortly before the deadline and then spins on
// CLOCK_MONOTONIC: the thesis measured 300–470 % issue error at 10–50 µs gaps with plain nanosleep,
// whose wake-up latency alone is tens of microseconds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace rastro::replay {

enum class TimingPolicy : uint8_t { kFullspeed, kTimestamp, kThink };

struct TimingSpec {
  TimingPolicy policy = TimingPolicy::kFullspeed;
  double speed = 1.0;  // > 0; 2 = twice as fast as traced
};

// "fullspeed", "timestamp", "timestamp:2", "think", "think:0.5".
Result<TimingSpec> parse_timing(std::string_view text);
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
//   dep_trace_end_ns, dep_replay_end_ns: traced and replayed end of the dependency that completed
//                    latest in the trace (think); dep_trace_end_ns < 0 when there is none.
struct IssueInputs {
  int64_t start_ns = 0;
  int64_t trace_begin_ns = 0;
  int64_t ready_ns = 0;
  int64_t dep_trace_end_ns = -1;
  int64_t dep_replay_end_ns = 0;
};
int64_t planned_issue_ns(const TimingSpec& spec, const IssueInputs& in);

}  // namespace rastro::replay
