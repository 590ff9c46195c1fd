#include "replay/runtime/call_executor.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "replay/runtime/forced_nonblock.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

const char* skip_reason_name(SkipReason r) {
  switch (r) {
    case SkipReason::kNone: return "none";
    case SkipReason::kUnsupported: return "unsupported";
    case SkipReason::kFdBeforeOpen: return "fd_use_before_open";
    case SkipReason::kFdAfterClose: return "fd_use_after_close";
    case SkipReason::kFdOpenFailed: return "fd_open_failed_in_replay";
    case SkipReason::kFdRefused: return "fd_of_refused_path";
    case SkipReason::kSpecialPath: return "special_path";
    case SkipReason::kBadPath: return "bad_path";
    case SkipReason::kDeviceNode: return "device_node";
    case SkipReason::kNotFileMapping: return "not_a_file_mapping";
    case SkipReason::kUnknownProcess: return "unknown_process";
    case SkipReason::kMemoryCall: return "memory_call";
    case SkipReason::kUnfinished: return "unfinished";
    case SkipReason::kCount: break;
  }
  return "?";
}

uint64_t ExecStats::skipped_total() const {
  uint64_t n = 0;
  for (uint64_t v : skipped) n += v;
  return n;
}

void ExecStats::merge(const ExecStats& o) {
  executed += o.executed;
  emulated += o.emulated;
  mismatched += o.mismatched;
  for (int i = 0; i < kSkipReasons; ++i) skipped[static_cast<size_t>(i)] += o.skipped[static_cast<size_t>(i)];
  for (auto& [k, v] : o.unsupported) unsupported[k] += v;
  for (auto& [k, v] : o.mismatched_by_call) mismatched_by_call[k] += v;
}

char* ThreadScratch::read_area(size_t n) {
  if (read_buf.size() < n) read_buf.resize(n);
  return read_buf.data();
}

const char* ThreadScratch::write_area(size_t n) {
  if (write_buf.size() < n) {
    size_t old = write_buf.size();
    write_buf.resize(n);
    for (size_t i = old; i < n; ++i) write_buf[i] = write_pattern_byte(i);
  }
  return write_buf.data();
}

bool rvalue_mismatch(const trace::Event& traced, int64_t replay_rvalue) {
  if (traced.flags & trace::kEventUnfinished) return false;
  const trace::SyscallInfo* info = trace::syscall_by_nr(traced.nr);
  trace::ReturnKind kind = info ? info->ret : trace::ReturnKind::kInt;
  // fcntl(F_DUPFD*) returns a new fd: its number is the replayer's, like open's.
  if (traced.nr == SYS_fcntl && traced.nargs > 1 && (traced.arg(1).value == F_DUPFD || traced.arg(1).value == F_DUPFD_CLOEXEC))
    kind = trace::ReturnKind::kFd;
  auto is_err = [](int64_t v) { return v < 0 && v >= -4095; };
  switch (kind) {
    case trace::ReturnKind::kFd:
    case trace::ReturnKind::kPtr:
      if (is_err(traced.rvalue) || is_err(replay_rvalue)) return traced.rvalue != replay_rvalue;
      return false;
    case trace::ReturnKind::kPid:
    case trace::ReturnKind::kNoReturn:
      return false;
    default:
      return traced.rvalue != replay_rvalue;
  }
}

namespace {

// Why a traced fd cannot be used in the replay.
SkipReason fd_skip(FdState s) {
  switch (s) {
    case FdState::kNone: return SkipReason::kFdBeforeOpen;
    case FdState::kClosed: return SkipReason::kFdAfterClose;
    case FdState::kFailed: return SkipReason::kFdOpenFailed;
    case FdState::kRefused: return SkipReason::kFdRefused;
    case FdState::kOpen: break;
  }
  return SkipReason::kNone;
}

inline int64_t sysret(long r) { return r < 0 ? -static_cast<int64_t>(errno) : static_cast<int64_t>(r); }

}  // namespace

// Everything one execution needs, so helpers stay small.
struct CallExecutor::Ctx {
  const trace::Event& e;
  ProcessState& proc;
  ThreadScratch& scratch;
  const trace::StrId* resolved;
  const int32_t* keys;
  SkipReason skip = SkipReason::kNone;
  bool emulated = false;

