// The kernel fd tables of the replay threads (replay/engines/replay_threads.h): under both engines
// the threads of one traced process share one table, each traced process has its own, and none is
// the test's (the engine's caller). Observed with kcmp(KCMP_FILES),
// which asks the kernel whether two tasks share their fd table, while every replay thread waits in
// its last request.
#include <fcntl.h>
#include <linux/kcmp.h>
#include <sched.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <signal.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "common/error.h"

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/engines/replay_threads.h"
#include "replay/runtime/process_state.h"
#include "replay/runtime/timing.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TraceBuilder;

// 0: tasks a and b share their fd table; 1 or 2: they do not; -1: no kcmp here (errno).
long files_compare(pid_t a, pid_t b) { return syscall(SYS_kcmp, a, b, KCMP_FILES, 0, 0); }

// Three traced threads: pid 1's threads 1 and 11 (a CLONE_THREAD clone) and pid 2 (a fork of 1),
// each writing its own file.
trace::Trace two_processes_three_threads() {
  TraceBuilder b;
  const int64_t thread_flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/p1"});
  b.add(1, 1, "clone", {thread_flags}, 11);
  b.add(1, 1, "fork", {}, 2);
  b.add(1, 11, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 4, {"/t11"});
  b.add(2, 2, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 4, {"/p2"});
  b.add(1, 1, "write", {3, 0, 10}, 10);
  b.add(1, 11, "write", {4, 0, 20}, 20);
  b.add(2, 2, "write", {4, 0, 30}, 30);
  return b.take();
}

// Records each plan thread's OS thread in its last request and holds it there until all three
// are in theirs, then compares their fd tables with each other's and the test thread's.
class TableProbe : public RequestHooks {
 public:
  explicit TableProbe(const Plan& plan) : plan_(plan), caller_(static_cast<int32_t>(gettid())) {}
  bool before_issue(uint32_t r) override {
    const uint32_t t = plan_.requests[r].thread;
    if (plan_.threads[t].requests.back() != r) return false;
    tids_[t].store(static_cast<int32_t>(gettid()));
    arrived_.fetch_add(1);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived_.load() < 3 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    if (t == 0) {  // one of them compares, while all are alive
      for (size_t u = 0; u < 3; ++u)
        for (size_t v = 0; v < 3; ++v) same_[u][v] = files_compare(tids_[u].load(), tids_[v].load());
      for (size_t u = 0; u < 3; ++u) same_as_caller_[u] = files_compare(tids_[u].load(), caller_);
    }
    compared_.fetch_add(1);
    while (compared_.load() < 3 && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
    return false;
  }
  void after_complete(uint32_t) override {}
  int32_t tid(size_t t) const { return tids_[t].load(); }
  long same(size_t u, size_t v) const { return same_[u][v]; }
  long same_as_caller(size_t u) const { return same_as_caller_[u]; }  // the engine's caller

 private:
  const Plan& plan_;
  std::array<std::atomic<int32_t>, 3> tids_{};
  std::atomic<int> arrived_{0};
  std::atomic<int> compared_{0};
  std::array<std::array<long, 3>, 3> same_{};
  std::array<long, 3> same_as_caller_{};
  int32_t caller_;
};

// Both engines, each with both ways a forked child gets its parent's fds: pidfd_getfd from the
// forking thread (Linux 6.9+) and the older kernels' way (its thread started at the fork,
// unshare(CLONE_FILES) copying the table), which EngineOptions::thread_fd_import = false forces.
constexpr std::pair<EngineKind, bool> kEnginesAndForkCopies[] = {
    {EngineKind::kWorkers, true}, {EngineKind::kWorkers, false},
    {EngineKind::kCoordinator, true}, {EngineKind::kCoordinator, false}};

size_t plan_thread(const Plan& plan, int32_t tid) {
  for (size_t t = 0; t < plan.threads.size(); ++t)
    if (plan.threads[t].tid == tid) return t;
  ADD_FAILURE() << "no plan thread " << tid;
  return 0;
}

TEST(ReplayThreads, EachTracedProcessHasAKernelFdTableOfItsOwn) {
  if (!detail::kFdTablePerProcess) GTEST_SKIP() << "ThreadSanitizer build: one fd table (replay_threads.h)";
  if (files_compare(gettid(), gettid()) < 0) GTEST_SKIP() << "kcmp(KCMP_FILES): " << std::strerror(errno);
  for (const auto& [eng, import] : kEnginesAndForkCopies) {
    SCOPED_TRACE(std::string(engine_name(eng)) + (import ? ", pidfd_getfd at the fork" : ", unshare at the fork"));
    testing::TempDir root;
    SandboxResolver sb(root.path());
    Plan plan = testing::hand_plan(two_processes_three_threads(), false);
    ASSERT_EQ(plan.threads.size(), 3u);
    TableProbe probe(plan);
    EngineOptions o;
    o.hooks = &probe;
    o.thread_fd_import = import;
    EngineResult res = run_engine(eng, plan, sb, o);
    EXPECT_EQ(res.stats.skipped_total(), 0u);
    EXPECT_EQ(res.stats.mismatched, 0u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("p1")), 10u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("t11")), 20u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("p2")), 30u);
    const size_t main = plan_thread(plan, 1), thread = plan_thread(plan, 11), child = plan_thread(plan, 2);
    EXPECT_EQ(probe.same(main, thread), 0) << "a traced process's threads share its table";
    EXPECT_GT(probe.same(main, child), 0) << "a forked child has a table of its own";
    EXPECT_GT(probe.same(thread, child), 0);
    EXPECT_GT(probe.same_as_caller(main), 0) << "a root process copies the caller's table";
    EXPECT_GT(probe.same_as_caller(child), 0);
    EXPECT_NE(probe.tid(main), 0);
  }
}

