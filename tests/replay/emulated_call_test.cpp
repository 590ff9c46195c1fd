// Special files and sockets served by emulation (emulated_call.h), through the call executor, with
// hand-written traces whose results the replay host could not give: a /proc/self/status of
// 987654 bytes, a connect() that succeeded to an address nobody here listens on.
#include "replay/runtime/emulated_call.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "replay/passes/fd_keys.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TempDir;
using testing::TraceBuilder;

// Executes a trace's events one by one in one process table (no fd keys: traced fd numbers).
class Stepper {
 public:
  explicit Stepper(trace::Trace t) : t_(std::move(t)), sb_(dir_.path()), seeds_(process_seeds(t_)), procs_(seeds_),
                                     ex_(sb_, procs_, t_.strings) {}
  CallOutcome step() { return ex_.execute(t_.events[next_++], nullptr, scratch_); }
  void run_all(std::vector<CallOutcome>* outs) {
    while (next_ < t_.events.size()) outs->push_back(step());
  }
  FdLookup fd(int32_t pid, int traced) const { return procs_.find(pid)->fds->get(traced); }
  const ExecStats& stats() const { return scratch_.stats; }
  const TempDir& root() const { return dir_; }

 private:
  TempDir dir_;
  trace::Trace t_;
  SandboxResolver sb_;
  std::vector<ProcessSeed> seeds_;
  ProcessTable procs_;
  CallExecutor ex_;
  ThreadScratch scratch_;
  size_t next_ = 0;
};

bool root_is_empty(const TempDir& d) { return std::filesystem::is_empty(d.path()); }

TEST(EmulatedCall, ProcAndSysReturnTheTracedValuesNeverTheHosts) {
  TraceBuilder b;
  b.add(1, 1, "open", {0, O_RDONLY, 0}, 3, {"/proc/self/status"});
  b.add(1, 1, "read", {3, 0, 1 << 20}, 987654);  // the host's status is ~1.5 KB
  b.add(1, 1, "lseek", {3, 0, SEEK_END}, 55555);  // /proc files cannot even seek to their end
  b.add(1, 1, "fstat", {3}, 0);
  b.add(1, 1, "read", {3, 0, 4096}, 0);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/proc/self/status"});
  b.add(1, 1, "readlink", {0, 0, 4096}, 17, {"/proc/self/exe"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, -ENOENT, {"/proc/no-such-thing"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_DIRECTORY, 0}, 4, {"/proc/self/fd"});
  b.add(1, 1, "getdents64", {4, 0, 32768}, 312);
  b.add(1, 1, "openat", {4, 0, O_RDONLY, 0}, 5, {"../status"});  // dirfd-relative, still /proc
  b.add(1, 1, "read", {5, 0, 100}, 100);
  b.add(1, 1, "access", {0, R_OK}, 0, {"/sys/devices/system/cpu/online"});
  b.add(1, 1, "read", {3, 0, 10}, 10);                              // 10: after its close
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 6, {"/dev/sda"});  // not emulated: refused
  b.add(1, 1, "read", {6, 0, 512}, 512);
  Stepper s(b.take());
  std::vector<CallOutcome> outs;
  s.run_all(&outs);
  ASSERT_EQ(outs.size(), 17u);
  for (size_t i = 0; i < 14; ++i) EXPECT_EQ(outs[i].flags, 0u) << i << " rvalue " << outs[i].rvalue;
  EXPECT_EQ(outs[1].rvalue, 987654);
  EXPECT_EQ(outs[2].rvalue, 55555);
  EXPECT_EQ(outs[8].rvalue, -ENOENT);
  EXPECT_EQ(outs[14].skip, SkipReason::kFdAfterClose);
  EXPECT_EQ(outs[15].skip, SkipReason::kSpecialPath);
  EXPECT_EQ(outs[16].skip, SkipReason::kFdRefused);
  EXPECT_EQ(s.stats().emulated_files, 13u);  // every call but the close, which closes the stand-in
  EXPECT_EQ(s.stats().executed, 1u);
  EXPECT_TRUE(root_is_empty(s.root())) << "nothing of /proc was created in the root";
}