  int64_t a(int i) const { return e.arg(i).value; }
  int traced_fd(int i) const { return static_cast<int>(e.arg(i).value); }
  // The fd-table key of fd argument i / of the fd the call returns / of a pipe's second fd.
  int key(int i) const { return keys ? keys[i] : traced_fd(i); }
  int ret_key() const { return keys ? keys[FdKeys::kRet] : static_cast<int>(e.rvalue); }
  bool traced_ok() const { return !e.failed() && !(e.flags & trace::kEventUnfinished); }
};

int64_t CallExecutor::run(Ctx& c) const {
  const trace::Event& e = c.e;
  FdTable& fds = *c.proc.fds;
  const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
  std::string_view name = info ? info->name : trace::function_name(e, strings_);

  auto unsupported = [&]() -> int64_t {
    c.skip = SkipReason::kUnsupported;
    ++c.scratch.stats.unsupported[std::string(name.empty() ? "syscall_?" : name)];
    return e.rvalue;
  };
  if (!info) return unsupported();

  // The replay fd for argument i, or -1 with c.skip set.
  auto fd_arg = [&](int i) -> int {
    FdLookup l = fds.get(c.key(i));
    if (l.state != FdState::kOpen) {
      c.skip = fd_skip(l.state);
      return -1;
    }
    return l.fd;
  };
  auto str = [&](int i) { return strings_.get(e.arg(i).str); };
  // Absolute traced path of path argument `pi`, relative to dirfd argument `di` (-1 = cwd).
  // Returns false with c.skip set when it cannot be used.
  auto path_arg = [&](int di, int pi, std::string* out) -> bool {
    std::string_view p = str(pi);
    std::string base;
    int slot = 0;  // which path argument this is (a symlink's target is not one)
    for (int i = 0; i < pi; ++i) slot += e.arg(i).type == trace::ArgType::kPath;
    if (e.nr == SYS_symlink || e.nr == SYS_symlinkat) --slot;
    if (c.resolved && slot >= 0 && slot < 2 && c.resolved[slot] != trace::kNoStr &&
        !p.empty() && p.find('\0') == std::string_view::npos) {
      p = strings_.get(c.resolved[slot]);
    }
    if (!p.empty() && p.front() == '/') {
      base.push_back('/');  // (not `base = "/"`: g++ 12 reports a bogus -Wrestrict for it)
    } else if (di < 0 || c.a(di) == AT_FDCWD) {
      base = c.proc.cwd();
    } else {
      FdLookup l = fds.get(c.key(di));
      if (l.state != FdState::kOpen) {
        c.skip = fd_skip(l.state);
        return false;
      }
      base = fds.path(c.key(di));
      if (base.empty()) base = std::string(strings_.get(e.arg(di).str));
      if (base.empty() || base.front() != '/') base = c.proc.cwd();
    }
    *out = SandboxResolver::absolute(base, p);
    switch (SandboxResolver::check(*out)) {
      case PathVerdict::kOk: return true;
      case PathVerdict::kDevNull: c.skip = SkipReason::kSpecialPath; return false;
      case PathVerdict::kSpecial: c.skip = SkipReason::kSpecialPath; return false;
      case PathVerdict::kBadBytes: c.skip = SkipReason::kBadPath; return false;
    }
    return false;
  };
  // O_PATH object fd for a path argument; returns -errno, or 1 with c.skip set.
  auto object = [&](int di, int pi, bool follow, UniqueFd* out) -> int64_t {
    std::string abs;
    if (!path_arg(di, pi, &abs)) return 1;
    int fd = sandbox_.open_object(abs, follow);
    if (fd < 0) return fd;
    out->reset(fd);
    return 0;
  };
  auto parent = [&](int di, int pi, SandboxResolver::Parent* out) -> int64_t {
    std::string abs;
    if (!path_arg(di, pi, &abs)) return 1;
    return sandbox_.open_parent(abs, out);
  };
  // Maps a newly created replay fd to the traced fd the call returned.
  auto install = [&](int key, int replay_fd, bool cloexec, std::string path) -> int64_t {
    if (replay_fd < 0) {
      if (c.traced_ok()) fds.set_state(key, FdState::kFailed);
      return replay_fd;
    }
    if (!c.traced_ok()) {  // the trace failed here: keep nothing
      ::close(replay_fd);
      return replay_fd;
    }
    fds.set_open(key, replay_fd, cloexec, std::move(path));
    return replay_fd;
  };
  auto open_path = [&](int di, int pi, int flags, mode_t mode) -> int64_t {
    std::string abs;
    if (!path_arg(di, pi, &abs)) {
      if (c.skip == SkipReason::kSpecialPath && SandboxResolver::check(abs) == PathVerdict::kDevNull) {
        c.skip = SkipReason::kNone;  // /dev/null is replayed against the real one
        int fd = ::open("/dev/null", (flags & O_ACCMODE) | O_CLOEXEC);
        return install(c.ret_key(), fd < 0 ? -errno : fd, flags & O_CLOEXEC, abs);
      }
      if (c.traced_ok() && (c.skip == SkipReason::kSpecialPath || c.skip == SkipReason::kBadPath)) {
        fds.set_state(c.ret_key(), FdState::kRefused);
      }
      return e.rvalue;
    }
    int fd = sandbox_.open(abs, flags & ~O_CLOEXEC, mode);
    return install(c.ret_key(), fd, flags & O_CLOEXEC, abs);
  };
  auto dup_to = [&](int from_replay, int new_key, bool cloexec) -> int64_t {
    int d = fcntl(from_replay, F_DUPFD_CLOEXEC, 0);
    if (d < 0) return -errno;
    std::string p = fds.path(c.key(0));
    install(new_key, d, cloexec, p);
    return d;
  };
  auto bytes = [&](int i) -> size_t {
    int64_t v = c.a(i);
    return v < 0 ? 0 : static_cast<size_t>(std::min<int64_t>(v, int64_t{1} << 30));
  };
  // readv/writev: the vector is not recorded, so the traced byte count stands for it.
  auto vec_bytes = [&]() -> size_t {
    return e.rvalue > 0 ? static_cast<size_t>(std::min<int64_t>(e.rvalue, int64_t{1} << 30)) : 0;
  };

  switch (e.nr) {
    case SYS_read: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = bytes(2);
      return sysret(::read(fd, c.scratch.read_area(n), n));
    }
    case SYS_pread64: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = bytes(2);
      return sysret(::pread(fd, c.scratch.read_area(n), n, c.a(3)));
    }
    case SYS_readv: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = vec_bytes();
      return sysret(::read(fd, c.scratch.read_area(n), n));
    }
    case SYS_preadv:
    case SYS_preadv2: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = vec_bytes();
      return sysret(c.a(3) == -1 ? ::read(fd, c.scratch.read_area(n), n)
                                 : ::pread(fd, c.scratch.read_area(n), n, c.a(3)));
    }
    case SYS_write: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = bytes(2);
      return sysret(::write(fd, c.scratch.write_area(n), n));
    }
    case SYS_pwrite64: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = bytes(2);
      return sysret(::pwrite(fd, c.scratch.write_area(n), n, c.a(3)));
    }
    case SYS_writev: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = vec_bytes();
      return sysret(::write(fd, c.scratch.write_area(n), n));
    }
    case SYS_pwritev:
    case SYS_pwritev2: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = vec_bytes();
      return sysret(c.a(3) == -1 ? ::write(fd, c.scratch.write_area(n), n)
                                 : ::pwrite(fd, c.scratch.write_area(n), n, c.a(3)));
    }
    case SYS_lseek: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::lseek(fd, c.a(1), static_cast<int>(c.a(2))));
    }
    case SYS_close: {
      FdLookup l = fds.take(c.key(0));
      if (l.state != FdState::kOpen) {
        c.skip = fd_skip(l.state);
        return e.rvalue;
      }
      return sysret(::close(l.fd));
    }
    case SYS_fsync:
    case SYS_fdatasync:
    case SYS_syncfs: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(e.nr == SYS_fsync ? ::fsync(fd) : e.nr == SYS_fdatasync ? ::fdatasync(fd) : ::syncfs(fd));
    }
    case SYS_sync_file_range: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::sync_file_range(fd, c.a(1), c.a(2), static_cast<unsigned>(c.a(3))));
    }
    case SYS_sync:
      ::sync();
      return 0;
    case SYS_readahead: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::readahead(fd, c.a(1), bytes(2)));
    }
    case SYS_fadvise64: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return -static_cast<int64_t>(::posix_fadvise(fd, c.a(1), c.a(2), static_cast<int>(c.a(3))));
    }
    case SYS_open:
      return open_path(-1, 0, static_cast<int>(c.a(1)), static_cast<mode_t>(c.a(2)));
    case SYS_creat:
      return open_path(-1, 0, O_CREAT | O_WRONLY | O_TRUNC, static_cast<mode_t>(c.a(1)));
    case SYS_openat:
      return open_path(0, 1, static_cast<int>(c.a(2)), static_cast<mode_t>(c.a(3)));
    case SYS_fstat: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      struct stat st;
      return sysret(::fstat(fd, &st));
    }
    case SYS_stat:
    case SYS_lstat: {
      struct stat st;
      if (e.nr == SYS_stat) {
        UniqueFd o;
        int64_t r = object(-1, 0, true, &o);
        if (r != 0) return r > 0 ? e.rvalue : r;
        return sysret(::fstatat(o.get(), "", &st, AT_EMPTY_PATH));
      }
      SandboxResolver::Parent p;
      int64_t r = parent(-1, 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return sysret(::fstatat(p.dir.get(), p.name.empty() ? "" : p.name.c_str(), &st,
                              p.name.empty() ? AT_EMPTY_PATH : AT_SYMLINK_NOFOLLOW));
    }
    case SYS_newfstatat:
    case SYS_statx: {
      int flags = static_cast<int>(e.nr == SYS_newfstatat ? c.a(3) : c.a(2));
      struct statx stx;
      struct stat st;
      auto do_stat = [&](int dfd, const char* p, int fl) -> int64_t {
        if (e.nr == SYS_statx) return sysret(::statx(dfd, p, fl, static_cast<unsigned>(c.a(3)), &stx));
        return sysret(::fstatat(dfd, p, &st, fl));
      };
      if ((flags & AT_EMPTY_PATH) && str(1).empty()) {
        if (c.a(0) == AT_FDCWD) {
          UniqueFd o(sandbox_.open_object(SandboxResolver::absolute(c.proc.cwd(), "."), true));
          if (!o.valid()) return -ENOENT;
          return do_stat(o.get(), "", AT_EMPTY_PATH);
        }
        int fd = fd_arg(0);
        if (fd < 0) return e.rvalue;
        return do_stat(fd, "", AT_EMPTY_PATH);
      }
      if (flags & AT_SYMLINK_NOFOLLOW) {
        SandboxResolver::Parent p;
        int64_t r = parent(0, 1, &p);
        if (r != 0) return r > 0 ? e.rvalue : r;
        if (p.name.empty()) return do_stat(p.dir.get(), "", AT_EMPTY_PATH);
        return do_stat(p.dir.get(), p.name.c_str(), AT_SYMLINK_NOFOLLOW);
      }
      UniqueFd o;
      int64_t r = object(0, 1, true, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return do_stat(o.get(), "", AT_EMPTY_PATH);
    }
    case SYS_statfs: {
      UniqueFd o;
      int64_t r = object(-1, 0, true, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      struct statfs sf;
      return sysret(::fstatfs(o.get(), &sf));
    }
    case SYS_fstatfs: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      struct statfs sf;
      return sysret(::fstatfs(fd, &sf));
    }
    case SYS_access:
    case SYS_faccessat:
    case SYS_faccessat2: {
      bool at = e.nr != SYS_access;
      int mode = static_cast<int>(c.a(at ? 2 : 1));
      bool follow = !(e.nr == SYS_faccessat2 && (c.a(3) & AT_SYMLINK_NOFOLLOW));
      UniqueFd o;
      int64_t r = object(at ? 0 : -1, at ? 1 : 0, follow, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return sysret(::access(fd_path(o.get()).c_str(), mode));
    }
    case SYS_mkdir:
    case SYS_mkdirat: {
      bool at = e.nr == SYS_mkdirat;
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return -EEXIST;
      return sysret(::mkdirat(p.dir.get(), p.name.c_str(), static_cast<mode_t>(c.a(at ? 2 : 1))));
    }
    case SYS_rmdir:
    case SYS_unlink:
    case SYS_unlinkat: {
      bool at = e.nr == SYS_unlinkat;
      int flags = e.nr == SYS_rmdir ? AT_REMOVEDIR : at ? static_cast<int>(c.a(2)) : 0;
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return (flags & AT_REMOVEDIR) ? -EBUSY : -EISDIR;
      return sysret(::unlinkat(p.dir.get(), p.name.c_str(), flags));
    }
    case SYS_rename:
    case SYS_renameat:
    case SYS_renameat2: {
      bool at = e.nr != SYS_rename;
      SandboxResolver::Parent from, to;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &from);
      if (r != 0) return r > 0 ? e.rvalue : r;
      r = parent(at ? 2 : -1, at ? 3 : 1, &to);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (from.name.empty() || to.name.empty()) return -EBUSY;
      unsigned flags = e.nr == SYS_renameat2 ? static_cast<unsigned>(c.a(4)) : 0;
      return sysret(syscall(SYS_renameat2, from.dir.get(), from.name.c_str(), to.dir.get(), to.name.c_str(), flags));
    }
    case SYS_link:
    case SYS_linkat: {
      bool at = e.nr == SYS_linkat;
      int flags = at ? static_cast<int>(c.a(4)) : 0;
      SandboxResolver::Parent to;
      int64_t r = parent(at ? 2 : -1, at ? 3 : 1, &to);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (to.name.empty()) return -EEXIST;
      if (flags & AT_SYMLINK_FOLLOW) {
        UniqueFd o;
        r = object(at ? 0 : -1, at ? 1 : 0, true, &o);
        if (r != 0) return r > 0 ? e.rvalue : r;
        return sysret(::linkat(o.get(), "", to.dir.get(), to.name.c_str(), AT_EMPTY_PATH));
      }
      SandboxResolver::Parent from;
      r = parent(at ? 0 : -1, at ? 1 : 0, &from);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (from.name.empty()) return -EPERM;  // a directory cannot be hard-linked
      return sysret(::linkat(from.dir.get(), from.name.c_str(), to.dir.get(), to.name.c_str(), 0));
    }
    case SYS_symlink:
    case SYS_symlinkat: {
      bool at = e.nr == SYS_symlinkat;
      std::string target(str(0));  // a symlink's content is data; later lookups stay in the root
      if (target.empty() || target.find('\0') != std::string::npos) {
        c.skip = SkipReason::kBadPath;
        return e.rvalue;
      }
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 1 : -1, at ? 2 : 1, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return -EEXIST;
      return sysret(::symlinkat(target.c_str(), p.dir.get(), p.name.c_str()));
    }
    case SYS_readlink:
    case SYS_readlinkat: {
      bool at = e.nr == SYS_readlinkat;
      size_t n = bytes(at ? 3 : 2);
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return -EINVAL;
      return sysret(::readlinkat(p.dir.get(), p.name.c_str(), c.scratch.read_area(n + 1), n));
    }
    case SYS_chmod:
    case SYS_fchmodat: {
      bool at = e.nr == SYS_fchmodat;
      UniqueFd o;
      int64_t r = object(at ? 0 : -1, at ? 1 : 0, true, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return sysret(::chmod(fd_path(o.get()).c_str(), static_cast<mode_t>(c.a(at ? 2 : 1))));
    }
    case SYS_fchmod: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::fchmod(fd, static_cast<mode_t>(c.a(1))));
    }
    case SYS_chown:
    case SYS_lchown:
    case SYS_fchownat: {
      bool at = e.nr == SYS_fchownat;
      bool follow = e.nr == SYS_chown || (at && !(c.a(4) & AT_SYMLINK_NOFOLLOW));
      UniqueFd o;
      int64_t r = object(at ? 0 : -1, at ? 1 : 0, follow, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return sysret(::fchownat(o.get(), "", static_cast<uid_t>(c.a(at ? 2 : 1)),
                               static_cast<gid_t>(c.a(at ? 3 : 2)), AT_EMPTY_PATH));
    }
    case SYS_fchown: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::fchown(fd, static_cast<uid_t>(c.a(1)), static_cast<gid_t>(c.a(2))));
    }
    case SYS_truncate: {
      std::string abs;
      if (!path_arg(-1, 0, &abs)) return e.rvalue;
      UniqueFd fd(sandbox_.open(abs, O_WRONLY, 0));
      if (!fd.valid()) return fd.get();  // -errno
      return sysret(::ftruncate(fd.get(), c.a(1)));
    }
    case SYS_ftruncate: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::ftruncate(fd, c.a(1)));
    }
    case SYS_fallocate: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return sysret(::fallocate(fd, static_cast<int>(c.a(1)), c.a(2), c.a(3)));
    }
    case SYS_dup: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      return dup_to(fd, c.ret_key(), false);
    }
    case SYS_dup2:
    case SYS_dup3: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      if (c.a(0) == c.a(1)) return e.nr == SYS_dup3 ? -EINVAL : c.a(1);
      bool cloexec = e.nr == SYS_dup3 && (c.a(2) & O_CLOEXEC);
      int64_t r = dup_to(fd, c.key(1), cloexec);
      return r < 0 ? r : c.a(1);
    }
    case SYS_fcntl: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      int cmd = static_cast<int>(c.a(1));
      switch (cmd) {
        case F_DUPFD:
        case F_DUPFD_CLOEXEC:
          return dup_to(fd, c.ret_key(), cmd == F_DUPFD_CLOEXEC);
        case F_GETFL:
          return sysret(forced_nonblock_getfl(fd));
        case F_SETFL:
          return sysret(forced_nonblock_setfl(fd, static_cast<int>(c.a(2))));
        case F_GETFD:  // close-on-exec is the traced process's, kept in the fd map
          return fds.get(c.key(0)).cloexec ? FD_CLOEXEC : 0;
        case F_SETFD:
          fds.set_cloexec(c.key(0), c.a(2) & FD_CLOEXEC);
          return 0;
        default:
          return unsupported();
      }
    }
    case SYS_flock: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      // Non-blocking: a lock the replay cannot take must not hang it (it shows as a mismatch).
      return sysret(::flock(fd, static_cast<int>(c.a(1)) | LOCK_NB));
    }
    case SYS_getdents:
    case SYS_getdents64: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      size_t n = bytes(2);
      return sysret(syscall(SYS_getdents64, fd, c.scratch.read_area(n), n));
    }
    case SYS_chdir: {
      std::string abs;
      if (!path_arg(-1, 0, &abs)) return e.rvalue;
      UniqueFd o(sandbox_.open(abs, O_PATH | O_DIRECTORY, 0));
      if (!o.valid()) return o.get();  // -errno
      c.proc.set_cwd(SandboxResolver::normalise(abs));
      return 0;
    }
    case SYS_fchdir: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      struct stat st;
      if (::fstat(fd, &st) != 0) return -errno;
      if (!S_ISDIR(st.st_mode)) return -ENOTDIR;
      std::string p = fds.path(c.key(0));
      if (p.empty()) p = std::string(str(0));
      if (!p.empty() && p.front() == '/') c.proc.set_cwd(SandboxResolver::normalise(p));
      return 0;
    }
    case SYS_utimensat: {
      int flags = static_cast<int>(c.a(3));
      if (str(1).empty()) {  // utimensat(fd, NULL, ...) = futimens
        int fd = fd_arg(0);
        if (fd < 0) return e.rvalue;
        return sysret(syscall(SYS_utimensat, fd, nullptr, nullptr, 0));
      }
      UniqueFd o;
      int64_t r = object(0, 1, !(flags & AT_SYMLINK_NOFOLLOW), &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return sysret(::utimensat(AT_FDCWD, fd_path(o.get()).c_str(), nullptr, 0));
    }
    case SYS_utime:
    case SYS_utimes: {
      UniqueFd o;
      int64_t r = object(-1, 0, true, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      return sysret(::utimensat(AT_FDCWD, fd_path(o.get()).c_str(), nullptr, 0));
    }
    case SYS_setxattr:
    case SYS_lsetxattr:
    case SYS_getxattr:
    case SYS_lgetxattr:
    case SYS_listxattr:
    case SYS_llistxattr:
    case SYS_removexattr:
    case SYS_lremovexattr: {
      bool nofollow = e.nr == SYS_lsetxattr || e.nr == SYS_lgetxattr || e.nr == SYS_llistxattr ||
                      e.nr == SYS_lremovexattr;
      UniqueFd o;
      int64_t r = object(-1, 0, !nofollow, &o);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (nofollow) {
        struct stat st;
        if (::fstatat(o.get(), "", &st, AT_EMPTY_PATH) == 0 && S_ISLNK(st.st_mode)) {
          return e.nr == SYS_lgetxattr ? -ENODATA : e.nr == SYS_llistxattr ? 0 : -EPERM;
        }
      }
      std::string via = fd_path(o.get());
      std::string attr(str(1));
      switch (e.nr) {
        case SYS_setxattr:
        case SYS_lsetxattr: {
          size_t n = bytes(3);
          return sysret(::setxattr(via.c_str(), attr.c_str(), c.scratch.write_area(n), n, static_cast<int>(c.a(4))));
        }
        case SYS_getxattr:
        case SYS_lgetxattr: {
          size_t n = bytes(3);
          return sysret(::getxattr(via.c_str(), attr.c_str(), c.scratch.read_area(n), n));
        }
        case SYS_listxattr:
        case SYS_llistxattr: {
          size_t n = bytes(2);
          return sysret(::listxattr(via.c_str(), c.scratch.read_area(n), n));
        }
        default:
          return sysret(::removexattr(via.c_str(), attr.c_str()));
      }
    }
    case SYS_fsetxattr:
    case SYS_fgetxattr:
    case SYS_flistxattr:
    case SYS_fremovexattr: {
      int fd = fd_arg(0);
      if (fd < 0) return e.rvalue;
      std::string attr(e.nr == SYS_flistxattr ? std::string_view() : str(1));
      switch (e.nr) {
        case SYS_fsetxattr: {
          size_t n = bytes(3);
          return sysret(::fsetxattr(fd, attr.c_str(), c.scratch.write_area(n), n, static_cast<int>(c.a(4))));
        }
        case SYS_fgetxattr: {
          size_t n = bytes(3);
          return sysret(::fgetxattr(fd, attr.c_str(), c.scratch.read_area(n), n));
        }
        case SYS_flistxattr: {
          size_t n = bytes(2);
          return sysret(::flistxattr(fd, c.scratch.read_area(n), n));
        }
        default:
          return sysret(::fremovexattr(fd, attr.c_str()));
      }
    }
    case SYS_mknod:
    case SYS_mknodat: {
      bool at = e.nr == SYS_mknodat;
      auto mode = static_cast<mode_t>(c.a(at ? 2 : 1));
      if (S_ISCHR(mode) || S_ISBLK(mode) || S_ISSOCK(mode)) {
        c.skip = SkipReason::kDeviceNode;
        return e.rvalue;
      }
      SandboxResolver::Parent p;
      int64_t r = parent(at ? 0 : -1, at ? 1 : 0, &p);
      if (r != 0) return r > 0 ? e.rvalue : r;
      if (p.name.empty()) return -EEXIST;
      return sysret(::mknodat(p.dir.get(), p.name.c_str(), mode, 0));
    }
    case SYS_pipe:
    case SYS_pipe2:
    case SYS_socketpair: {
      int pair[2];
      int r;
      if (e.nr == SYS_socketpair) {
        r = ::socketpair(static_cast<int>(c.a(0)), static_cast<int>(c.a(1)) | SOCK_NONBLOCK | SOCK_CLOEXEC,
                         static_cast<int>(c.a(2)), pair);
      } else {
        int flags = e.nr == SYS_pipe2 ? static_cast<int>(c.a(1)) : 0;
        r = ::pipe2(pair, (flags & ~O_CLOEXEC) | O_NONBLOCK | O_CLOEXEC);
      }
      if (r != 0) return -errno;
      const bool wanted_nonblock = e.nr == SYS_socketpair ? (c.a(1) & SOCK_NONBLOCK) != 0
                                   : e.nr == SYS_pipe2    ? (c.a(1) & O_NONBLOCK) != 0
                                                          : false;
      forced_nonblock_created(pair[0], wanted_nonblock);
      forced_nonblock_created(pair[1], wanted_nonblock);
      int ai = e.nr == SYS_socketpair ? 3 : 0;
      auto v = static_cast<uint64_t>(c.a(ai));
      bool cloexec = e.nr == SYS_pipe2 && (c.a(1) & O_CLOEXEC);
      install(c.keys ? c.keys[ai] : static_cast<int>(v & 0xffffffffu), pair[0], cloexec, "");
      install(c.keys ? c.keys[FdKeys::kPair2] : static_cast<int>(v >> 32), pair[1], cloexec, "");
      return 0;
    }
    case SYS_sendfile: {
      int out = fd_arg(0);
      if (out < 0) return e.rvalue;
      int in = fd_arg(1);
      if (in < 0) return e.rvalue;
      return sysret(::sendfile(out, in, nullptr, bytes(3)));
    }
    case SYS_copy_file_range: {
      int in = fd_arg(0);
      if (in < 0) return e.rvalue;
      int out = fd_arg(2);
      if (out < 0) return e.rvalue;
      return sysret(::copy_file_range(in, nullptr, out, nullptr, bytes(4), 0));
    }
    case SYS_mmap: {
      int flags = static_cast<int>(c.a(3));
      if ((flags & MAP_ANONYMOUS) || c.a(4) < 0) {
        c.skip = SkipReason::kNotFileMapping;
        return e.rvalue;
      }
      int fd = fd_arg(4);
      if (fd < 0) return e.rvalue;
      size_t len = static_cast<size_t>(std::max<int64_t>(c.a(1), 0));
      void* p = ::mmap(nullptr, len, static_cast<int>(c.a(2)), flags & ~(MAP_FIXED | MAP_FIXED_NOREPLACE), fd, c.a(5));
      if (p == MAP_FAILED) return -errno;
      if (c.traced_ok()) {
        c.proc.add_mapping(static_cast<uint64_t>(e.rvalue), {reinterpret_cast<uint64_t>(p), len});
      } else {
        ::munmap(p, len);
      }
      return reinterpret_cast<int64_t>(p);
    }
    case SYS_munmap: {
      Mapping m;
      if (!c.proc.take_mapping(static_cast<uint64_t>(c.a(0)), &m)) {
        c.skip = SkipReason::kNotFileMapping;
        return e.rvalue;
      }
      return sysret(::munmap(reinterpret_cast<void*>(m.replay_addr), m.length));
    }
    case SYS_msync: {
      Mapping m;
      if (!c.proc.find_mapping(static_cast<uint64_t>(c.a(0)), &m)) {
        c.skip = SkipReason::kNotFileMapping;
        return e.rvalue;
      }
      size_t len = std::min<uint64_t>(m.length, static_cast<uint64_t>(std::max<int64_t>(c.a(1), 0)));
      return sysret(::msync(reinterpret_cast<void*>(m.replay_addr), len, static_cast<int>(c.a(2))));
    }
    // Structure only: process lifecycle changes fd tables; it is not executed.
    case SYS_clone:
    case SYS_fork:
    case SYS_vfork:
    case SYS_clone3: {
      c.emulated = true;
      if (e.rvalue > 0) {
        procs_.spawn(e.pid, static_cast<int32_t>(e.rvalue), static_cast<uint64_t>(c.a(0)), e.nr == SYS_clone);
      }
      return e.rvalue;
    }
    case SYS_execve:
    case SYS_execveat:
      c.emulated = true;
      if (!e.failed()) fds.close_cloexec();
      return e.rvalue;
    case SYS_exit:
    case SYS_exit_group:
    case SYS_umask:
    case SYS_getcwd:
      c.emulated = true;
      return e.rvalue;
    default:
      return unsupported();
  }
}

