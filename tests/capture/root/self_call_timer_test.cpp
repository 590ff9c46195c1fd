// SelfCallTimer (self_call_timer.h): the eBPF capture's probes on this test process's own threads.
// Needs root and BPF (skipped, saying why, where the eBPF capture cannot run).
#include "capture/ebpf/self_call_timer.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include <gtest/gtest.h>

#include "tests/capture/root/ebpf_root_util.h"
#include "common/clock.h"

namespace rastro::capture::ebpf {
namespace {

TEST(SelfCallTimer, TimesThisThreadAndThreadsStartedLaterOnTheMonotonicClock) {
  if (!testing::ebpf_missing().empty()) GTEST_SKIP() << "eBPF cannot run here";
  auto timer = SelfCallTimer::start(1 << 20);
  ASSERT_TRUE(timer.ok()) << timer.error();
  const pid_t me = static_cast<pid_t>(::syscall(SYS_gettid));
  const int64_t before = monotonic_ns();
  // The kernel's own measure to check against: a 2 ms sleep lasts at least 2 ms in the kernel.
  timespec ts{0, 2'000'000};
  ::syscall(SYS_nanosleep, &ts, nullptr);
  const int64_t after = monotonic_ns();
  pid_t child = 0;
  std::thread([&child] {
    child = static_cast<pid_t>(::syscall(SYS_gettid));
    for (int i = 0; i < 5; ++i) ::syscall(SYS_getppid);
  }).join();
  SelfCallTimes t = timer.value()->stop();
  EXPECT_EQ(t.lost, 0u);
  EXPECT_TRUE(t.error.empty()) << t.error;

  auto sleep = std::find_if(t.calls.begin(), t.calls.end(),
                            [me](const KernelCall& k) { return k.tid == me && k.nr == SYS_nanosleep; });
  ASSERT_NE(sleep, t.calls.end());
  EXPECT_GE(sleep->end_ns - sleep->begin_ns, 2'000'000);
  // bpf_ktime_get_ns() and CLOCK_MONOTONIC are one clock: the kernel span lies inside ours.
  EXPECT_LE(before, sleep->begin_ns);
  EXPECT_LE(sleep->end_ns, after);
  EXPECT_EQ(std::count_if(t.calls.begin(), t.calls.end(),
                          [child](const KernelCall& k) { return k.tid == child && k.nr == SYS_getppid; }),
            5);
}

}  // namespace
}  // namespace rastro::capture::ebpf