// Linux 6.9 and later give a thread its own pidfd (PIDFD_THREAD): there every process's first
// replay thread starts before the replay and takes its fork's fds with pidfd_getfd.
TEST(ReplayThreads, ThreadFdImportIsAvailableFromLinux69) {
  struct utsname u {};
  ASSERT_EQ(uname(&u), 0);
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(u.release, "%d.%d", &major, &minor), 2) << u.release;
  if (major < 6 || (major == 6 && minor < 9)) GTEST_SKIP() << "Linux " << u.release << " has no PIDFD_THREAD";
  EXPECT_TRUE(thread_fd_import_available()) << u.release;
}

// The child's table is its parent's at the fork: the parent closing fd 3 and opening another
// file as 3 right after it changes nothing for the child's 3.
TEST(ReplayThreads, AForkedChildKeepsItsFdsWhateverItsParentDoesAfterTheFork) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/a"});
  b.add(1, 1, "fork", {}, 2);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/b"});
  b.add(1, 1, "write", {3, 0, 50}, 50);
  b.add(2, 2, "write", {3, 0, 100}, 100);  // after all of the parent's (temporal order)
  b.add(2, 2, "close", {3}, 0);
  const trace::Trace tr = b.take();
  for (const auto& [eng, import] : kEnginesAndForkCopies) {
    SCOPED_TRACE(std::string(engine_name(eng)) + (import ? ", pidfd_getfd at the fork" : ", unshare at the fork"));
    testing::TempDir root;
    SandboxResolver sb(root.path());
    Plan plan = testing::hand_plan(tr, true);
    EngineOptions o;
    o.thread_fd_import = import;
    EngineResult res = run_engine(eng, plan, sb, o);
    EXPECT_EQ(res.stats.skipped_total(), 0u);
    EXPECT_EQ(res.stats.mismatched, 0u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("a")), 100u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("b")), 50u);
  }
  if (!detail::kProcessesAvailable) return;
  // The same with each traced process in a replay process of its own: the fork itself gives the
  // child its parent's fds.
  testing::TempDir root;
  SandboxResolver sb(root.path());
  Plan plan = testing::hand_plan(tr, true);
  EngineOptions o;
  o.processes = true;
  EngineResult res = run_engine(EngineKind::kWorkers, plan, sb, o);
  EXPECT_EQ(res.replay_processes, 2u);
  EXPECT_EQ(res.stats.skipped_total(), 0u);
  EXPECT_EQ(res.stats.mismatched, 0u);
  EXPECT_EQ(std::filesystem::file_size(root.sub("a")), 100u);
  EXPECT_EQ(std::filesystem::file_size(root.sub("b")), 50u);
}

