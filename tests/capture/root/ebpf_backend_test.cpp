// Root-only runtime suite for the eBPF backend: it loads the BPF programs, captures a
// deterministic workload (this test binary re-executed in a workload mode) and checks the trace
// against what the workload did. Skipped, with the reason, only where BPF cannot be loaded.
#include "capture/ebpf/ebpf_backend.h"
#include "tests/capture/root/ebpf_root_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <future>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "common/clock.h"
#include "trace/io/trace_sink.h"
#include "trace/model/page_fault.h"
#include "trace/syscalls/syscall_table.h"

namespace {

constexpr int kOpsPerThread = 25;  // pwrite64 and pread64 calls per thread
constexpr int kUmaskCalls = 20000;
constexpr long kStormPages = 4000;   // pages of the mapped file written once each
constexpr int kChurnRounds = 10000;  // mmap/munmap rounds per churning thread (at most)

// ---- workload mode: this binary re-executed with RASTRO_EBPF_WORKLOAD set ----------------------
// Raw syscalls so the trace shows exactly these numbers whatever libc does.

void thread_work(const std::string& dir, int proc, int thr, std::ofstream* report, std::mutex* mu) {
  std::string path = dir + "/p" + std::to_string(proc) + "_t" + std::to_string(thr);
  std::string renamed = path + ".renamed";
  char buf[100];
  std::memset(buf, 'x', sizeof buf);
  long fd = ::syscall(SYS_openat, AT_FDCWD, path.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
  for (int i = 0; i < kOpsPerThread; ++i) ::syscall(SYS_pwrite64, fd, buf, sizeof buf, i * 100L);
  for (int i = 0; i < kOpsPerThread; ++i) ::syscall(SYS_pread64, fd, buf, sizeof buf, i * 100L);
  ::syscall(SYS_fsync, fd);
  ::syscall(SYS_close, fd);
  ::syscall(SYS_rename, path.c_str(), renamed.c_str());
  ::syscall(SYS_unlink, renamed.c_str());
  std::lock_guard<std::mutex> lock(*mu);
  *report << ::getpid() << ' ' << ::syscall(SYS_gettid) << ' ' << fd << ' ' << path << '\n';
}

void process_work(const std::string& dir, const std::string& report_dir, int proc) {
  std::ofstream report(report_dir + "/report" + std::to_string(proc));
  std::mutex mu;
  std::thread a(thread_work, dir, proc, 0, &report, &mu);
  std::thread b(thread_work, dir, proc, 1, &report, &mu);
  a.join();
  b.join();
}

int run_backend_workload_if_asked() {
  const char* mode = std::getenv("RASTRO_EBPF_WORKLOAD");
  if (mode == nullptr) return 0;
  std::string m = mode;
  if (m == "umask") {
    for (int i = 0; i < kUmaskCalls; ++i) ::syscall(SYS_umask, 022);
    std::_Exit(0);
  }
  if (m == "lazy") {
    // The path string lives in a file-backed page this process never touched: at sys_enter
    // bpf_probe_read_user_str cannot fault it in (page not mapped yet); the kernel's own copy
    // does, so the exit handler's re-read succeeds. Then an invalid pointer: unreadable twice.
    std::string dir = std::getenv("RASTRO_EBPF_DIR");
    std::string target = dir + "/lazy_target";
    std::string holder = dir + "_holder";
    int hfd = ::open(holder.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (::write(hfd, target.c_str(), target.size() + 1) < 0) std::_Exit(3);
    void* page = ::mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, hfd, 0);
    long fd = ::syscall(SYS_openat, AT_FDCWD, static_cast<const char*>(page), O_CREAT | O_WRONLY, 0644);
    ::syscall(SYS_close, fd);
    ::syscall(SYS_unlink, reinterpret_cast<const char*>(8));  // EFAULT
    std::_Exit(0);
  }
  if (m == "attach") {
    // Waits for the test to create the marker (after attaching), then 10 umask calls here and
    // 5 in a forked child.
    std::string marker = std::getenv("RASTRO_EBPF_MARKER");
    struct stat st;
    while (::stat(marker.c_str(), &st) != 0) ::usleep(10000);
    for (int i = 0; i < 10; ++i) ::syscall(SYS_umask, 022);
    pid_t c = ::fork();
    if (c == 0) {
      for (int i = 0; i < 5; ++i) ::syscall(SYS_umask, 022);
      std::_Exit(0);
    }
    ::waitpid(c, nullptr, 0);
    std::_Exit(0);
  }
  if (m == "faultstorm") {
    // Two threads map and unmap anonymous memory (each takes the mm's lock for writing) while the
    // main thread writes one byte to every page of a private file mapping: one write fault per
    // page (a write fault maps no neighbours), many of them finding the mm's lock busy. The
    // churning threads touch nothing, so every fault of the run is the main thread's.
    std::string dir = std::getenv("RASTRO_EBPF_DIR");
    std::atomic<bool> done{false}, go{false}, second_may_exit{false};
    std::atomic<int> ready{0}, stopped{0};
    auto churn = [&done, &go, &ready, &stopped, &second_may_exit](bool second) {
      ready++;  // started (its own stack faulted) before any churning: those faults resolve
      while (!go.load()) {
      }
      for (int i = 0; i < kChurnRounds && !done.load(); ++i) {
        void* p = ::mmap(nullptr, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) std::_Exit(4);
        ::munmap(p, 1 << 16);
      }
      // Exit only once nobody churns, and one thread at a time: a fault of the exiting thread
      // (glibc's exit path) that still found the mm busy at the thread's exit — the other thread
      // exiting at the same moment takes the lock too — could not be looked up any more (counted,
      // as CI saw once: 2 unresolved, one per thread).
      stopped++;
      while (stopped.load() < 2) {
      }
      while (second && !second_may_exit.load()) {
      }
    };
    std::thread a(churn, false), b(churn, true);
    while (ready.load() < 2) {
    }
    go = true;
    int fd = ::open((dir + "/storm.dat").c_str(), O_RDONLY);
    void* map = ::mmap(nullptr, kStormPages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (fd < 0 || map == MAP_FAILED) std::_Exit(3);
    for (long i = 0; i < kStormPages; ++i) static_cast<volatile char*>(map)[i * 4096] = 1;
    done = true;
    a.join();
    second_may_exit = true;
    b.join();
    std::ofstream(dir + "/storm.tid") << ::syscall(SYS_gettid) << '\n';
    std::_Exit(0);
  }
  if (m == "fs") {
    std::string dir = std::getenv("RASTRO_EBPF_DIR");
    std::string report_dir = std::getenv("RASTRO_EBPF_REPORT");
    pid_t child = ::fork();
    if (child == 0) {
      process_work(dir, report_dir, 1);
      std::_Exit(0);
    }
    process_work(dir, report_dir, 0);
    int st = 0;
    ::waitpid(child, &st, 0);
    std::_Exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
  }
  std::_Exit(2);
}

[[maybe_unused]] const int g_backend_workload = run_backend_workload_if_asked();

// ---- test side ----------------------------------------------------------------------------------

using rastro::capture::ebpf::testing::self_exe;

std::string make_temp_dir(const char* tag) {
  std::string tmpl = std::string("/tmp/rastro_ebpf_") + tag + "_XXXXXX";
  char* d = ::mkdtemp(tmpl.data());
  if (d == nullptr) return {};
  char real[PATH_MAX];
  return ::realpath(d, real) ? std::string(real) : std::string(d);
}

class EbpfBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = rastro::capture::ebpf::testing::ebpf_missing(); !why.empty())
      GTEST_SKIP() << "eBPF unavailable: " << why;
  }

