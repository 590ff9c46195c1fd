// `--time-with ebpf` for real (needs root and BPF; skipped, saying why, where the eBPF capture
// cannot run): each engine replays two threads of file calls while the eBPF capture's probes time
// the replayer's own threads (self_call_timer.h), and apply_kernel_timing gives the calls their
// kernel times. Two independent clocks meet here: the replayer's vDSO reads and the probes'
// bpf_ktime_get_ns(); a kernel span can only fall inside its user-space span if both are
// CLOCK_MONOTONIC.
#include <fcntl.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include <gtest/gtest.h>

#include "capture/ebpf/ebpf_backend.h"
#include "capture/ebpf/self_call_timer.h"
#include "replay/engines/engine.h"
#include "replay/engines/replay_threads.h"
#include "replay/passes/replay_passes.h"
#include "replay/runtime/exec_uring.h"
#include "replay/runtime/fs_init.h"
#include "replay/runtime/kernel_timing.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

std::string ebpf_missing() {
  std::string why;
  for (auto& m : capture::ebpf::EbpfBackend().missing_requirements()) why += m + "; ";
  if (!why.empty()) std::printf("eBPF unavailable here: %s\n", why.c_str());
  return why;
}

// Threads 100 and 101 of pid 100, each on its own file: openat, 30 pwrite64/pread64, fstat,
// fcntl F_SETFD and F_GETFD (the fd map holds the answer, but the call is made: it has a kernel
// span), close, and a probe of the closed fd (EBADF, from a stand-in call on an fd nobody holds).
trace::Trace file_calls_trace() {
  testing::TraceBuilder b;
  for (int k = 0; k < 2; ++k) {
    const int32_t tid = 100 + k;
    const int fd = 3 + k;
    b.add(100, tid, "openat", {AT_FDCWD, 0, O_RDWR | O_CREAT, 0644}, fd, {"/data/f" + std::to_string(k)});
    for (int i = 0; i < 30; ++i) {
      b.add(100, tid, "pwrite64", {fd, 0, 4096, i * 4096}, 4096);
      b.add(100, tid, "pread64", {fd, 0, 4096, i * 4096}, 4096);
    }
    b.add(100, tid, "fstat", {fd, 0}, 0);
    b.add(100, tid, "fcntl", {fd, F_SETFD, FD_CLOEXEC}, 0);
    b.add(100, tid, "fcntl", {fd, F_GETFD, 0}, FD_CLOEXEC);
    b.add(100, tid, "close", {fd}, 0);
    b.add(100, tid, "fcntl", {fd, F_GETFD, 0}, -EBADF);
  }
  return b.take();
}

// An engine, and whether each traced process is replayed in a process of its own (the probes
// follow the replay processes from their fork; the side array of issue times is shared with them).
struct EngineCase {
  EngineKind engine;
  bool processes;
};

class KernelTimedEngines : public ::testing::TestWithParam<EngineCase> {
 protected:
  void SetUp() override {
    if (GetParam().processes && !detail::kProcessesAvailable) GTEST_SKIP() << "ThreadSanitizer build: no replay processes";
  }
  EngineOptions options() const {
    EngineOptions eo;
    eo.record_os_threads = true;
    eo.processes = GetParam().processes;
    return eo;
  }
};

