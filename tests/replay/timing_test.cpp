#include "replay/runtime/timing.h"

#include <gtest/gtest.h>

#include "common/clock.h"

namespace rastro::replay {
namespace {

TEST(Timing, ParsesPolicies) {
  EXPECT_EQ(parse_timing("fullspeed").take().policy, TimingPolicy::kFullspeed);
  EXPECT_EQ(parse_timing("timestamp").take().policy, TimingPolicy::kTimestamp);
  auto t = parse_timing("think:2.5").take();
  EXPECT_EQ(t.policy, TimingPolicy::kThink);
  EXPECT_DOUBLE_EQ(t.speed, 2.5);
  EXPECT_EQ(timing_name(t), "think:2.5");
  EXPECT_EQ(timing_name(parse_timing("think").take()), "think");
  for (const char* bad : {"", "fast", "think:", "think:0", "think:-1", "think:x", "fullspeed:2", "timestamp:nan"}) {
    EXPECT_FALSE(parse_timing(bad).ok()) << bad;
  }
}

TEST(Timing, PlannedIssueFollowsPolicy) {
  IssueInputs in;
  in.start_ns = 1'000'000;
  in.trace_begin_ns = 50'000;
  in.ready_ns = 1'002'000;
  in.dep_trace_end_ns = 30'000;   // traced gap: 20 us after the dependency ended
  in.dep_sched_end_ns = 1'001'000;
  in.deps_sched_end_ns = 1'001'000;
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kFullspeed, 1}, in), 1'002'000);
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kTimestamp, 1}, in), 1'050'000);
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kTimestamp, 2}, in), 1'025'000);
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kThink, 1}, in), 1'021'000);
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kThink, 4}, in), 1'006'000);
  // Overlapped in the trace: no negative gap.
  in.dep_trace_end_ns = 60'000;
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kThink, 1}, in), 1'001'000);
  // No dependency: gap from the trace start.
  in.dep_trace_end_ns = -1;
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kThink, 1}, in), 1'050'000);
}

TEST(Timing, ThinkNeverPlansBeforeADependencyEndsOnTheSchedule) {
  IssueInputs in;
  in.start_ns = 1'000'000;
  in.trace_begin_ns = 50'000;
  in.dep_trace_end_ns = 30'000;  // the latest dependency in the trace: gap 20 us
  in.dep_sched_end_ns = 1'001'000;
  // Another dependency ended earlier in the trace but later on the schedule (it ran slow).
  in.deps_sched_end_ns = 1'400'000;
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kThink, 1}, in), 1'400'000);
  in.deps_sched_end_ns = 1'010'000;  // before the gap is over: the gap decides
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kThink, 1}, in), 1'021'000);
  // The thread's own gap is kept too: its previous call ended at 10 us in the trace (gap 40 us)
  // and at 1,000,000 on the schedule; another thread's later call sets only 1,021,000.
  in.prev_trace_end_ns = 10'000;
  in.prev_sched_end_ns = 1'000'000;
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kThink, 1}, in), 1'040'000);
  in.prev_trace_end_ns = -1;
  // Timestamp timing keeps the traced offset whatever the schedule says.
  in.deps_sched_end_ns = 1'400'000;
  EXPECT_EQ(planned_issue_ns({TimingPolicy::kTimestamp, 1}, in), 1'050'000);
}

TEST(Timing, ScheduleEndCountsTheCallNotTheReplayersDelay) {
  const TimingSpec think{TimingPolicy::kThink, 1};
  // Executed: planned + replayed duration (whenever it began after its planned time).
  EXPECT_EQ(schedule_end_ns(think, ScheduledCall::kExecuted, 5'000'000, 7'000, 2'000), 5'007'000);
  EXPECT_EQ(schedule_end_ns(think, ScheduledCall::kExecuted, 5'000'000, -3, 2'000), 5'000'000);
  // Not executed: its traced duration, divided by the speed.
  EXPECT_EQ(schedule_end_ns(think, ScheduledCall::kNotExecuted, 5'000'000, 100, 40'000'000), 45'000'000);
  EXPECT_EQ(schedule_end_ns({TimingPolicy::kThink, 4}, ScheduledCall::kNotExecuted, 5'000'000, 100, 40'000'000),
            15'000'000);
  // An instant (a page fault): it ends where it was planned, whatever the replayed fault cost.
  EXPECT_EQ(schedule_end_ns(think, ScheduledCall::kInstant, 5'000'000, 9'000, 0), 5'000'000);
}

TEST(Timing, WaitUntilNeverReturnsEarly) {
  for (int64_t gap : {0, 5'000, 30'000, 200'000}) {
    int64_t deadline = monotonic_ns() + gap;
    int64_t got = wait_until(deadline);
    EXPECT_GE(got, deadline);
    EXPECT_GE(monotonic_ns(), deadline);
  }
  // A deadline in the past returns at once with the current time.
  int64_t now = monotonic_ns();
  EXPECT_GE(wait_until(now - 1'000'000), now);
}

}  // namespace
}  // namespace rastro::replay
