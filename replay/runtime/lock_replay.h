// Replays fcntl record locks and flock(2) on the sandboxed files, so that locks order the replayed
// processes as they ordered the traced ones.
//
// Owner of a lock. Replayed processes are threads of one replayer process, and classic POSIX record
// locks (F_SETLK, F_SETLKW, F_GETLK) belong to the *process*: replayed as they are, two replayed
// processes' locks would never conflict (the replayer owns them all), and any close of the file by
// any replayed thread would drop them all. So a traced classic lock is replayed as an
// open-file-description lock (F_OFD_SETLK, F_OFD_SETLKW, F_OFD_GETLK) on the replay's fd: each
// replayed open owns its locks, as each traced process owned its own. Traced OFD locks and flock()
// locks (per open file description already) replay as they are. Where this differs from the
// traced program: one traced process holding classic locks on a file through two separate opens
// (its locks never conflicted with each other; the replayed opens' do), and a forked child, which
// does not inherit its parent's classic locks but shares the open file descriptions the replay
// gives it.
//
// Waiting. A blocking request (F_SETLKW, F_OFD_SETLKW, flock without LOCK_NB) waits like the
// original, but a replay must never hang on a lock whose holder diverged: it retries the
// non-blocking form (sleeping 10 µs, doubling up to 1 ms) until `wait_limit`, then gives up with
// -ETIMEDOUT, which no traced lock call returns, so it counts as a mismatch.
//
// Results. A non-blocking attempt that finds the lock held fails with EAGAIN or EACCES (POSIX lets
// F_SETLK return either; flock says EWOULDBLOCK = EAGAIN): when the traced call also found it held,
// the traced errno is reported, so the two compare equal.
#pragma once

#include <chrono>
#include <cstdint>

#include "trace/syscalls/fcntl_lock.h"

namespace rastro::replay {

inline constexpr std::chrono::nanoseconds kLockWaitLimit = std::chrono::seconds(5);

// fcntl(fd, traced_cmd, {f}) as the traced call did it (see above); returns 0 or -errno.
int64_t replay_fcntl_lock(int fd, int64_t traced_cmd, const trace::LockFields& f, int64_t traced_rvalue,
                          std::chrono::nanoseconds wait_limit = kLockWaitLimit);

// flock(fd, operation) as the traced call did it; returns 0 or -errno.
int64_t replay_flock(int fd, int operation, int64_t traced_rvalue,
                     std::chrono::nanoseconds wait_limit = kLockWaitLimit);

}  // namespace rastro::replay
