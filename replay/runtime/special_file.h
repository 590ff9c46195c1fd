// Which traced files the replay *emulates* instead of opening (issue #15): device files that hold
// no data of the traced program (/dev/null, /dev/zero, /dev/full, /dev/urandom, /dev/random, the
// terminal: /dev/tty, /dev/console, /dev/ptmx, /dev/pts/*, /dev/stdin|stdout|stderr, /dev/fd/*;
// but an open of /dev/fd/N whose fd the replay holds for real reopens it: own_fd_named),
// the kernel's interfaces (/proc/..., /sys/...), and fds that are no file at all (sockets,
// epoll, eventfd ... created by a call without a path: named "[<call>]").
//
// An emulated open succeeds with the traced result; the replay fd is a *stand-in* (an open of
// /dev/null, or of /dev/zero or /dev/urandom for those), so close, dup, fork and close-on-exec
// treat it like any fd, and every other call on it returns the traced value (emulated_call.h).
// The host's /proc and /sys are never opened: what a program read there (its own status, the
// host's meminfo) is the traced machine's, not the replay host's.
//
// Other /dev paths (disks, /dev/mem ...) stay refused by the sandbox (special_path); /dev/shm
// (POSIX shared memory) is replayed as ordinary files inside the root (SandboxResolver::check).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace rastro::replay {

// Whether calls on `abs_path` (an absolute traced path, or a "[call]" name from
// emulated_fd_name) are emulated.
bool is_emulated_path(std::string_view abs_path);

// The fd of the calling process that `path` names, or -1: /dev/fd/N, /dev/stdin (0), /dev/stdout
// (1), /dev/stderr (2), /proc/self/fd/N, /proc/thread-self/fd/N and /proc/PID/fd/N of the traced
// process `pid` itself. Opening one opens that fd's file anew (bash's `<(cmd)` is /dev/fd/63, a
// pipe): the replay reopens its own replay fd there (CallOps::open_path), not a stand-in.
int own_fd_named(std::string_view path, int32_t pid);

// The fd-table name of an fd created by a call without a path (socket, accept, epoll_create ...).
std::string emulated_fd_name(std::string_view call);

// Opens the stand-in for an emulated file: /dev/zero or /dev/urandom (read-only) for those and
// /dev/random, so an emulated read costs what the traced one did; /dev/null (read-write)
// otherwise. Close-on-exec and non-blocking. Returns the fd or -errno.
int open_emulated_stand_in(std::string_view abs_path);

}  // namespace rastro::replay
