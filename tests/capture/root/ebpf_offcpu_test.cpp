// Root-only: the eBPF backend's off-CPU columns (Event::offcpu_ns, vol_switches, invol_switches,
// and gap_offcpu_ns between calls)
// against the kernel's own per-thread counters, which we did not write: /proc/thread-self/schedstat
// (time on CPU) and /proc/thread-self/status (voluntary/nonvoluntary_ctxt_switches). The workload
// (this binary re-executed) has one thread that spends almost all of its life blocked in read(2)
// on a pipe another thread feeds every few milliseconds; over that window, the thread's off-CPU
// time is its wall time minus its CPU time, and nearly all of it falls inside captured calls.
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "capture/ebpf/ebpf_backend.h"
#include "tests/capture/root/ebpf_root_util.h"
#include "trace/io/trace_sink.h"
#include "trace/syscalls/syscall_table.h"

namespace {

constexpr int kBlockingReads = 40;
constexpr long kFeedIntervalNs = 5'000'000;  // the feeder writes one byte every 5 ms

// ---- workload mode: this binary re-executed with RASTRO_OFFCPU_REPORT set -----------------------

struct SchedCounters {
  long long run_ns = 0, vol = 0, invol = 0;
};

SchedCounters read_own_counters() {
  SchedCounters c;
  std::ifstream schedstat("/proc/thread-self/schedstat");
  schedstat >> c.run_ns;  // "run_ns runqueue_wait_ns timeslices"
  std::ifstream status("/proc/thread-self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("voluntary_ctxt_switches:")) c.vol = std::atoll(line.c_str() + 24);
    if (line.starts_with("nonvoluntary_ctxt_switches:")) c.invol = std::atoll(line.c_str() + 27);
  }
  return c;
}

long long now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);  // vDSO: no syscall inside the window's edges
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

int run_offcpu_workload_if_asked() {
  const char* report = std::getenv("RASTRO_OFFCPU_REPORT");
  if (report == nullptr) return 0;
  int p[2];
  if (::pipe(p) != 0) std::_Exit(3);
  std::thread feeder([&] {
    timespec gap{0, kFeedIntervalNs};
    for (int i = 0; i < kBlockingReads; ++i) {
      ::clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, nullptr);
      if (::write(p[1], "x", 1) != 1) std::_Exit(4);
    }
  });
  std::thread reader([&] {
    SchedCounters a = read_own_counters();
    long long t0 = now_ns();
    char c;
    for (int i = 0; i < kBlockingReads; ++i)
      if (::read(p[0], &c, 1) != 1) std::_Exit(5);
    long long t1 = now_ns();
    SchedCounters b = read_own_counters();
    std::ofstream out(report);
    out << ::syscall(SYS_gettid) << ' ' << t0 << ' ' << t1 << ' ' << b.run_ns - a.run_ns << ' '
        << b.vol - a.vol << ' ' << b.invol - a.invol << '\n';
  });
  reader.join();
  feeder.join();
  std::_Exit(0);
}

[[maybe_unused]] const int g_offcpu_workload = run_offcpu_workload_if_asked();

// The gap workload: one thread sleeps 5 ms (clock_nanosleep, not a file-system call, so not
// recorded) before each of kGapCalls fcntl(F_GETFD) calls (recorded): its off-CPU time falls
// between recorded calls, where Event::gap_offcpu_ns must carry it.
constexpr int kGapCalls = 30;

int run_gap_workload_if_asked() {
  const char* report = std::getenv("RASTRO_GAP_REPORT");
  if (report == nullptr) return 0;
  std::thread sleeper([&] {
    const int fd = ::open("/dev/null", O_RDONLY);
    if (fd < 0) std::_Exit(3);
    SchedCounters a = read_own_counters();
    long long t0 = now_ns();
    timespec gap{0, kFeedIntervalNs};
    for (int i = 0; i < kGapCalls; ++i) {
      ::clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, nullptr);
      if (::fcntl(fd, F_GETFD) < 0) std::_Exit(4);
    }
    long long t1 = now_ns();
    SchedCounters b = read_own_counters();
    std::ofstream out(report);
    out << ::syscall(SYS_gettid) << ' ' << t0 << ' ' << t1 << ' ' << b.run_ns - a.run_ns << '\n';
  });
  sleeper.join();
  std::_Exit(0);
}

[[maybe_unused]] const int g_gap_workload = run_gap_workload_if_asked();

// ---- test side ----------------------------------------------------------------------------------

using rastro::capture::ebpf::testing::ebpf_missing;
using rastro::capture::ebpf::testing::self_exe;