  rastro::capture::CaptureOptions options(const std::string& spec, std::vector<std::string> env) {
    rastro::capture::CaptureOptions o;
    o.command = {"/usr/bin/env"};
    for (auto& e : env) o.command.push_back(e);
    o.command.push_back(self_exe());
    o.syscalls_spec = spec;
    o.syscalls = rastro::trace::parse_syscall_set(spec).take();
    o.quiet = true;
    return o;
  }
};

int nr_of(const char* name) { return rastro::trace::syscall_by_name(name)->nr; }

TEST_F(EbpfBackendTest, CapturesTwoProcessesTimesTwoThreadsExactly) {
  std::string dir = make_temp_dir("fs");
  std::string report_dir = make_temp_dir("report");
  ASSERT_FALSE(dir.empty());
  auto opts = options("fs", {"RASTRO_EBPF_WORKLOAD=fs", "RASTRO_EBPF_DIR=" + dir, "RASTRO_EBPF_REPORT=" + report_dir});
  rastro::trace::MemorySink sink;
  rastro::capture::ebpf::EbpfBackend backend;
  int64_t t0 = rastro::monotonic_ns();
  int status = backend.run(opts, sink);
  int64_t t1 = rastro::monotonic_ns();
  ASSERT_EQ(status, 0);
  const auto& trace = sink.trace();
  const auto& strings = trace.strings;
  EXPECT_EQ(trace.header.backend, "ebpf");
  EXPECT_EQ(trace.header.events_lost, 0u);
  EXPECT_EQ(trace.header.events_captured, trace.events.size());

  // What the workload says it did: pid tid fd path, one line per thread.
  struct Reported {
    int pid, tid;
    long fd;
  };
  std::map<std::string, Reported> reported;
  for (int p = 0; p < 2; ++p) {
    std::ifstream in(report_dir + "/report" + std::to_string(p));
    Reported r{};
    std::string path;
    while (in >> r.pid >> r.tid >> r.fd >> path) reported[path] = r;
  }
  ASSERT_EQ(reported.size(), 4u);

  // Per (tid, function) counts of the calls touching our directory, plus argument checks.
  std::map<std::pair<int, std::string>, int> counts;
  std::set<int> pids, tids;
  for (const auto& e : trace.events) {
    EXPECT_LE(e.begin_ns, e.end_ns);
    EXPECT_GE(e.begin_ns, t0);
    EXPECT_LE(e.end_ns, t1);
    const rastro::trace::SyscallInfo* info = rastro::trace::syscall_by_nr(e.nr);
    if (info == nullptr) continue;
    bool ours = false;
    for (int i = 0; i < e.nargs; ++i)
      if (strings.get(e.args[static_cast<size_t>(i)].str).rfind(dir + "/", 0) == 0) ours = true;
    if (!ours) continue;
    counts[{e.tid, std::string(info->name)}]++;
    pids.insert(e.pid);
    tids.insert(e.tid);
    if (e.nr == nr_of("pwrite64") || e.nr == nr_of("pread64")) {
      std::string path(strings.get(e.args[0].str));
      ASSERT_TRUE(reported.count(path)) << path;
      const Reported& r = reported[path];
      EXPECT_EQ(e.pid, r.pid);
      EXPECT_EQ(e.tid, r.tid);
      EXPECT_EQ(e.args[0].value, r.fd);
      EXPECT_EQ(e.args[1].value, 0);
      EXPECT_EQ(e.args[2].value, 100);
      EXPECT_EQ(e.args[3].value % 100, 0);
      EXPECT_EQ(e.rvalue, 100);
    }
    if (e.nr == nr_of("openat")) {
      EXPECT_EQ(e.args[0].value, -100);  // AT_FDCWD, resolved to the working directory
      char cwd[PATH_MAX];
      ASSERT_NE(::getcwd(cwd, sizeof cwd), nullptr);
      EXPECT_EQ(strings.get(e.args[0].str), cwd);
      const Reported& r = reported[std::string(strings.get(e.args[1].str))];
      EXPECT_EQ(e.rvalue, r.fd);
      EXPECT_EQ(e.args[3].value, 0644);
    }
    if (e.nr == nr_of("rename")) {
      EXPECT_EQ(std::string(strings.get(e.args[1].str)), std::string(strings.get(e.args[0].str)) + ".renamed");
      EXPECT_EQ(e.rvalue, 0);
    }
  }
  EXPECT_EQ(pids.size(), 2u);  // the forked child is followed
  EXPECT_EQ(tids.size(), 4u);  // and both threads of each process
  for (const auto& [path, r] : reported) {
    EXPECT_EQ((counts[{r.tid, "openat"}]), 1) << path;
    EXPECT_EQ((counts[{r.tid, "pwrite64"}]), kOpsPerThread) << path;
    EXPECT_EQ((counts[{r.tid, "pread64"}]), kOpsPerThread) << path;
    EXPECT_EQ((counts[{r.tid, "fsync"}]), 1) << path;
    EXPECT_EQ((counts[{r.tid, "close"}]), 1) << path;
    EXPECT_EQ((counts[{r.tid, "rename"}]), 1) << path;
    EXPECT_EQ((counts[{r.tid, "unlink"}]), 1) << path;
  }

  // Lifecycle: the workload's own execve (only the successful one, from exec on), the fork of
  // the second process, thread creation, and exit_group of both processes.
  int execs = 0, exit_groups = 0;
  std::set<int64_t> clone_results;
  for (const auto& e : trace.events) {
    if (e.nr == nr_of("execve")) ++execs;
    if (e.nr == nr_of("exit_group")) ++exit_groups;
    if ((e.nr == nr_of("clone") || e.nr == nr_of("clone3")) && e.rvalue > 0) clone_results.insert(e.rvalue);
  }
  EXPECT_EQ(execs, 2);  // /usr/bin/env, then the test binary
  EXPECT_EQ(exit_groups, 2);
  for (auto& [path, r] : reported) {
    EXPECT_TRUE(clone_results.count(r.tid)) << "no clone returned thread " << r.tid;
    if (path.find("/p1_") != std::string::npos) {
      EXPECT_TRUE(clone_results.count(r.pid)) << "no fork returned the second process " << r.pid;
    }
  }
  std::system(("rm -rf " + dir + " " + report_dir).c_str());
}

