// Calls the replay serves by emulation instead of executing (issue #15): calls on special files
// and on fds that are no file (special_file.h says which). The executor asks here before it
// dispatches a call to its family:
//
//  - a call on an emulated fd (read, write, lseek, fstat, ioctl, getdents, fcntl(F_GETFL) ...)
//    returns the traced value; reads and writes also move their traced byte count through the
//    stand-in (/dev/zero, /dev/urandom or /dev/null), so they cost about what the traced call
//    did. close, the dup family, fcntl(F_DUPFD*, F_GETFD, F_SETFD) act on the stand-in for real:
//    the fd table stays exact;
//  - a call naming an emulated path (open, stat, access, readlink, statfs ... of /proc/self/...,
//    /dev/urandom, /sys/...) returns the traced value; an open that succeeded in the trace gets a
//    stand-in fd;
//  - socket, accept, epoll_create, eventfd, signalfd, timerfd_create, inotify_init, pidfd_open,
//    fanotify_init create an emulated fd (never bound or connected to anything): the calls on it
//    (connect, bind, listen, send*, recv*, setsockopt, epoll_ctl ...) return the traced values.
//    The syscall table has no column for "an fd that carries no file data"; this list is it.
#pragma once

#include <cstdint>

#include "replay/runtime/call_ops.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

// Whether `c`'s call is served by emulation; if so sets c.emulated and returns true with the
// replay's result in *rvalue (the traced value, or a stand-in fd for a call that creates one).
bool emulate_call(CallCtx& c, const trace::SyscallInfo& info, const trace::StringTable& strings, int64_t* rvalue);

}  // namespace rastro::replay