// EngineOptions::processes: each traced process is replayed in an OS process of its own, its
// threads are threads of it, and what they did comes back whole (records, counters, OS threads).
TEST(ReplayThreads, WithProcessesEachTracedProcessIsAReplayProcessOfItsOwn) {
  if (!detail::kProcessesAvailable) GTEST_SKIP() << "ThreadSanitizer build: no replay processes (replay_threads.h)";
  for (auto [engine, processes] : {std::pair{EngineKind::kWorkers, false}, std::pair{EngineKind::kWorkers, true},
                                    std::pair{EngineKind::kCoordinator, false},
                                    std::pair{EngineKind::kCoordinator, true}}) {
    SCOPED_TRACE(std::string(engine_name(engine)) + (processes ? " processes" : " threads"));
    testing::TempDir root;
    SandboxResolver sb(root.path());
    Plan plan = testing::hand_plan(two_processes_three_threads(), false);
    EngineOptions o;
    o.processes = processes;
    o.record_os_threads = true;
    EngineResult res = run_engine(engine, plan, sb, o);
    EXPECT_EQ(res.replay_processes, processes ? 2u : 1u);
    EXPECT_EQ(res.stats.executed, 6u);  // 3 opens, 3 writes (the clone and the fork: structure)
    EXPECT_EQ(res.stats.skipped_total(), 0u);
    EXPECT_EQ(res.stats.mismatched, 0u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("p1")), 10u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("t11")), 20u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("p2")), 30u);
    // Every request's record came back, with the rvalue it had.
    const std::vector<RequestRecord> recs = res.records();
    ASSERT_EQ(recs.size(), plan.requests.size());
    for (size_t r = 0; r < recs.size(); ++r) {
      const trace::Event& e = plan.trace.events[plan.requests[r].event];
      EXPECT_GT(recs[r].end_ns, 0) << r;
      if (trace::function_name(e, plan.trace.strings) == "write") {
        EXPECT_EQ(recs[r].rvalue, e.rvalue) << r;
      }
    }
    // Three OS threads, one per traced thread. The coordinator hands a process's requests to any
    // of its workers, so one of traced process 1's two may have run them all; never one of
    // process 2's, and process 2's never one of process 1's.
    std::set<int32_t> tids(res.os_threads.begin(), res.os_threads.end());
    EXPECT_EQ(tids.count(0), 0u);
    if (engine == EngineKind::kWorkers) {
      EXPECT_EQ(tids.size(), 3u);
    } else {
      EXPECT_GE(tids.size(), 2u);
      EXPECT_LE(tids.size(), 3u);
    }
    std::map<int32_t, std::set<int32_t>> pids_of_tid;  // OS thread -> the traced processes it served
    for (size_t r = 0; r < recs.size(); ++r)
      pids_of_tid[res.os_threads[r]].insert(plan.trace.events[plan.requests[r].event].pid);
    for (const auto& [tid, pids] : pids_of_tid) EXPECT_EQ(pids.size(), 1u) << "OS thread " << tid;
  }
}

// The child processes of `pid` (listed per thread: the one that forked them).
std::vector<pid_t> children_of(pid_t pid) {
  std::vector<pid_t> v;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    std::ifstream in(task.path() / "children");
    for (pid_t c; in >> c;) v.push_back(c);
  }
  return v;
}