TEST_P(KernelTimedEngines, EveryExecutedCallGetsAKernelSpanInsideItsUserSpan) {
  if (!ebpf_missing().empty()) GTEST_SKIP() << "eBPF cannot run here";
  Plan plan = infer_plan(file_calls_trace(), Ordering::kFs).take();
  testing::TempDir root;
  SandboxResolver sb(root.path());
  create_initial_state(sb, plan_initial_state(plan.trace));

  auto timer = capture::ebpf::SelfCallTimer::start();
  ASSERT_TRUE(timer.ok()) << timer.error();
  EngineOptions eo = options();
  EngineResult res = run_engine(GetParam().engine, plan, sb, eo);
  capture::ebpf::SelfCallTimes times = timer.value()->stop();
  // Each request says which OS thread issued it, one of the replay's own.
  ASSERT_EQ(res.os_threads.size(), plan.requests.size());
  for (int32_t tid : res.os_threads) EXPECT_GT(tid, 0);
  EXPECT_EQ(std::count(res.os_threads.begin(), res.os_threads.end(), static_cast<int32_t>(::gettid())), 0);
  const std::vector<RequestRecord> user = res.records();
  std::vector<RequestRecord> records = user;
  KernelTimingReport rep = apply_kernel_timing(plan, records, std::move(times), {}, {}, res.os_threads);
  std::printf("%s", rep.to_text().c_str());

  EXPECT_EQ(rep.executed, plan.requests.size());
  EXPECT_EQ(rep.lost, 0u);
  EXPECT_TRUE(rep.drain_error.empty()) << rep.drain_error;
  EXPECT_EQ(rep.matched + rep.no_kernel_call + rep.ambiguous, rep.executed);
  // Nothing was lost, each span holds its call, and the engine said whose calls they are: every
  // one is matched — the coordinator's too, whose workers take any request (before the engines
  // said so, two threads' calls of one number inside one long span could leave one ambiguous).
  EXPECT_EQ(rep.no_kernel_call, 0u) << rep.to_text();
  EXPECT_EQ(rep.matched, rep.executed) << rep.to_text();
  size_t kernel_timed = 0;
  for (size_t r = 0; r < records.size(); ++r) {
    const RequestRecord& k = records[r];
    const RequestRecord& u = user[r];
    if (k.begin_ns == u.begin_ns && k.end_ns == u.end_ns) continue;  // (unmatched: counted above)
    ++kernel_timed;
    EXPECT_LE(u.begin_ns, k.begin_ns) << "request " << r;
    EXPECT_LE(k.begin_ns, k.end_ns) << "request " << r;
    EXPECT_LE(k.end_ns, u.end_ns) << "request " << r;
    EXPECT_LE(k.end_ns - k.begin_ns, u.end_ns - u.begin_ns) << "request " << r;
  }
  EXPECT_EQ(kernel_timed, rep.matched);
}

// Thread 100 of pid 100: 20 × (stat of an existing file, lstat of it, stat below a missing
// directory); each a call on a name the sandbox resolves before the call (sandbox_resolver.h).
trace::Trace calls_on_names_trace() {
  testing::TraceBuilder b;
  for (int i = 0; i < 20; ++i) {
    b.add(100, 100, "stat", {0, 0}, 0, {"/data/sub/f"});
    b.add(100, 100, "lstat", {0, 0}, 0, {"/data/sub/f"});
    b.add(100, 100, "stat", {0, 0}, -ENOENT, {"/nope/x"});
  }
  return b.take();
}

TEST_P(KernelTimedEngines, ACallOnANameGetsItsPathWalkAndItsCall) {
  if (!ebpf_missing().empty()) GTEST_SKIP() << "eBPF cannot run here";
  Plan plan = infer_plan(calls_on_names_trace(), Ordering::kFs).take();
  testing::TempDir root;
  SandboxResolver sb(root.path());
  create_initial_state(sb, plan_initial_state(plan.trace));
  UringReplay uring(plan, UringMode::kPlain);
  uring.keep_issue_begins(GetParam().processes);
  EngineOptions eo = options();
  eo.uring = &uring;

  auto timer = capture::ebpf::SelfCallTimer::start();
  ASSERT_TRUE(timer.ok()) << timer.error();
  const ResolutionCalibration cal = calibrate_resolution(sb);
  EngineResult res = run_engine(GetParam().engine, plan, sb, eo);
  capture::ebpf::SelfCallTimes times = timer.value()->stop();
  const std::vector<RequestRecord> user = res.records();
  std::vector<RequestRecord> records = user;
  // The probes' own record of the replayer's openat2 calls, to check the walks against.
  std::vector<capture::ebpf::KernelCall> openat2s;
  for (const auto& k : times.calls)
    if (k.nr == SYS_openat2) openat2s.push_back(k);
  KernelTimingReport rep = apply_kernel_timing(plan, records, std::move(times), uring.issue_begins(), cal,
                                               res.os_threads);
  std::printf("%s", rep.to_text().c_str());

  ASSERT_EQ(rep.executed, plan.requests.size());
  EXPECT_EQ(rep.lost, 0u);
  // Every one walked its path in the kernel: none is left without a kernel call.
  EXPECT_EQ(rep.matched, rep.executed) << rep.to_text();
  EXPECT_EQ(rep.with_walk, rep.executed) << rep.to_text();
  EXPECT_EQ(rep.walk_only, 20u) << rep.to_text();
  EXPECT_GT(rep.open_fixed_ns, 0) << "the probes saw the calibration's openat2 calls";
  const auto issued = uring.issue_begins();
  for (size_t r = 0; r < records.size(); ++r) {
    const RequestRecord& k = records[r];
    const RequestRecord& u = user[r];
    EXPECT_EQ(u.rvalue, plan.trace.events[plan.requests[r].event].rvalue) << "request " << r;
    // Inside the request, resolution included; at least the one openat2 that walked it, less the
    // fixed cost of an openat2 (a failed walk: all of it).
    EXPECT_LE(issued[r], k.begin_ns) << "request " << r;
    EXPECT_LE(k.end_ns, u.end_ns) << "request " << r;
    const auto walk = std::find_if(openat2s.begin(), openat2s.end(), [&](const capture::ebpf::KernelCall& c) {
      return c.begin_ns >= issued[r] && c.end_ns <= u.begin_ns;
    });
    ASSERT_NE(walk, openat2s.end()) << "request " << r;
    EXPECT_GE(k.end_ns - k.begin_ns, walk->end_ns - walk->begin_ns - rep.open_fixed_ns) << "request " << r;
  }
}

