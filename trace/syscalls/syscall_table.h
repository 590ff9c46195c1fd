// The one syscall table (like strace's linux/64/syscallent.h): one row per x86_64 syscall rastro
// knows, with its argument roles, return kind and classes. Every backend, importer, replayer and
// the compiler use it; nothing else hard-codes syscall numbers or signatures.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "trace/model/event.h"

namespace rastro::trace {

// Classes, for `-e trace=` selection and for replay decisions (strace's %file, %desc, ...).
enum SyscallClass : uint32_t {
  kClassFile = 1u << 0,     // takes a path
  kClassDesc = 1u << 1,     // takes or returns a file descriptor
  kClassProcess = 1u << 2,  // process lifecycle: clone/fork/exec/exit
  kClassMemory = 1u << 3,   // mmap family
  kClassRead = 1u << 4,     // transfers data from a file
  kClassWrite = 1u << 5,    // transfers data to a file
  kClassMeta = 1u << 6,     // reads metadata (stat family, access, readlink, getdents)
  kClassNamespace = 1u << 7,  // changes the name space (create/remove/rename/link)
  kClassSync = 1u << 8,     // fsync family
  kClassFs = 1u << 9,       // in the default "fs" capture set
};

enum class ReturnKind : uint8_t {
  kInt,     // 0 / -errno
  kFd,      // a new file descriptor
  kCount,   // bytes transferred
  kOffset,  // a file offset
  kPtr,     // an address (mmap)
  kPid,     // a process/thread id (clone, fork)
  kNoReturn,  // exit, exit_group; execve on success
};

// The semantic columns below say what a call does, so that importers, backends, passes, planners
// and the executor read them instead of comparing syscall names.

// Which executor family replays the call (replay/runtime/exec_*.cpp).
enum class Family : uint8_t {
  kOpenClose,  // open family, close
  kDataIo,     // read/write family, lseek, sync family, fallocate, ftruncate, readahead
  kStat,       // stat family, access, readlink, getdents, statfs
  kNamespace,  // create/remove/rename/link names; chmod/chown/utime; xattrs; truncate
  kFdOps,      // dup family, fcntl, flock, ioctl, pipe, socket family
  kMemory,     // mmap family
  kProcess,    // clone/fork/exec/exit, chdir/fchdir, getcwd, umask, chroot
};

// What a successful call does to the caller's fd table.
enum class FdEffect : uint8_t {
  kNone,
  kCreates,        // returns a new fd: on its path argument (open family) or none (socket, accept)
  kCreatesPair,    // writes two new fds into its kFdPair argument (pipe, socketpair)
  kDuplicates,     // returns a new fd sharing argument 0's open file description (dup)
  kDuplicatesOnto, // makes argument 1 a copy of argument 0, ending what it was (dup2, dup3)
  kReleases,       // ends argument 0 (close)
  kByCommand,      // fcntl: F_DUPFD* duplicates argument 0, F_SETFD sets close-on-exec
};

// What the call does to the files its path arguments (or, where marked, its fd) name.
enum class PathEffect : uint8_t {
  kNone,            // names no file by path
  kNeeds,           // every path must exist (stat, access, chmod, exec, ...)
  kOpens,           // open: needs the path, or creates it under O_CREAT (flags in the kOpenFlags
                    // argument; openat2 keeps them in a struct the trace does not record)
  kCreatesFile,     // creat: open with O_CREAT|O_WRONLY|O_TRUNC
  kCreatesDir,      // mkdir: the path must be absent and becomes a directory
  kCreatesNode,     // mknod: the path must be absent and becomes a file
  kCreatesSymlink,  // symlink: the first path is the link's content, the second is created
  kLinks,           // link: the first path is needed, the second created naming the same file
  kRenames,         // rename: the first path is removed, the second (re)created
  kRemoves,         // unlink
  kRemovesDir,      // rmdir
  kReadsLink,       // readlink: the path is a symlink
  kTruncates,       // truncate (path), ftruncate (fd): the file's content changes
  kListsDir,        // getdents: the fd's file is a directory
};

// Process effects: who forks whom, exec boundaries, exits, the cwd.
enum class ProcEffect : uint8_t {
  kNone,
  kClone,   // clone: CLONE_* flags in argument 0 decide thread or process
  kClone3,  // clone3: flags inside struct clone_args
  kFork,    // fork
  kVfork,   // vfork: CLONE_VM | CLONE_VFORK
  kExec,    // execve, execveat: close-on-exec fds end
  kExit,    // exit, exit_group
  kChdir,   // cwd := the path argument
  kFchdir,  // cwd := the fd's path
};

// What a memory call does to its process's address space (the plan's mapping resource,
// docs/replay-plan.md). Other memory rows whose first arguments are (kPtr, kCount) act on the
// mappings of that range (mprotect, msync, madvise, mlock ...).
enum class MemEffect : uint8_t {
  kNone,
  kMaps,    // mmap: a new mapping at the returned address, of the kCount argument's length
  kUnmaps,  // munmap: the range's mappings end
  kRemaps,  // mremap: the range's mapping ends; a new one at the returned address, of the second kCount's length
};

struct SyscallInfo {
  int nr;
  std::string_view name;
  uint8_t nargs;
  std::array<ArgType, kMaxArgs> args;
  ReturnKind ret;
  uint32_t classes;
  Family family;
  FdEffect fd;
  PathEffect path;
  int8_t data_in;    // argument index of the fd whose file data is read into memory, -1 none
  int8_t data_out;   // argument index of the fd whose file data is written, -1 none
  int8_t size_arg;   // argument index of the byte count the call transfers or covers, -1 none
  ProcEffect proc;
  // Index of an offset argument the kernel takes in two registers (pos_l, pos_h; preadv2 and
  // pwritev2): the arguments after it arrive one register later. -1: none.
  int8_t split_offset = -1;
  MemEffect mem = MemEffect::kNone;