TEST_F(EbpfBackendTest, FaultsThatFindTheMmBusyAreLookedUpLaterNotLost) {
  std::string dir = make_temp_dir("storm");
  ASSERT_FALSE(dir.empty());
  {
    std::ofstream f(dir + "/storm.dat", std::ios::binary);
    std::string page(4096, 'x');
    for (long i = 0; i < kStormPages; ++i) f << page;
  }
  auto opts = options("fs", {"RASTRO_EBPF_WORKLOAD=faultstorm", "RASTRO_EBPF_DIR=" + dir});
  rastro::trace::MemorySink sink;
  rastro::capture::ebpf::EbpfBackend backend;
  ASSERT_EQ(backend.run(opts, sink), 0);
  const auto& t = sink.trace();
  long tid = 0;
  ASSERT_TRUE(std::ifstream(dir + "/storm.tid") >> tid) << "the workload did not finish";
  EXPECT_EQ(t.header.events_lost, 0u) << t.header.lost_reasons.dump();

  // Every page written faulted exactly once, for writing, in the writing thread, in time order.
  const std::string file = dir + "/storm.dat";
  std::map<long, int> faults_per_page;
  int64_t last_ns = 0;
  bool in_order = true;
  for (const auto& e : t.events) {
    if (!(e.flags & rastro::trace::kEventPageFault)) continue;
    if (t.strings.get(e.args[rastro::trace::kFaultArgFile].str) != file) continue;
    const int64_t how = e.args[rastro::trace::kFaultArgHow].value;
    if (how & rastro::trace::kFaultAround) continue;
    EXPECT_EQ(e.tid, tid);
    EXPECT_TRUE(how & rastro::trace::kFaultWrite);
    faults_per_page[e.args[rastro::trace::kFaultArgOffset].value / 4096]++;
    if (e.begin_ns < last_ns) in_order = false;
    last_ns = e.begin_ns;
  }
  EXPECT_TRUE(in_order) << "a looked-up-later fault was recorded after a later fault of its thread";
  EXPECT_EQ(faults_per_page.size(), static_cast<size_t>(kStormPages));
  for (const auto& [page, n] : faults_per_page) {
    EXPECT_GE(page, 0);
    EXPECT_LT(page, kStormPages);
    EXPECT_EQ(n, 1) << "page " << page;
  }
  std::printf("faults looked up later (the mm was busy): %s\n", t.header.settings["ebpf"]["faults_deferred"].dump().c_str());
  std::system(("rm -rf " + dir).c_str());
}

