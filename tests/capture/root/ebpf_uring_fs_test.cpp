// Root-only: io_uring requests that name files (mkdirat, openat, statx, renameat, symlinkat,
// linkat, unlinkat) and the ftruncate/fsync/close around them, captured by the eBPF backend as
// their equivalent calls with their paths, and the requests of an SQPOLL ring, which the kernel's
// SQ thread submits. The reference is the kernel's own CQE results, which the workload
// (tests/capture/uring_fs_workload.c, on liburing) prints as "CALL RESULT" per request.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "capture/ebpf/ebpf_backend.h"
#include "tests/capture/root/ebpf_root_util.h"
#include "trace/io/trace_sink.h"
#include "trace/syscalls/syscall_table.h"

namespace {

namespace fs = std::filesystem;

struct UringCapture {
  rastro::trace::Trace trace;
  std::vector<std::pair<std::string, long long>> printed;  // the workload's "CALL RESULT" lines
};

// Runs the workload in MODE on ARG under the eBPF backend; its stdout goes to a file.
UringCapture capture_workload(const std::string& mode, const std::string& arg, const std::string& log) {
  rastro::capture::ebpf::EbpfBackend backend;
  rastro::capture::CaptureOptions o;
  o.command = {"/bin/sh", "-c", "exec \"$0\" \"$1\" \"$2\" > \"$3\"", URING_FS_WORKLOAD_EXE, mode, arg, log};
  o.syscalls_spec = "fs";
  o.syscalls = rastro::trace::parse_syscall_set("fs").take();
  o.quiet = true;
  rastro::trace::MemorySink sink;
  UringCapture c;
  EXPECT_EQ(backend.run(o, sink), 0);
  c.trace = sink.trace();
  std::ifstream in(log);
  std::string call;
  long long res = 0;
  while (in >> call >> res) c.printed.emplace_back(call, res);
  return c;
}

std::vector<const rastro::trace::Event*> uring_events(const rastro::trace::Trace& t) {
  std::vector<const rastro::trace::Event*> out;
  for (const auto& e : t.events)
    if (e.flags & rastro::trace::kEventUring) out.push_back(&e);
  return out;
}

TEST(EbpfUringFs, PathRequestsAreTheirEquivalentCallsWithPathsAndTheKernelsResults) {
  if (std::string why = rastro::capture::ebpf::testing::ebpf_missing(); !why.empty())
    GTEST_SKIP() << "eBPF unavailable: " << why;
  char tmpl[] = "/tmp/rastro_uring_fs_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, d = dir + "/d", f = d + "/f", g = d + "/g", s = d + "/s", h = d + "/h";
  UringCapture c = capture_workload("fs", dir, dir + ".log");
  EXPECT_EQ(c.trace.header.events_lost, 0u);
  ASSERT_EQ(c.printed.size(), 14u) << "the workload did not finish";

  auto got = uring_events(c.trace);
  ASSERT_EQ(got.size(), c.printed.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const rastro::trace::SyscallInfo* info = rastro::trace::syscall_by_nr(got[i]->nr);
    ASSERT_NE(info, nullptr) << "request " << i << " has no equivalent call";
    EXPECT_EQ(info->name, c.printed[i].first) << "request " << i;
    EXPECT_EQ(got[i]->rvalue, c.printed[i].second) << "request " << i << " (" << info->name << ")";
    EXPECT_EQ(got[i]->pid, got[i]->tid) << "submitted by the workload's only thread";
  }
  auto path = [&](size_t i, size_t arg) { return c.trace.str(got[i]->arg(arg).str); };
  EXPECT_EQ(path(0, 1), d);                                       // mkdirat
  EXPECT_EQ(path(1, 1), f);                                       // openat
  const long long fd = got[1]->rvalue;
  EXPECT_EQ(got[1]->arg(3).value, 0640);                          // its mode
  EXPECT_EQ(got[2]->arg(0).value, fd);                            // pwrite64 on it,
  EXPECT_EQ(path(2, 0), f);                                       //  its file,
  EXPECT_EQ(got[2]->arg(2).value, 4096);                          //  length
  EXPECT_EQ(got[2]->arg(3).value, 4096);                          //  and offset
  EXPECT_EQ(got[3]->arg(1).value, 12288);                         // ftruncate's length
  EXPECT_EQ(path(4, 1), f);                                       // statx
  EXPECT_EQ(got[6]->arg(0).value, fd);                            // close
  EXPECT_EQ(path(7, 1), f);                                       // renameat2 f -> g
  EXPECT_EQ(path(7, 3), g);
  EXPECT_EQ(path(8, 0), "g");                                     // symlinkat's target,
  EXPECT_EQ(path(8, 2), s);                                       //  its link
  EXPECT_EQ(path(9, 1), g);                                       // linkat g -> h
  EXPECT_EQ(path(9, 3), h);
  EXPECT_EQ(path(10, 1), h);                                      // unlinkat h, s, g, d
  EXPECT_EQ(path(11, 1), s);
  EXPECT_EQ(path(12, 1), g);
  EXPECT_EQ(path(13, 1), d);
  EXPECT_FALSE(fs::exists(d)) << "the workload removed everything it made";
  fs::remove_all(dir);
  fs::remove(dir + ".log");
}

TEST(EbpfUringFs, AnSqpollRingsRequestsAreRecordedForItsProcess) {
  if (std::string why = rastro::capture::ebpf::testing::ebpf_missing(); !why.empty())
    GTEST_SKIP() << "eBPF unavailable: " << why;
  char tmpl[] = "/tmp/rastro_uring_sq_XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl, file = dir + "/data";
  std::ofstream(file) << "sqpoll";
  UringCapture c = capture_workload("sqpoll", file, dir + "/log");
  EXPECT_EQ(c.trace.header.events_lost, 0u);
  ASSERT_EQ(c.printed.size(), 3u) << "the workload did not finish";

  auto got = uring_events(c.trace);
  ASSERT_EQ(got.size(), 3u) << "the SQ thread's submissions are not in the trace";
  // The process that made the ring: the one whose own calls (its io_uring_setup) are traced.
  int32_t owner = 0;
  for (const auto& e : c.trace.events)
    if (e.nr == rastro::trace::syscall_by_name("io_uring_setup")->nr) owner = e.pid;
  ASSERT_NE(owner, 0) << "io_uring_setup is not in the trace";
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(rastro::trace::syscall_by_nr(got[i]->nr)->name, c.printed[i].first);
    EXPECT_EQ(got[i]->rvalue, c.printed[i].second);
    EXPECT_EQ(got[i]->pid, owner);
    EXPECT_NE(got[i]->tid, owner) << "submitted by the ring's SQ thread, not by the process's thread";
    EXPECT_EQ(got[i]->uring_enter_ns, 0) << "no io_uring_enter submitted it";
  }
  EXPECT_EQ(c.trace.str(got[0]->arg(1).str), file);
  EXPECT_EQ(c.trace.str(got[1]->arg(0).str), file);
  EXPECT_EQ(got[1]->rvalue, 6);
  fs::remove_all(dir);
}

}  // namespace
