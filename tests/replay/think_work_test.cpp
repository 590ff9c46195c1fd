// Think work (replay/runtime/think_work.h): the option's text, and that a replay thread works on
// memory through its own traced gap — checked by the kernel's count of the thread's time on a CPU
// and in a run queue (/proc/thread-self/schedstat), which sleeping does not add to — and only
// through that gap.
#include "replay/runtime/think_work.h"

#include <fcntl.h>

#include <fstream>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "replay/engines/issue_schedule.h"
#include "replay/runtime/timing.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

constexpr int64_t kMs = 1'000'000;

// The calling thread's time so far as the kernel counts it: on a CPU, and runnable (on a CPU or
// waiting in a run queue for one). A working thread is runnable throughout, however loaded the
// machine, and a sleeping thread is neither (but for its wake-up's wait in a run queue), so the
// tests count work by runnable time; that a sleep spends no CPU, by CPU time. The kernel adds a
// running thread's CPU time at each tick and switch, so a reading may lag by a tick (4 ms here).
struct ThreadTimes {
  int64_t cpu_ns = -1;
  int64_t runnable_ns = -1;
};
ThreadTimes thread_times() {
  std::ifstream schedstat("/proc/thread-self/schedstat");
  int64_t run_ns = -1, queued_ns = -1;
  schedstat >> run_ns >> queued_ns;  // "run_ns runqueue_wait_ns timeslices"
  return {run_ns, run_ns + queued_ns};
}
ThreadTimes operator-(ThreadTimes a, ThreadTimes b) { return {a.cpu_ns - b.cpu_ns, a.runnable_ns - b.runnable_ns}; }

TEST(ThinkWork, ParsesModesAndSizes) {
  EXPECT_FALSE(parse_think_work("none").take().active());
  ThinkWork w = parse_think_work("memory").take();
  EXPECT_EQ(w.memory_bytes, ThinkWork::kDefaultMemoryBytes);
  EXPECT_EQ(w.code_bytes, 0u);
  EXPECT_EQ(parse_think_work("memory:64").take().memory_bytes, 64u);
  EXPECT_EQ(parse_think_work("memory:256K").take().memory_bytes, 256u << 10);
  EXPECT_EQ(parse_think_work("memory:8m").take().memory_bytes, 8u << 20);
  EXPECT_EQ(parse_think_work("memory:1G").take().memory_bytes, 1u << 30);
  w = parse_think_work("code").take();
  EXPECT_TRUE(w.active());
  EXPECT_EQ(w.memory_bytes, 0u);
  EXPECT_EQ(w.code_bytes, ThinkWork::kDefaultCodeBytes);
  w = parse_think_work("memory:2M,code:256K").take();
  EXPECT_EQ(w.memory_bytes, 2u << 20);
  EXPECT_EQ(w.code_bytes, 256u << 10);
  w = parse_think_work("code,memory").take();
  EXPECT_EQ(w.memory_bytes, ThinkWork::kDefaultMemoryBytes);
  EXPECT_EQ(w.code_bytes, ThinkWork::kDefaultCodeBytes);
  EXPECT_EQ(think_work_name(parse_think_work("none").take()), "none");
  EXPECT_EQ(think_work_name(parse_think_work("memory").take()), "memory:4MiB");
  EXPECT_EQ(think_work_name(parse_think_work("memory:1536K").take()), "memory:1536KiB");
  EXPECT_EQ(think_work_name(parse_think_work("memory:100").take()), "memory:100");
  EXPECT_EQ(think_work_name(parse_think_work("code").take()), "code:1MiB");
  EXPECT_EQ(think_work_name(parse_think_work("code:3K,memory").take()), "memory:4MiB,code:3KiB");
  for (const char* bad : {"", "cpu", "none:4M", "memory:", "memory:0", "memory:63", "memory:2G", "memory:4X",
                          "memory:-1", "memory:1.5M", "memory:M", "memory:99999999999999999999", "code:1000",
                          "code:2G", "memory,", ",code", "memory,memory", "code:1M,code", "memory,none", "memory;code"}) {
    auto r = parse_think_work(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().find(std::string("'") + bad + "'"), std::string::npos) << r.error();
  }
  EXPECT_NE(parse_think_work("memory,memory").error().find("names memory twice"), std::string::npos);
  EXPECT_NE(parse_think_work("code:1000").error().find("expected 1KiB to 1G"), std::string::npos);
}

TEST(ThinkWork, TheTimingNameSaysIt) {
  TimingSpec t = parse_timing("think:2").take();
  t.think_work = parse_think_work("memory:1M").take();
  EXPECT_EQ(timing_name(t), "think:2+memory:1MiB");
}

