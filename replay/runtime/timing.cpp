#include "replay/runtime/timing.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <ctime>

#include "common/clock.h"
#include "replay/runtime/completion_flag.h"

namespace rastro::replay {

Result<TimingSpec> parse_timing(std::string_view text) {
  TimingSpec spec;
  std::string_view name = text;
  std::string_view speed;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    name = text.substr(0, colon);
    speed = text.substr(colon + 1);
  }
  if (name == "fullspeed") {
    spec.policy = TimingPolicy::kFullspeed;
  } else if (name == "timestamp") {
    spec.policy = TimingPolicy::kTimestamp;
  } else if (name == "think") {
    spec.policy = TimingPolicy::kThink;
  } else {
    return fail("unknown timing policy '" + std::string(text) +
                "' (expected fullspeed, timestamp[:SPEED] or think[:SPEED])");
  }
  if (!speed.empty() || text.find(':') != std::string_view::npos) {
    if (spec.policy == TimingPolicy::kFullspeed) {
      return fail("timing 'fullspeed' takes no speed factor: '" + std::string(text) + "'");
    }
    double v = 0;
    auto [p, ec] = std::from_chars(speed.data(), speed.data() + speed.size(), v);
    if (ec != std::errc() || p != speed.data() + speed.size() || !(v > 0) || !std::isfinite(v)) {
      return fail("bad speed factor in timing '" + std::string(text) +
                  "' (expected a positive number, e.g. think:2)");
    }
    spec.speed = v;
  }
  return spec;
}

std::string timing_name(const TimingSpec& spec) {
  std::string s;
  switch (spec.policy) {
    case TimingPolicy::kFullspeed: return "fullspeed";
    case TimingPolicy::kTimestamp: s = "timestamp"; break;
    case TimingPolicy::kThink: s = "think"; break;
  }
  if (spec.speed != 1.0) {
    char buf[32];
    auto [p, ec] = std::to_chars(buf, buf + sizeof buf, spec.speed);
    (void)ec;
    s += ":" + std::string(buf, p);
  }
  if (spec.think_work.active()) s += "+" + think_work_name(spec.think_work);
  return s;
}

int64_t wait_until(int64_t deadline_ns, int64_t spin_margin_ns) {
  int64_t now = monotonic_ns();
  if (now >= deadline_ns) return now;
  int64_t sleep_to = deadline_ns - spin_margin_ns;
  if (now < sleep_to) {
    timespec ts{static_cast<time_t>(sleep_to / 1'000'000'000),
                static_cast<long>(sleep_to % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
  }
  while ((now = monotonic_ns()) < deadline_ns) CompletionFlag::cpu_relax();
  return now;
}

int64_t planned_issue_ns(const TimingSpec& spec, const IssueInputs& in) {
  switch (spec.policy) {
    case TimingPolicy::kFullspeed:
      return in.ready_ns;
    case TimingPolicy::kTimestamp: {
      auto offset = static_cast<int64_t>(static_cast<double>(in.trace_begin_ns) / spec.speed);
      return in.start_ns + offset;
    }
    case TimingPolicy::kThink: {
      if (in.dep_trace_end_ns < 0) {
        // No dependency: keep the gap from the trace start.
        auto offset = static_cast<int64_t>(static_cast<double>(in.trace_begin_ns) / spec.speed);
        return in.start_ns + offset;
      }
      // Overlapped in the trace (negative gap): issue as soon as the dependency is done.
      auto after = [&](int64_t sched_end, int64_t trace_end) {
        const int64_t gap = std::max<int64_t>(in.trace_begin_ns - trace_end, 0);
        return sched_end + static_cast<int64_t>(static_cast<double>(gap) / spec.speed);
      };
      int64_t planned = std::max(after(in.dep_sched_end_ns, in.dep_trace_end_ns), in.deps_sched_end_ns);
      if (in.prev_trace_end_ns >= 0) planned = std::max(planned, after(in.prev_sched_end_ns, in.prev_trace_end_ns));
      return planned;
    }
  }
  return in.ready_ns;
}

int64_t schedule_end_ns(const TimingSpec& spec, ScheduledCall kind, int64_t planned_ns, int64_t replay_duration_ns,
                        int64_t trace_duration_ns) {
  switch (kind) {
    case ScheduledCall::kExecuted: return planned_ns + std::max<int64_t>(replay_duration_ns, 0);
    case ScheduledCall::kNotExecuted:
      return planned_ns + static_cast<int64_t>(static_cast<double>(std::max<int64_t>(trace_duration_ns, 0)) / spec.speed);
    case ScheduledCall::kInstant: return planned_ns;
  }
  return planned_ns;
}

}  // namespace rastro::replay