TEST(EmulatedCall, StandInsAreHarmlessDevicesNotTheTracedFiles) {
  TraceBuilder b;
  b.add(1, 1, "open", {0, O_RDWR, 0}, 3, {"/proc/self/mem"});
  b.add(1, 1, "socket", {AF_INET, SOCK_STREAM, 0}, 4);
  Stepper s(b.take());
  for (int i = 0; i < 2; ++i) EXPECT_EQ(s.step().flags, 0u);
  for (int fd : {3, 4}) {
    FdLookup l = s.fd(1, fd);
    ASSERT_EQ(l.state, FdState::kOpen);
    EXPECT_TRUE(l.emulated);
    struct stat st {};
    ASSERT_EQ(fstat(l.fd, &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << "a /dev/null stand-in, not the host's file or a socket";
  }
}

TEST(EmulatedCall, DdFromDevZeroAndHeadOfUrandom) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"/dev/zero"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644}, 4, {"/out"});
  for (int i = 0; i < 8; ++i) {
    b.add(1, 1, "read", {3, 0, 4096}, 4096);
    b.add(1, 1, "write", {4, 0, 4096}, 4096);
  }
  b.add(1, 1, "fcntl", {3, F_GETFL, 0}, O_RDONLY | 0100000);  // the stand-in's flags differ
  b.add(1, 1, "dup", {3}, 5);
  b.add(1, 1, "read", {5, 0, 100}, 100);                       // a dup of an emulated fd is one
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "close", {4}, 0);
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_CLOEXEC, 0}, 3, {"/dev/urandom"});
  b.add(1, 1, "read", {3, 0, 8192}, 8192);
  b.add(1, 1, "read", {3, 0, 1808}, 1808);
  b.add(1, 1, "write", {1, 0, 10000}, 10000);                  // stdout: inherited, emulated
  b.add(1, 1, "ioctl", {1, TCGETS, 0}, -ENOTTY);
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_WRONLY, 0}, 6, {"/dev/full"});
  b.add(1, 1, "write", {6, 0, 10}, -ENOSPC);
  Stepper s(b.take());
  std::vector<CallOutcome> outs;
  s.run_all(&outs);
  for (size_t i = 0; i < outs.size(); ++i) EXPECT_EQ(outs[i].flags, 0u) << i << " rvalue " << outs[i].rvalue;
  EXPECT_EQ(testing::read_file(s.root().sub("out")).size(), 8u * 4096u) << "the real file was written";
  EXPECT_EQ(s.stats().mismatched, 0u);
  EXPECT_EQ(s.stats().skipped_total(), 0u);
}

TEST(EmulatedCall, SocketsAreEmulatedNeverConnected) {
  TraceBuilder b;
  b.add(1, 1, "socket", {AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0}, 3);
  b.add(1, 1, "setsockopt", {3, SOL_SOCKET, SO_REUSEADDR, 0, 4}, 0);
  b.add(1, 1, "connect", {3, 0, 16}, 0);  // 203.0.113.7:443 in the trace: nobody answers here
  b.add(1, 1, "sendto", {3, 0, 100, 0, 0, 0}, 100);
  b.add(1, 1, "recvfrom", {3, 0, 4096, 0, 0, 0}, 2000);
  b.add(1, 1, "read", {3, 0, 4096}, 512);
  b.add(1, 1, "shutdown", {3, SHUT_WR}, 0);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "socket", {AF_UNIX, SOCK_STREAM, 0}, 4);
  b.add(1, 1, "bind", {4, 0, 20}, 0);
  b.add(1, 1, "listen", {4, 5}, 0);
  b.add(1, 1, "accept4", {4, 0, 0, SOCK_CLOEXEC}, 5);
  b.add(1, 1, "write", {5, 0, 64}, 64);
  b.add(1, 1, "close", {5}, 0);
  b.add(1, 1, "epoll_create1", {EPOLL_CLOEXEC}, 6);
  b.add(1, 1, "epoll_ctl", {6, 1, 4, 0}, 0);
  b.add(1, 1, "epoll_wait", {6, 0, 8, -1}, 1);
  Stepper s(b.take());
  std::vector<CallOutcome> outs;
  s.run_all(&outs);
  for (size_t i = 0; i < outs.size(); ++i) EXPECT_EQ(outs[i].flags, 0u) << i << " rvalue " << outs[i].rvalue;
  EXPECT_EQ(outs[4].rvalue, 2000);
  EXPECT_EQ(s.stats().emulated_files, outs.size() - 2);  // all but the two closes
  EXPECT_TRUE(s.stats().unsupported.empty());
}

}  // namespace
}  // namespace rastro::replay