CallOutcome CallExecutor::skip(const trace::Event& e, SkipReason why, ThreadScratch& scratch) const {
  CallOutcome out;
  out.rvalue = e.rvalue;
  out.skip = why;
  out.flags = trace::kEventSkipped;
  ++scratch.stats.skipped[static_cast<size_t>(why)];
  if (why == SkipReason::kUnsupported) {
    std::string_view name = trace::function_name(e, strings_);
    ++scratch.stats.unsupported[std::string(name.empty() ? "syscall_?" : name)];
  }
  return out;
}

CallOutcome CallExecutor::execute(const trace::Event& e, ProcessState* proc, ThreadScratch& scratch,
                                  const trace::StrId* resolved, const int32_t* fd_keys) const {
  CallOutcome out;
  if (!proc) proc = procs_.find(e.pid);
  if (!proc) {
    out.skip = SkipReason::kUnknownProcess;
  } else {
    Ctx c{e, *proc, scratch, resolved, fd_keys};
    out.rvalue = run(c);
    out.skip = c.skip;
    if (c.emulated) {
      ++scratch.stats.emulated;
    } else if (c.skip == SkipReason::kNone) {
      ++scratch.stats.executed;
    }
  }
  if (out.skip != SkipReason::kNone) {
    out.rvalue = e.rvalue;
    out.flags |= trace::kEventSkipped;
    ++scratch.stats.skipped[static_cast<size_t>(out.skip)];
    return out;
  }
  if (rvalue_mismatch(e, out.rvalue)) {
    out.flags |= trace::kEventMismatch;
    ++scratch.stats.mismatched;
    const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
    ++scratch.stats.mismatched_by_call[std::string(info ? info->name : "?")];
  }
  return out;
}

}  // namespace rastro::replay