  // The syscall register (0..5) that carries argument `arg`.
  size_t register_of(size_t arg) const {
    return split_offset >= 0 && arg > static_cast<size_t>(split_offset) ? arg + 1 : arg;
  }

  bool creates_process() const {
    return proc == ProcEffect::kClone || proc == ProcEffect::kClone3 || proc == ProcEffect::kFork ||
           proc == ProcEffect::kVfork;
  }
  // Index of the n-th (0 or 1) kPath argument that names a file (symlink's content is skipped),
  // and of the kDirFd argument right before it (-1 when relative to the cwd). -1: none.
  int path_arg(int n) const;
  // Which of the call's file-naming paths (0 or 1, path_arg's n) argument `arg_index` is; -1 when
  // it is not one (not a path, or symlink's content).
  int path_slot(int arg_index) const;
  // Whether the call returns a new fd: its return kind says so, or it duplicates by command
  // (fcntl) and `command` (the value of its kFcntlCmd argument) is F_DUPFD or F_DUPFD_CLOEXEC.
  bool returns_new_fd(int64_t command) const;
  int dirfd_of(int path_index) const {
    return path_index > 0 && args[static_cast<size_t>(path_index - 1)] == ArgType::kDirFd ? path_index - 1 : -1;
  }
  // Index of the first argument of `type`, -1 when the row has none.
  int arg_of(ArgType type) const {
    for (int i = 0; i < nargs; ++i)
      if (args[static_cast<size_t>(i)] == type) return i;
    return -1;
  }
};

// fcntl commands that duplicate the fd (F_DUPFD, F_DUPFD_CLOEXEC) and so return a new one.
bool is_dup_fd_command(int64_t fcntl_command);

// All rows, sorted by nr.
std::span<const SyscallInfo> all_syscalls();
const SyscallInfo* syscall_by_nr(int nr);
const SyscallInfo* syscall_by_name(std::string_view name);

// A set of syscall numbers to capture. "all" also admits syscalls not in the table.
struct SyscallSet {
  std::array<bool, 512> enabled{};
  bool all = false;
  bool contains(int nr) const {
    if (all) return true;
    return nr >= 0 && nr < static_cast<int>(enabled.size()) && enabled[static_cast<size_t>(nr)];
  }
  std::vector<int> numbers() const;
};

// Parses a strace-like selection: "fs" (default set), "all", class names ("%file", "%desc",
// "%process", "%memory", "%read", "%write", "%meta", "%namespace", "%sync"), syscall names,
// comma-separated; a leading '!' on an item removes it. Unknown names are an error.
Result<SyscallSet> parse_syscall_set(std::string_view spec);

// Process-lifecycle calls are always needed by replay (who forked whom, exec boundaries).
bool is_lifecycle(int nr);

}  // namespace rastro::trace