// Traced process 1 opens a file and forks 2, which writes to it, and again `gap_ns` later.
trace::Trace a_fork_then_a_gap(int64_t gap_ns) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/a"});
  b.add(1, 1, "fork", {}, 2);
  b.add(2, 2, "write", {3, 0, 10}, 10);
  b.add(2, 2, "write", {3, 0, 10}, 10, {}, b.clock + gap_ns);
  return b.take();
}

// A replay in replay processes, under think timing (a_fork_then_a_gap's gap is waited out).
EngineOptions processes_think() {
  EngineOptions o;
  o.processes = true;
  o.timing = parse_timing("think").take();
  return o;
}

// A replay of `plan` with processes_think(), started on another thread.
std::future<EngineResult> replay_in_processes(EngineKind engine, const Plan& plan, SandboxResolver& sb) {
  const EngineOptions o = processes_think();
  return std::async(std::launch::async, [engine, &plan, &sb, o] { return run_engine(engine, plan, sb, o); });
}

// The replay processes of a_fork_then_a_gap's traced processes 1 and 2: 1's is a child of
// `engine` (the engine's process), 2's a child of 1's. Waited for up to 20 s; 0 for one not seen.
std::pair<pid_t, pid_t> two_replay_processes(pid_t engine) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < give_up) {
    for (pid_t p1 : children_of(engine))
      for (pid_t p2 : children_of(p1)) return {p1, p2};
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::vector<pid_t> p1 = children_of(engine);
  return {p1.empty() ? 0 : p1.front(), 0};
}

// A replay process that dies (here: killed while its thread waits out a 3 s think gap) ends the
// replay with an error naming its traced process, promptly: its parent, which waits for it, and
// the engine are not left waiting for requests it will never complete.
// The coordinator too: it waits for completions, which the killed process's requests never send.
class ReplayProcessDies : public ::testing::TestWithParam<EngineKind> {};

