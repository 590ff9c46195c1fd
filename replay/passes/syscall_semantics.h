// What a syscall does to the name space and to the fd table, as the inference passes need it.
// Derived from the one syscall table's columns (argument roles, fd, path and process effects), so
// no syscall number or name is hard-coded here.
#pragma once

#include <cstddef>  // (trace/model/event.h uses size_t without it)
#include <cstdint>

#include "common/at_fdcwd.h"
#include "trace/model/event.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

enum class Sem : uint8_t {
  kOther,       // uses its fd/dirfd/path arguments, creates and removes nothing
  kOpen,        // open/openat/openat2/creat: new fd on path slot 0
  kClose,
  kDup,         // dup, fcntl(F_DUPFD*): new fd sharing the open file description
  kDup2,        // dup2/dup3: also ends whatever was at the target fd
  kFcntl,
  kPipe,        // pipe/pipe2/socketpair: two new fds (kFdPair argument)
  kSocket,      // socket: new fd; accept/accept4: new fd from a listening fd
  kExec,        // execve/execveat: drops close-on-exec fds
  kClone,       // clone/clone3/fork/vfork
  kMkdir,       // mkdir(at), mknod(at): path must be absent, is created
  kSymlink,     // symlink(at): link path must be absent, is created (the target is a string)
  kLink,        // link(at): slot 1 created, naming slot 0's file
  kRename,      // rename(at,at2): slot 0 removed, slot 1 (re)created with slot 0's file
  kUnlink,      // unlink(at), rmdir: path removed
  kChdir,
  kFchdir,
};

Sem semantics(int nr);

// Whether resolve_paths must look at a call (it names paths, or changes the cwd or which path
// an fd has) and whether resolve_fds must (it has fd/dirfd arguments or changes the fd table).
// Both false for unknown numbers.
bool names_paths(int nr);
bool touches_fds(int nr);

// The arguments that name files: up to two (argument index of the path, of its dirfd or -1).
struct PathArgs {
  int n = 0;
  int path[2] = {-1, -1};
  int dirfd[2] = {-1, -1};
};
PathArgs path_args(int nr);

// fd-table effects of a call that succeeded, applied in this order: uses, closes, creates.
struct FdEffects {
  int nuses = 0;
  int uses[4] = {};         // fd/dirfd numbers the call uses (AT_FDCWD and negatives dropped)
  int ncloses = 0;
  int closes[2] = {};       // fds whose table entry ends (close; dup2's previous target)
  struct Create {
    int fd = -1;
    int dup_of = -1;        // >= 0: shares that fd's open file description; else a new one
    bool cloexec = false;
  };
  int ncreated = 0;
  Create created[2];
  bool opens_path = false;  // created[0] opens path slot 0
  int setfd = -1;           // fcntl(F_SETFD) target
  bool setfd_cloexec = false;
  bool exec = false;        // successful exec: close-on-exec entries end
};
FdEffects fd_effects(const trace::Event& e, Sem sem);

// Path roles in the name space, per path slot.
enum class PathRole : uint8_t {
  kNoRole,
  kUse,          // must exist
  kCreate,       // must be absent; created (O_EXCL, mkdir, symlink, link target)
  kCreateMaybe,  // O_CREAT without O_EXCL: used if it exists, else created
  kRemove,       // unlink, rmdir
  kRenameFrom,
  kRenameTo,
  kExchange,     // renameat2(RENAME_EXCHANGE): both exist and swap
};
PathRole path_role(const trace::Event& e, Sem sem, int slot);

}  // namespace rastro::replay
