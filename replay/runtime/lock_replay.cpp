#include "replay/runtime/lock_replay.h"

#include <fcntl.h>
#include <sys/file.h>
#include <time.h>

#include <algorithm>
#include <cerrno>

namespace rastro::replay {

namespace {

bool held(int64_t r) { return r == -EAGAIN || r == -EACCES; }

int64_t now_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1'000'000'000LL + ts.tv_nsec;
}

// Calls `attempt` (a non-blocking try returning 0 or -errno) until it no longer finds the lock
// held or `wait_limit` has passed; -ETIMEDOUT then.
template <typename Attempt>
int64_t wait_for(Attempt attempt, std::chrono::nanoseconds wait_limit) {
  int64_t r = attempt();
  if (!held(r)) return r;
  const int64_t deadline = now_ns() + wait_limit.count();
  int64_t pause_ns = 10'000;
  for (;;) {
    const int64_t left = deadline - now_ns();
    if (left <= 0) return -ETIMEDOUT;
    timespec gap{0, static_cast<long>(std::min(pause_ns, left))};
    ::clock_nanosleep(CLOCK_MONOTONIC, 0, &gap, nullptr);
    r = attempt();
    if (!held(r)) return r;
    pause_ns = std::min<int64_t>(pause_ns * 2, 1'000'000);
  }
}

// The traced errno when both the traced call and the replay found the lock held.
int64_t as_traced(int64_t r, int64_t traced_rvalue) { return held(r) && held(traced_rvalue) ? traced_rvalue : r; }

int64_t fcntl_once(int fd, int cmd, struct flock fl) {
  return ::fcntl(fd, cmd, &fl) < 0 ? -static_cast<int64_t>(errno) : 0;
}

}  // namespace

int64_t replay_fcntl_lock(int fd, int64_t traced_cmd, const trace::LockFields& f, int64_t traced_rvalue,
                          std::chrono::nanoseconds wait_limit) {
  struct flock fl{};
  fl.l_type = static_cast<short>(f.type);
  fl.l_whence = static_cast<short>(f.whence);
  fl.l_start = f.start;
  fl.l_len = f.len;
  fl.l_pid = 0;  // OFD locks require it
  if (trace::is_query_lock_command(traced_cmd)) {
    // A recorded F_UNLCK can only be strace's rendering of the answer "nothing in the way" (a
    // query for F_UNLCK is EINVAL): ask for a write lock, which any other lock would block.
    if (fl.l_type == F_UNLCK) fl.l_type = F_WRLCK;
    return fcntl_once(fd, F_OFD_GETLK, fl);
  }
  auto attempt = [&] { return fcntl_once(fd, F_OFD_SETLK, fl); };
  const int64_t r = trace::is_blocking_lock_command(traced_cmd) ? wait_for(attempt, wait_limit) : attempt();
  return as_traced(r, traced_rvalue);
}

int64_t replay_flock(int fd, int operation, int64_t traced_rvalue, std::chrono::nanoseconds wait_limit) {
  auto attempt = [&] { return ::flock(fd, operation | LOCK_NB) < 0 ? -static_cast<int64_t>(errno) : int64_t{0}; };
  const int64_t r = (operation & LOCK_NB) || (operation & LOCK_UN) ? attempt() : wait_for(attempt, wait_limit);
  return as_traced(r, traced_rvalue);
}

}  // namespace rastro::replay