// This binary re-executed as the workload `report_env` names (it writes its report to the file that
// variable gives), captured by the eBPF backend with the syscall set `syscalls`.
struct SelfCapture {
  SelfCapture(const std::string& report_env, const std::string& syscalls) {
    char tmpl[] = "/tmp/rastro_offcpu_XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) return;
    dir = tmpl;
    report = dir + "/report";
    rastro::capture::CaptureOptions o;
    o.command = {"/usr/bin/env", report_env + "=" + report, self_exe()};
    o.syscalls_spec = syscalls;
    o.syscalls = rastro::trace::parse_syscall_set(syscalls).take();
    o.quiet = true;
    status = rastro::capture::ebpf::EbpfBackend().run(o, sink);
  }
  ~SelfCapture() {
    std::remove(report.c_str());
    ::rmdir(dir.c_str());
  }
  std::string dir, report;
  int status = -1;
  rastro::trace::MemorySink sink;
};

TEST(EbpfOffCpu, PerThreadTotalsAgreeWithTheKernelsSchedstatAndSwitchCounts) {
  if (std::string why = ebpf_missing(); !why.empty()) GTEST_SKIP() << "eBPF unavailable: " << why;
  SelfCapture cap("RASTRO_OFFCPU_REPORT", "all");  // every call of the thread, so its in-call time is all captured
  ASSERT_EQ(cap.status, 0);
  auto& sink = cap.sink;

  std::ifstream in(cap.report);
  long long tid = 0, t0 = 0, t1 = 0, run_ns = 0, vol = 0, invol = 0;
  ASSERT_TRUE(in >> tid >> t0 >> t1 >> run_ns >> vol >> invol) << "the workload wrote no report";
  ASSERT_GE(vol, kBlockingReads / 2) << "the reader thread hardly blocked: the test proves nothing";

  long long offcpu = 0, ev_vol = 0, ev_invol = 0;
  int reads = 0;
  for (const auto& e : sink.trace().events) {
    if (e.tid != tid || e.begin_ns < t0 || e.end_ns > t1) continue;
    ASSERT_TRUE(e.flags & rastro::trace::kEventOffCpu);
    EXPECT_LE(e.offcpu_ns, e.end_ns - e.begin_ns) << "off-CPU longer than the call itself";
    offcpu += e.offcpu_ns;
    ev_vol += e.vol_switches;
    ev_invol += e.invol_switches;
    reads += e.nr == 0 ? 1 : 0;
  }
  EXPECT_EQ(reads, kBlockingReads);
  const long long kernel_offcpu = (t1 - t0) - run_ns;  // wall time not spent running
  std::printf("off-CPU: trace %lld ns, kernel %lld ns; voluntary switches: trace %lld, kernel %lld; "
              "involuntary: trace %lld, kernel %lld\n",
              offcpu, kernel_offcpu, ev_vol, vol, ev_invol, invol);
  EXPECT_NEAR(static_cast<double>(offcpu), static_cast<double>(kernel_offcpu), 0.05 * static_cast<double>(kernel_offcpu));
  EXPECT_NEAR(static_cast<double>(ev_vol), static_cast<double>(vol), std::max(1.0, 0.05 * static_cast<double>(vol)));
  // Involuntary switches may also hit the thread between calls (user mode): never more in calls.
  EXPECT_LE(ev_invol, invol);
}

TEST(EbpfOffCpu, TheGapsOffCpuTimeBetweenRecordedCallsAgreesWithTheKernelsSchedstat) {
  if (std::string why = ebpf_missing(); !why.empty()) GTEST_SKIP() << "eBPF unavailable: " << why;
  SelfCapture cap("RASTRO_GAP_REPORT", "fs");  // clock_nanosleep is not recorded: its time is a gap's
  ASSERT_EQ(cap.status, 0);
  auto& sink = cap.sink;

  std::ifstream in(cap.report);
  long long tid = 0, t0 = 0, t1 = 0, run_ns = 0;
  ASSERT_TRUE(in >> tid >> t0 >> t1 >> run_ns) << "the workload wrote no report";
  long long gap = 0, in_calls = 0;
  int calls = 0;
  for (const auto& e : sink.trace().events) {
    if (e.tid != tid || e.begin_ns < t0 || e.end_ns > t1) continue;
    ASSERT_TRUE(e.flags & rastro::trace::kEventOffCpu);
    EXPECT_GE(e.gap_offcpu_ns, 0);
    gap += e.gap_offcpu_ns;
    in_calls += e.offcpu_ns;
    calls += e.nr == rastro::trace::syscall_by_name("fcntl")->nr ? 1 : 0;
  }
  EXPECT_EQ(calls, kGapCalls);
  const long long kernel_offcpu = (t1 - t0) - run_ns;  // wall time not spent running
  std::printf("off-CPU between calls: trace %lld ns (+ %lld in calls), kernel %lld ns\n", gap, in_calls, kernel_offcpu);
  ASSERT_GT(kernel_offcpu, kGapCalls * kFeedIntervalNs / 2) << "the thread hardly slept: the test proves nothing";
  EXPECT_NEAR(static_cast<double>(gap + in_calls), static_cast<double>(kernel_offcpu), 0.05 * static_cast<double>(kernel_offcpu));
  EXPECT_GT(gap, 10 * in_calls) << "the sleeps are between the recorded calls, not in them";
}

}  // namespace
