// Test helper (not a test): two processes taking, meeting and releasing fcntl and flock locks on
// one file, as listed in lock_workload.h (the capture and replay tests check traces against that
// list).
//
//   lock_workload FILE
//
// Calls are raw syscall(2)s (fcntl, flock: no libc wrapper choosing another call). Exit status 0
// when every call returned what lock_workload.h expects; otherwise each surprise is printed on
// stderr and the status is 1 (a test must not go on with a workload that did something else).
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

#include "tests/capture/lock_workload.h"

namespace {

using rastro::testing::kLockCalls;
using rastro::testing::LockCall;

bool run(const LockCall& c, int fd) {
  long r;
  if (c.cmd == 0) {
    r = ::syscall(SYS_flock, fd, c.type);
  } else {
    struct flock fl{};
    fl.l_type = static_cast<short>(c.type);
    fl.l_whence = static_cast<short>(c.whence);
    fl.l_start = c.start;
    fl.l_len = c.len;
    r = ::syscall(SYS_fcntl, fd, c.cmd, &fl);
  }
  const int err = r < 0 ? errno : 0;
  if (err == c.err) return true;
  std::fprintf(stderr, "lock_workload: %s call cmd %d type %d start %ld: errno %d (%s), expected %d\n",
               c.child ? "child" : "parent", c.cmd, c.type, c.start, err, std::strerror(err), c.err);
  return false;
}

// Runs the listed calls of one process from index `from` while they belong to it.
bool run_steps(bool child, size_t& i, int fd) {
  bool ok = true;
  for (; i < std::size(kLockCalls) && kLockCalls[i].child == child; ++i) ok = run(kLockCalls[i], fd) && ok;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: lock_workload FILE\n");
    return 2;
  }
  const char* path = argv[1];
  int fd = ::open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return 2;
  const std::string data(rastro::testing::kLockFileSize, 'x');
  if (::write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) return 2;
  size_t i = 0;
  bool ok = run_steps(false, i, fd);
  const size_t child_first = i;
  pid_t pid = ::fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    int c = ::open(path, O_RDWR);  // its own open file description
    size_t k = child_first;
    bool child_ok = c >= 0 && run_steps(true, k, c);
    ::close(c);
    ::_exit(child_ok ? 0 : 1);
  }
  while (i < std::size(kLockCalls) && kLockCalls[i].child) ++i;
  timespec hold{0, rastro::testing::kParentHoldMs * 1'000'000L};
  ::nanosleep(&hold, nullptr);
  ok = run_steps(false, i, fd) && ok;
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(fd);
  return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