TEST_F(EbpfBackendTest, PathOnANotYetFaultedPageIsReadAtExit) {
  std::string dir = make_temp_dir("lazy");
  auto opts = options("openat,unlink", {"RASTRO_EBPF_WORKLOAD=lazy", "RASTRO_EBPF_DIR=" + dir});
  rastro::trace::MemorySink sink;
  rastro::capture::ebpf::EbpfBackend backend;
  ASSERT_EQ(backend.run(opts, sink), 0);
  const auto& t = sink.trace();
  bool found = false, efault = false;
  for (const auto& e : t.events) {
    if (e.nr == nr_of("openat") && t.strings.get(e.args[1].str) == dir + "/lazy_target") {
      found = true;
      EXPECT_GE(e.rvalue, 0);
    }
    if (e.nr == nr_of("unlink")) {
      efault = true;
      EXPECT_EQ(e.rvalue, -EFAULT);
      EXPECT_EQ(e.args[0].str, rastro::trace::kNoStr);
    }
  }
  EXPECT_TRUE(found) << "the lazily-mapped path was not recovered at exit";
  EXPECT_TRUE(efault);
  EXPECT_EQ(t.header.settings["ebpf"]["unreadable_strings"], 1);
  std::system(("rm -rf " + dir + " " + dir + "_holder").c_str());
}

