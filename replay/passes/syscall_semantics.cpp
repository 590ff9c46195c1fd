#include "replay/passes/syscall_semantics.h"

#include <algorithm>
#include <array>

namespace rastro::replay {

namespace {

// Linux UAPI values (asm-generic/fcntl.h, linux/fs.h); the trace stores raw flag words.
constexpr int64_t kOCreat = 0100;
constexpr int64_t kOExcl = 0200;
constexpr int64_t kOCloexec = 02000000;
constexpr int64_t kFSetfd = 2;
constexpr int64_t kFDupfdCloexec = 1030;
constexpr int64_t kFdCloexec = 1;
constexpr int64_t kRenameExchange = 1 << 1;

struct Tables {
  std::array<Sem, 512> sem{};
  std::array<PathArgs, 512> paths{};
  std::array<bool, 512> names{};
  std::array<bool, 512> fds{};
};

bool changes_fd_table(Sem s) {
  switch (s) {
    case Sem::kOpen: case Sem::kClose: case Sem::kDup: case Sem::kDup2: case Sem::kFcntl:
    case Sem::kPipe: case Sem::kSocket: case Sem::kExec:
      return true;
    default:
      return false;
  }
}

// The pass's view of the table's fd, path and process columns.
Sem sem_of(const trace::SyscallInfo& info) {
  using trace::FdEffect;
  using trace::PathEffect;
  using trace::ProcEffect;
  switch (info.fd) {
    case FdEffect::kCreates:
      return info.path == PathEffect::kOpens || info.path == PathEffect::kCreatesFile ? Sem::kOpen : Sem::kSocket;
    case FdEffect::kReleases: return Sem::kClose;
    case FdEffect::kDuplicates: return Sem::kDup;
    case FdEffect::kDuplicatesOnto: return Sem::kDup2;
    case FdEffect::kByCommand: return Sem::kFcntl;
    case FdEffect::kCreatesPair: return Sem::kPipe;
    case FdEffect::kNone: break;
  }
  if (info.proc == ProcEffect::kExec) return Sem::kExec;
  if (info.creates_process()) return Sem::kClone;
  if (info.proc == ProcEffect::kChdir) return Sem::kChdir;
  if (info.proc == ProcEffect::kFchdir) return Sem::kFchdir;
  switch (info.path) {
    case PathEffect::kCreatesDir: case PathEffect::kCreatesNode: return Sem::kMkdir;
    case PathEffect::kCreatesSymlink: return Sem::kSymlink;
    case PathEffect::kLinks: return Sem::kLink;
    case PathEffect::kRenames: return Sem::kRename;
    case PathEffect::kRemoves: case PathEffect::kRemovesDir: return Sem::kUnlink;
    default: return Sem::kOther;
  }
}

const Tables& tables() {
  static const Tables* t = [] {
    auto* tb = new Tables();
    for (const auto& info : trace::all_syscalls()) {
      if (info.nr < 0 || info.nr >= 512) continue;
      const auto nr = static_cast<size_t>(info.nr);
      Sem s = sem_of(info);
      tb->sem[nr] = s;
      PathArgs pa;
      for (int k = 0; k < 2; ++k) {
        const int i = info.path_arg(k);
        if (i < 0) break;
        pa.path[pa.n] = i;
        pa.dirfd[pa.n] = info.dirfd_of(i);
        ++pa.n;
      }
      tb->paths[nr] = pa;
      bool fd_args = false;
      for (int i = 0; i < info.nargs; ++i) {
        const auto type = info.args[static_cast<size_t>(i)];
        fd_args |= type == trace::ArgType::kFd || type == trace::ArgType::kDirFd;
      }
      tb->fds[nr] = fd_args || changes_fd_table(s);
      tb->names[nr] = pa.n > 0 || changes_fd_table(s) || s == Sem::kChdir || s == Sem::kFchdir;
    }
    return tb;
  }();
  return *t;
}

bool in_range(int nr) { return nr >= 0 && nr < 512; }

}  // namespace

Sem semantics(int nr) { return in_range(nr) ? tables().sem[static_cast<size_t>(nr)] : Sem::kOther; }

bool names_paths(int nr) { return in_range(nr) && tables().names[static_cast<size_t>(nr)]; }
bool touches_fds(int nr) { return in_range(nr) && tables().fds[static_cast<size_t>(nr)]; }

PathArgs path_args(int nr) { return in_range(nr) ? tables().paths[static_cast<size_t>(nr)] : PathArgs{}; }

FdEffects fd_effects(const trace::Event& e, Sem sem) {
  FdEffects fx;
  for (int i = 0; i < e.nargs && i < trace::kMaxArgs; ++i) {
    const auto& a = e.arg(i);
    if (a.type != trace::ArgType::kFd && a.type != trace::ArgType::kDirFd) continue;
    if (a.value < 0 || a.value > INT32_MAX) continue;  // AT_FDCWD, mmap's -1
    if (fx.nuses < 4) fx.uses[fx.nuses++] = static_cast<int>(a.value);
  }
  const bool rv_fd = e.rvalue >= 0 && e.rvalue <= INT32_MAX;
  const int rv = rv_fd ? static_cast<int>(e.rvalue) : -1;
  switch (sem) {
    case Sem::kOpen: {
      if (!rv_fd) break;
      bool cloexec = false;
      for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i)
        if (e.arg(i).type == trace::ArgType::kOpenFlags) cloexec = (e.arg(i).value & kOCloexec) != 0;
      fx.created[fx.ncreated++] = {rv, -1, cloexec};
      fx.opens_path = true;
      break;
    }
    case Sem::kClose:
      if (fx.nuses > 0) fx.closes[fx.ncloses++] = fx.uses[0];
      break;
    case Sem::kDup:
      if (rv_fd && fx.nuses > 0) fx.created[fx.ncreated++] = {rv, fx.uses[0], false};
      break;
    case Sem::kDup2: {
      if (!rv_fd || fx.nuses < 1) break;
      const int oldfd = static_cast<int>(e.arg(0).value);
      if (rv == oldfd) break;  // dup2(fd, fd) only checks fd
      fx.nuses = 1;            // the target is not used, it is replaced
      fx.closes[fx.ncloses++] = rv;
      bool cloexec = e.nargs >= 3 && (e.arg(2).value & kOCloexec) != 0;
      fx.created[fx.ncreated++] = {rv, oldfd, cloexec};
      break;
    }
    case Sem::kFcntl: {
      if (fx.nuses < 1 || e.nargs < 2) break;
      const int64_t cmd = e.arg(1).value;
      if (trace::is_dup_fd_command(cmd) && rv_fd)
        fx.created[fx.ncreated++] = {rv, fx.uses[0], cmd == kFDupfdCloexec};
      if (cmd == kFSetfd) {
        fx.setfd = fx.uses[0];
        fx.setfd_cloexec = e.nargs >= 3 && (e.arg(2).value & kFdCloexec) != 0;
      }
      break;
    }
    case Sem::kPipe: {
      bool cloexec = false;
      int64_t pair = -1;
      for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
        if (e.arg(i).type == trace::ArgType::kFdPair) pair = e.arg(i).value;
        if (e.arg(i).type == trace::ArgType::kOpenFlags) cloexec = (e.arg(i).value & kOCloexec) != 0;
      }
      if (pair < 0) break;
      fx.created[fx.ncreated++] = {static_cast<int>(pair & 0xffffffff), -1, cloexec};
      fx.created[fx.ncreated++] = {static_cast<int>((pair >> 32) & 0xffffffff), -1, cloexec};
      break;
    }
    case Sem::kSocket:
      if (rv_fd) fx.created[fx.ncreated++] = {rv, -1, false};
      break;
    case Sem::kExec:
      fx.exec = true;
      break;
    default:
      break;
  }
  return fx;
}

PathRole path_role(const trace::Event& e, Sem sem, int slot) {
  switch (sem) {
    case Sem::kOpen: {
      int64_t flags = -1;  // openat2 passes flags in a struct the trace does not record
      for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i)
        if (e.arg(i).type == trace::ArgType::kOpenFlags) flags = e.arg(i).value;
      if (flags < 0) return PathRole::kCreateMaybe;  // creat, openat2
      if ((flags & kOCreat) == 0) return PathRole::kUse;
      return (flags & kOExcl) ? PathRole::kCreate : PathRole::kCreateMaybe;
    }
    case Sem::kMkdir:
    case Sem::kSymlink:
      return PathRole::kCreate;
    case Sem::kLink:
      return slot == 0 ? PathRole::kUse : PathRole::kCreate;
    case Sem::kRename: {
      for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i)
        if (e.arg(i).type == trace::ArgType::kRenameFlags && (e.arg(i).value & kRenameExchange))
          return PathRole::kExchange;
      return slot == 0 ? PathRole::kRenameFrom : PathRole::kRenameTo;
    }
    case Sem::kUnlink:
      return PathRole::kRemove;
    default:
      return PathRole::kUse;
  }
}

}  // namespace rastro::replay