TEST_P(ReplayProcessDies, AReplayProcessThatDiesEndsTheReplayWithAnError) {
  if (!detail::kProcessesAvailable) GTEST_SKIP() << "ThreadSanitizer build: no replay processes (replay_threads.h)";
  testing::TempDir root;
  SandboxResolver sb(root.path());
  Plan plan = testing::hand_plan(a_fork_then_a_gap(3'000'000'000), false);
  auto replay = replay_in_processes(GetParam(), plan, sb);
  const pid_t victim = two_replay_processes(getpid()).second;
  ASSERT_NE(victim, 0) << "no replay process of traced process 2 appeared";
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  ASSERT_EQ(replay.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "the replay hung";
  try {
    replay.get();
    ADD_FAILURE() << "a replay whose process was killed succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("traced process 2 ended before its last request"), std::string::npos)
        << e.what();
  }
}


INSTANTIATE_TEST_SUITE_P(Engines, ReplayProcessDies, ::testing::Values(EngineKind::kWorkers, EngineKind::kCoordinator),
                         [](const auto& p) { return std::string(engine_name(p.param)); });

// The tasks of a replay process whose traced process had one thread do not share an fd table:
// the thread that watches for the engine's end took its own (replay_threads.cpp, end_with_engine).
// Shared, the table would put every replayed fd call on the kernel's slower path for a table used
// by several tasks, which the traced process, alone with its table, never took.
class ReplayProcessTables : public ::testing::TestWithParam<EngineKind> {};

std::vector<pid_t> tasks_of(pid_t pid) {
  std::vector<pid_t> v;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec))
    v.push_back(std::stoi(task.path().filename()));
  return v;
}

TEST_P(ReplayProcessTables, NoOtherTaskSharesAReplayProcesssFdTable) {
  if (!detail::kProcessesAvailable) GTEST_SKIP() << "ThreadSanitizer build: no replay processes (replay_threads.h)";
  if (files_compare(gettid(), gettid()) < 0) GTEST_SKIP() << "kcmp(KCMP_FILES): " << std::strerror(errno);
  testing::TempDir root;
  SandboxResolver sb(root.path());
  Plan plan = testing::hand_plan(a_fork_then_a_gap(2'000'000'000), false);
  auto replay = replay_in_processes(GetParam(), plan, sb);
  const auto [p1, p2] = two_replay_processes(getpid());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // their threads started (the gap is 2 s)
  EXPECT_TRUE(p1 != 0 && p2 != 0) << "the replay processes did not all appear";
  for (pid_t p : {p1, p2}) {
    if (p == 0) continue;
    const std::vector<pid_t> tasks = tasks_of(p);
    for (size_t i = 0; i < tasks.size(); ++i)
      for (size_t j = i + 1; j < tasks.size(); ++j)
        EXPECT_NE(files_compare(tasks[i], tasks[j]), 0)
            << "tasks " << tasks[i] << " and " << tasks[j] << " of replay process " << p << " share an fd table";
  }
  ASSERT_EQ(replay.wait_for(std::chrono::seconds(20)), std::future_status::ready) << "the replay hung";
  EXPECT_EQ(replay.get().stats.skipped_total(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Engines, ReplayProcessTables, ::testing::Values(EngineKind::kWorkers, EngineKind::kCoordinator),
                         [](const auto& p) { return std::string(engine_name(p.param)); });

// The other way round: the replay processes end with the engine's process. Killed, it leaves none
// of them replaying on (here for 10 s more of think gaps) a replay nobody will read, nor their
// temporary directory. The engine runs in a child of the test, which takes in the orphaned replay
// processes as their subreaper and sees them end.
TEST(ReplayThreads, TheReplayProcessesEndWhenTheEnginesProcessIsKilled) {
  if (!detail::kProcessesAvailable) GTEST_SKIP() << "ThreadSanitizer build: no replay processes (replay_threads.h)";
  testing::TempDir root, tmp;
  SandboxResolver sb(root.path());
  Plan plan = testing::hand_plan(a_fork_then_a_gap(10'000'000'000), false);
  const EngineOptions o = processes_think();
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0) << std::strerror(errno);
  const pid_t engine = ::fork();
  ASSERT_GE(engine, 0) << std::strerror(errno);
  if (engine == 0) {
    ::setenv("TMPDIR", tmp.path().c_str(), 1);  // the replay's outcomes directory, to look for after
    try {
      run_engine(EngineKind::kWorkers, plan, sb, o);
    } catch (...) {
    }
    ::_exit(0);
  }
  std::set<pid_t> replay_processes;  // traced process 1's, and its child, traced process 2's
  const auto [p1, p2] = two_replay_processes(engine);
  for (pid_t p : {p1, p2})
    if (p != 0) replay_processes.insert(p);
  // Held through pidfds: a replay process may be reaped by its parent (another replay process)
  // rather than by this one, and its pid then names nothing, or another process.
  std::map<pid_t, int> pidfds;
  for (pid_t p : replay_processes) pidfds[p] = static_cast<int>(::syscall(SYS_pidfd_open, p, 0));
  ASSERT_EQ(::kill(engine, SIGKILL), 0);
  ASSERT_EQ(::waitpid(engine, nullptr, 0), engine);
  EXPECT_EQ(replay_processes.size(), 2u) << "the replay processes did not all appear";
  // Each must end well before its 10 s gap does.
  size_t running = 0;
  for (auto [p, fd] : pidfds) {
    ASSERT_GE(fd, 0) << "replay process " << p << " ended before the engine was killed";
    pollfd pfd{fd, POLLIN, 0};
    if (::poll(&pfd, 1, 3000) != 1) ++running;
  }
  EXPECT_EQ(running, 0u) << running << " replay process(es) still running 3 s after the engine's was killed";
  for (auto [p, fd] : pidfds) {
    ::syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0);  // (after a failure)
    ::waitpid(p, nullptr, 0);  // this test's child, when it was orphaned; else ECHILD at once
    ::close(fd);
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  std::vector<std::string> leftovers;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path())) leftovers.push_back(e.path().filename());
  EXPECT_TRUE(leftovers.empty()) << "left behind in TMPDIR: " << leftovers.front();
}

}  // namespace
}  // namespace rastro::replay
