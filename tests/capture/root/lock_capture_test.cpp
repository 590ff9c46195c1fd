// Root-only: fcntl record locks and flock(2) captured with their arguments by the eBPF, ptrace and
// strace backends. The workload (tests/capture/lock_workload.cpp, two processes) issues the calls
// of lock_workload.h and checks that the kernel answered as expected; each backend's trace must
// hold exactly those calls, per process and in order, with the struct flock's fields as the
// 6-argument lock form (trace/syscalls/fcntl_lock.h) and the kernel's results (EAGAIN for the
// contended attempts). strace is the instrument we did not write: its lines go through the
// importer. For the query commands it prints the kernel's answer instead of the request (the
// struct is read at exit), so only their results are compared there.
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "capture/common/backend.h"
#include "tests/capture/lock_workload.h"
#include "trace/io/trace_sink.h"
#include "trace/syscalls/fcntl_lock.h"

namespace rastro::capture {
namespace {

namespace fs = std::filesystem;
using rastro::testing::kLockCalls;
using rastro::testing::LockCall;

class LockCapture : public ::testing::TestWithParam<std::string> {};

TEST_P(LockCapture, EveryLockCallWithItsStructAndResult) {
  auto backend = make_backend(GetParam());
  ASSERT_NE(backend, nullptr);
  if (auto missing = backend->missing_requirements(); !missing.empty()) {
    std::string why;
    for (const auto& m : missing) why += m + "; ";
    std::printf("%s unavailable here: %s\n", GetParam().c_str(), why.c_str());
    GTEST_SKIP() << GetParam() << " unavailable: " << why;
  }
  const fs::path dir = fs::temp_directory_path() / fmt::format("rastro-lock-capture-{}", ::getpid());
  fs::remove_all(dir);
  fs::create_directories(dir);
  CaptureOptions opts;
  opts.command = {LOCK_WORKLOAD_EXE, (dir / "locked").string()};
  opts.syscalls = trace::parse_syscall_set("fs").take();
  opts.quiet = true;
  trace::MemorySink sink;
  ASSERT_EQ(backend->run(opts, sink), 0) << "the workload saw other results than lock_workload.h expects";
  sink.finish();
  const trace::Trace t = sink.take();
  fs::remove_all(dir);

  // The workload's process is the first event's; every other pid is its child.
  ASSERT_FALSE(t.events.empty());
  const int32_t parent = t.events.front().pid;
  std::vector<const trace::Event*> calls[2];  // [child?]
  const int flock_nr = trace::syscall_by_name("flock")->nr;
  for (const auto& e : t.events)
    if (trace::is_lock_call(e) || e.nr == flock_nr) calls[e.pid != parent].push_back(&e);

  const bool strace = GetParam() == "strace";
  size_t next[2] = {0, 0};
  for (const LockCall& want : kLockCalls) {
    auto& mine = calls[want.child];
    size_t& k = next[want.child];
    SCOPED_TRACE(fmt::format("{} call {} (cmd {}, type {}, start {})", want.child ? "child" : "parent", k, want.cmd,
                             want.type, want.start));
    ASSERT_LT(k, mine.size()) << "missing from the trace";
    const trace::Event& e = *mine[k++];
    EXPECT_EQ(e.rvalue, want.err ? -want.err : 0);
    if (want.cmd == 0) {
      EXPECT_EQ(e.nr, flock_nr);
      ASSERT_EQ(e.nargs, 2);
      EXPECT_EQ(e.arg(1).value, want.type);
      continue;
    }
    ASSERT_TRUE(trace::has_lock_fields(e)) << "recorded with " << int{e.nargs} << " arguments";
    EXPECT_EQ(e.arg(1).value, want.cmd);
    if (strace && trace::is_query_lock_command(want.cmd)) continue;  // strace shows the answer
    const trace::LockFields f = trace::lock_fields(e);
    EXPECT_EQ(f.type, want.type);
    EXPECT_EQ(f.whence, want.whence);
    EXPECT_EQ(f.start, want.start);
    EXPECT_EQ(f.len, want.len);
  }
  EXPECT_EQ(next[0], calls[0].size()) << "the parent made more lock calls than the workload lists";
  EXPECT_EQ(next[1], calls[1].size()) << "the child made more lock calls than the workload lists";
}

INSTANTIATE_TEST_SUITE_P(Backends, LockCapture, ::testing::Values("ebpf", "ptrace", "strace"));

}  // namespace
}  // namespace rastro::capture
