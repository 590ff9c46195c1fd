// The calls of tests/capture/lock_workload.cpp, in the order each process makes them: the
// workload issues exactly these, and the capture and replay tests check traces against them.
//
// The parent takes a classic write lock, an flock() lock and an OFD read lock, forks, sleeps
// kParentHoldMs and releases them. Its child opens the file on its own, meets each of the three
// locks once with a non-blocking attempt (EAGAIN / EWOULDBLOCK) and once with a blocking one (which
// waits for the parent's release), and asks both query commands.
#pragma once

#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>

namespace rastro::testing {

struct LockCall {
  bool child;    // made by the forked child (else by the parent)
  int cmd;       // fcntl command; 0 = flock(2)
  int type;      // l_type; for flock the operation
  int whence;
  long start;
  long len;
  int err;       // expected errno, 0 = success
};

inline constexpr int kLockFileSize = 4096;
inline constexpr int kParentHoldMs = 300;

inline constexpr LockCall kLockCalls[] = {
    {false, F_SETLK, F_WRLCK, SEEK_SET, 100, 10, 0},
    {false, 0, LOCK_EX, 0, 0, 0, 0},
    {false, F_OFD_SETLK, F_RDLCK, SEEK_END, -96, 96, 0},  // [4000, 4096)
    // --- fork; the child, while the parent holds all three:
    {true, F_GETLK, F_WRLCK, SEEK_SET, 105, 1, 0},  // answer: the parent's [100, 110) write lock
    {true, F_SETLK, F_WRLCK, SEEK_SET, 100, 10, EAGAIN},
    {true, F_SETLK, F_RDLCK, SEEK_SET, 0, 50, 0},  // no overlap
    {true, F_OFD_SETLK, F_WRLCK, SEEK_SET, 4000, 1, EAGAIN},
    {true, F_OFD_GETLK, F_RDLCK, SEEK_SET, 4000, 10, 0},  // answer: F_UNLCK (readers share)
    {true, 0, LOCK_EX | LOCK_NB, 0, 0, 0, EWOULDBLOCK},
    {true, F_SETLKW, F_WRLCK, SEEK_CUR, 100, 10, 0},  // offset 0: waits for the parent's release
    {true, 0, LOCK_SH, 0, 0, 0, 0},                   // waits for the parent's LOCK_UN
    {true, F_OFD_SETLKW, F_WRLCK, SEEK_SET, 4000, 0, 0},
    {true, F_SETLK, F_UNLCK, SEEK_SET, 0, 0, 0},
    {true, F_OFD_SETLK, F_UNLCK, SEEK_SET, 0, 0, 0},
    {true, 0, LOCK_UN, 0, 0, 0, 0},
    // --- the parent, after kParentHoldMs:
    {false, F_SETLK, F_UNLCK, SEEK_SET, 100, 10, 0},
    {false, 0, LOCK_UN, 0, 0, 0, 0},
    {false, F_OFD_SETLK, F_UNLCK, SEEK_SET, 0, 0, 0},
};
inline constexpr int kParentCallsBeforeFork = 3;

}  // namespace rastro::testing