// Thread 100 of pid 100: a pipe, then per end F_GETFL, F_SETFL O_NONBLOCK, F_GETFL, and a dup2.
// The executor looks each pipe end up (forced_nonblock.h: an fcntl and an fstat of its own) and
// keeps the fd table after a dup: its timed region is the one call, which the probes find alone.
trace::Trace pipe_fcntl_trace() {
  testing::TraceBuilder b;
  b.add(100, 100, "pipe2", {(int64_t{4} << 32) | 3, 0}, 0);
  for (int fd : {3, 4}) {
    const int mode = fd == 3 ? O_RDONLY : O_WRONLY;
    b.add(100, 100, "fcntl", {fd, F_GETFL, 0}, mode);
    b.add(100, 100, "fcntl", {fd, F_SETFL, O_NONBLOCK}, 0);
    b.add(100, 100, "fcntl", {fd, F_GETFL, 0}, mode | O_NONBLOCK);
    b.add(100, 100, "dup2", {fd, fd + 5}, fd + 5);
  }
  return b.take();
}

TEST_P(KernelTimedEngines, AnFcntlOrDupOfAPipeIsItsOneCall) {
  if (!ebpf_missing().empty()) GTEST_SKIP() << "eBPF cannot run here";
  Plan plan = infer_plan(pipe_fcntl_trace(), Ordering::kFs).take();
  testing::TempDir root;
  SandboxResolver sb(root.path());
  EngineOptions eo = options();
  auto timer = capture::ebpf::SelfCallTimer::start();
  ASSERT_TRUE(timer.ok()) << timer.error();
  EngineResult res = run_engine(GetParam().engine, plan, sb, eo);
  capture::ebpf::SelfCallTimes times = timer.value()->stop();
  std::vector<RequestRecord> records = res.records();
  for (size_t r = 0; r < records.size(); ++r)
    EXPECT_EQ(records[r].rvalue, plan.trace.events[plan.requests[r].event].rvalue) << "request " << r;
  KernelTimingReport rep = apply_kernel_timing(plan, records, std::move(times), {}, {}, res.os_threads);
  std::printf("%s", rep.to_text().c_str());
  EXPECT_EQ(rep.executed, plan.requests.size());
  EXPECT_EQ(rep.matched, rep.executed) << rep.to_text();
  EXPECT_EQ(rep.matched_other_nr, 2u) << rep.to_text();  // the dup2s, replayed as fcntl(F_DUPFD_CLOEXEC)
}

INSTANTIATE_TEST_SUITE_P(Engines, KernelTimedEngines,
                         ::testing::Values(EngineCase{EngineKind::kWorkers, false},
                                           EngineCase{EngineKind::kCoordinator, false},
                                           EngineCase{EngineKind::kWorkers, true},
                                           EngineCase{EngineKind::kCoordinator, true}),
                         [](const auto& p) {
                           return std::string(engine_name(p.param.engine)) + (p.param.processes ? "_processes" : "");
                         });

}  // namespace
}  // namespace rastro::replay
