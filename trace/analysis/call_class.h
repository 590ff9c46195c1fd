// The class of a call, for reports that group syscalls (the replay fidelity report): one name per
// call, read from the syscall table's columns (classes and family), never from syscall names.
//
//   data        read/write family, lseek, fallocate, ftruncate, readahead, sendfile, ...
//   sync        fsync, fdatasync, sync, syncfs, sync_file_range
//   metadata    stat family, access, readlink, getdents, statfs
//   namespace   mkdir/rmdir/unlink/rename/link/symlink/mknod, chmod/chown, utime, xattrs, truncate
//   open/close  the open family, close
//   fd          dup family, fcntl, flock, ioctl, pipes and sockets
//   memory      mmap family
//   process     clone/fork/exec/exit, chdir, umask, getcwd, signals
//   other       a call the syscall table does not know (its name stored in the trace)
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "trace/model/event.h"

namespace rastro::trace {

// Every class name, in the order reports list them.
std::span<const std::string_view> call_class_names();

// A class name's place in call_class_names() (its size for a name not there): reports sort by it.
size_t call_class_rank(std::string_view cls);

// Whether a class's latency is the kernel's work on cached file-system state, what a replay on
// the same machine should reproduce: not `sync` (the device), `process` (fork, exec and exit,
// mostly emulated by a replayer) or `other` (page faults and calls the table does not know).
bool cached_work_class(std::string_view cls);

// The class of an event's call (by its nr).
std::string_view call_class(const Event& e);

}  // namespace rastro::trace