TEST(ThinkBuffer, WorksOnACpuUntilTheDeadlineWhereWaitingSleeps) {
  ThinkBuffer buffer(parse_think_work("memory:64K").take());  // 1024 lines: 50 ms go round it many times
  ASSERT_TRUE(buffer.active());
  ThreadTimes before = thread_times();
  int64_t deadline = monotonic_ns() + 50 * kMs;
  const uint64_t lines = buffer.work_until(deadline);
  EXPECT_GE(monotonic_ns(), deadline - 1'000);
  const ThreadTimes worked = thread_times() - before;
  EXPECT_GT(lines, 1024u);
  EXPECT_GT(worked.runnable_ns, 40 * kMs);  // on a CPU or waiting for one (never asleep)

  before = thread_times();
  deadline = monotonic_ns() + 50 * kMs;
  wait_until(deadline);
  const ThreadTimes waited = thread_times() - before;
  EXPECT_LT(waited.cpu_ns, 10 * kMs);  // asleep but for the last 80 us of spinning

  EXPECT_EQ(ThinkBuffer().work_until(monotonic_ns() + kMs), 0u);  // none: no work
  EXPECT_EQ(buffer.work_until(monotonic_ns() - kMs), 0u);          // past the deadline: none either
}

// The code part runs: each chunk it calls jumps a line at a time and returns (a fault or a stray
// jump would kill the test), on a CPU until the deadline, alone or with the memory part.
TEST(ThinkBuffer, RunsItsCodeALineAtATimeUntilTheDeadline) {
  for (const char* mode : {"code:64K", "memory:64K,code:64K"}) {
    ThinkBuffer buffer(parse_think_work(mode).take());
    ASSERT_TRUE(buffer.active()) << mode;
    const ThreadTimes before = thread_times();
    const int64_t deadline = monotonic_ns() + 30 * kMs;
    const uint64_t lines = buffer.work_until(deadline);
    EXPECT_GE(monotonic_ns(), deadline - 1'000) << mode;
    EXPECT_GT(lines, 1024u) << mode;  // round the 64 KiB of code more than once
    EXPECT_GT((thread_times() - before).runnable_ns, 20 * kMs) << mode;
  }
  // Moved, the code goes with it and the moved-from buffer is inactive.
  ThinkBuffer a(parse_think_work("code:4K").take());
  ThinkBuffer b(std::move(a));
  EXPECT_FALSE(a.active());  // NOLINT(bugprone-use-after-move): the state after a move is the point
  EXPECT_GT(b.work_until(monotonic_ns() + kMs), 0u);
}

// One thread: lseek [0, 10 us], then lseek 40 ms after it ended: the thread's own gap, its work
// in the trace but for `gap_offcpu` of it, which the capture saw it spend off-CPU.
trace::Trace two_calls_40ms_apart(int64_t gap_offcpu = 0) {
  testing::TraceBuilder b;
  b.add(100, 100, "lseek", {3, 0, SEEK_SET}, 0, {}, kMs, 10'000);
  trace::Event& second = b.add(100, 100, "lseek", {3, 0, SEEK_SET}, 0, {}, kMs + 10'000 + 40 * kMs, 10'000);
  second.flags |= trace::kEventOffCpu;
  second.gap_offcpu_ns = gap_offcpu;
  return b.take();
}

// Waits for the second call of two_calls_40ms_apart(gap_offcpu), its first having run at the
// start for `first_ns` (its traced 10 us, or slower); returns the thread's times meanwhile.
ThreadTimes busy_before_the_second_call(const char* mode, int64_t gap_offcpu, int64_t first_ns = 10'000) {
  Plan plan = testing::hand_plan(two_calls_40ms_apart(gap_offcpu), /*temporal=*/false);
  detail::ImplicitDeps imp(plan);
  TimingSpec timing = parse_timing("think").take();
  timing.think_work = parse_think_work(mode).take();
  detail::IssueSchedule schedule(plan, imp, timing);
  const std::vector<uint32_t> prev = detail::thread_predecessors(plan);
  const int64_t start = monotonic_ns();
  schedule.start(start);
  RequestRecord first;
  first.planned_ns = start;
  first.begin_ns = start;
  first.end_ns = start + first_ns;
  schedule.finish(0, first);
  const ThreadTimes before = thread_times();
  const int64_t planned = schedule.await_issue(1, prev[1], start);
  const ThreadTimes busy = thread_times() - before;
  EXPECT_EQ(planned, start + first_ns + 40 * kMs);  // the traced gap after the first call's end
  EXPECT_GE(monotonic_ns(), planned);
  return busy;
}

TEST(ThinkBuffer, TheScheduleWorksThroughTheThreadsOwnGapOnly) {
  // The first call took 100 ms (much slower than traced), so the second is due 40 ms after that:
  // 140 ms after the start. Of the 140 ms of waiting, the last 40, the thread's own gap, are
  // worked through; the 100 before are the slow call's, not the program's work.
  const ThreadTimes working = busy_before_the_second_call("memory:256K", 0, 100 * kMs);
  EXPECT_GT(working.runnable_ns, 32 * kMs);  // the 40 ms own gap worked through
  EXPECT_LT(working.runnable_ns, 100 * kMs) << "cpu " << working.cpu_ns;  // not the 100 ms before it (140 ms in all)
  EXPECT_LT(busy_before_the_second_call("none", 0, 100 * kMs).cpu_ns, 10 * kMs);
}

TEST(ThinkBuffer, TheThreadsOffCpuTimeInItsGapIsNotWorked) {
  // The capture saw the thread off-CPU for 30 of its 40 ms (preempted, or blocked in a call it
  // did not record): 10 ms are worked, not 40.
  const ThreadTimes all = busy_before_the_second_call("memory:256K", 0);
  const ThreadTimes on_cpu_part = busy_before_the_second_call("memory:256K", 30 * kMs);
  std::printf("runnable: whole gap %.1f ms, 10 ms of it on a CPU %.1f ms\n", all.runnable_ns / 1e6,
              on_cpu_part.runnable_ns / 1e6);
  EXPECT_GT(all.runnable_ns, 32 * kMs);
  EXPECT_LT(on_cpu_part.runnable_ns, 28 * kMs);  // not the 40 ms
  EXPECT_GT(on_cpu_part.runnable_ns, 5 * kMs);
}

}  // namespace
}  // namespace rastro::replay