TEST_F(EbpfBackendTest, AttachesToARunningProcessAndItsChildren) {
  std::string dir = make_temp_dir("attach");
  std::string marker = dir + "/go";
  std::string exe = self_exe();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("RASTRO_EBPF_WORKLOAD", "attach", 1);
    ::setenv("RASTRO_EBPF_MARKER", marker.c_str(), 1);
    ::execl(exe.c_str(), exe.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  rastro::capture::CaptureOptions o;
  o.attach_pid = pid;
  o.syscalls = rastro::trace::parse_syscall_set("umask").take();
  rastro::trace::MemorySink sink;
  // The workload starts its calls once the marker exists, made once its tasks are registered
  // (loading the programs takes seconds on a loaded machine: no fixed wait).
  rastro::capture::ebpf::EbpfBackend backend({.on_attached = [&] { std::ofstream(marker).put('x'); }});
  backend.run(o, sink);
  int st = 0;
  ::waitpid(pid, &st, 0);
  std::map<int, int> per_pid;
  for (const auto& e : sink.trace().events)
    if (e.nr == nr_of("umask")) per_pid[e.pid]++;
  ASSERT_EQ(per_pid.size(), 2u);
  EXPECT_EQ(per_pid[pid], 10);
  for (auto& [p, n] : per_pid) {
    if (p != pid) {
      EXPECT_EQ(n, 5);
    }
  }
  std::system(("rm -rf " + dir).c_str());
}

TEST_F(EbpfBackendTest, AttachingToAProcessThatExitedDuringLoadingEndsTheCapture) {
  // The process exits (and stays a zombie, not yet reaped) before the capture registers it: the
  // capture must end with nothing recorded, not wait for an exit that already happened.
  pid_t pid = ::fork();
  if (pid == 0) std::_Exit(0);
  for (int i = 0; i < 500; ++i) {  // until it is a zombie
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    std::getline(in, stat);
    if (stat.find(") Z") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  rastro::capture::CaptureOptions o;
  o.attach_pid = pid;
  o.syscalls = rastro::trace::parse_syscall_set("fs").take();
  rastro::trace::MemorySink sink;
  rastro::capture::ebpf::EbpfBackend backend;
  auto done = std::async(std::launch::async, [&] { return backend.run(o, sink); });
  if (done.wait_for(std::chrono::seconds(120)) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: the capture still waits for a process that exited\n");
    std::_Exit(1);  // the hung capture cannot be joined
  }
  done.get();
  EXPECT_TRUE(sink.trace().events.empty());
  int st = 0;
  ::waitpid(pid, &st, 0);
}

TEST_F(EbpfBackendTest, NoLossWithADefaultRing) {
  auto opts = options("umask", {"RASTRO_EBPF_WORKLOAD=umask"});
  rastro::trace::MemorySink sink;
  rastro::capture::ebpf::EbpfBackend backend;
  ASSERT_EQ(backend.run(opts, sink), 0);
  const auto& h = sink.trace().header;
  EXPECT_EQ(h.events_lost, 0u);
  EXPECT_EQ(h.events_captured, static_cast<uint64_t>(kUmaskCalls));
  EXPECT_EQ(sink.trace().events.size(), static_cast<size_t>(kUmaskCalls));
}

TEST_F(EbpfBackendTest, TinyRingLosesEventsAndCountsEveryOne) {
  auto opts = options("umask", {"RASTRO_EBPF_WORKLOAD=umask"});
  opts.buffer_bytes = 4096;
  rastro::trace::MemorySink sink;
  rastro::capture::ebpf::EbpfBackend backend({.consumer_delay_ms = 300});
  testing::internal::CaptureStderr();
  ASSERT_EQ(backend.run(opts, sink), 0);
  std::string err = testing::internal::GetCapturedStderr();
  const auto& h = sink.trace().header;
  EXPECT_GT(h.events_lost, 0u);
  EXPECT_EQ(h.lost_reasons.value("ringbuf_full", uint64_t{0}), h.events_lost);
  EXPECT_EQ(h.events_captured + h.events_lost, static_cast<uint64_t>(kUmaskCalls));
  EXPECT_EQ(sink.trace().events.size(), h.events_captured);
  EXPECT_EQ(h.settings["ebpf"]["ring_bytes"], 4096);
  EXPECT_NE(err.find("event(s) lost"), std::string::npos) << err;
}

TEST_F(EbpfBackendTest, UnknownCommandFailsLikeAShell) {
  rastro::capture::CaptureOptions o;
  o.command = {"/nonexistent/rastro-no-such-command"};
  o.syscalls = rastro::trace::parse_syscall_set("fs").take();
  rastro::trace::MemorySink sink;
  rastro::capture::ebpf::EbpfBackend backend;
  try {
    backend.run(o, sink);
    FAIL() << "expected an error";
  } catch (const rastro::Error& e) {
    EXPECT_EQ(e.exit_code(), 127);
  }
}

}  // namespace
