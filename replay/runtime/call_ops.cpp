#include "replay/runtime/call_ops.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "common/clock.h"
#include "replay/runtime/forced_nonblock.h"
#include "replay/runtime/special_file.h"
#include "replay/runtime/xattr_value.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

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

int64_t CallOps::unsupported() {
  c.skip = SkipReason::kUnsupported;
  ++c.scratch.stats.unsupported[std::string(name_.empty() ? "syscall_?" : name_)];
  return e.rvalue;
}

bool CallOps::path_arg(int di, int pi, std::string* out, SandboxResolver::Base* base_out) {
  std::string_view p = str(pi);
  if (p.empty() && !empty_path_allowed()) {
    // "" names nothing: the kernel fails the call with ENOENT before any lookup (cmake calls
    // mkdir("")); it must not become the cwd. A traced success on "" is a path the capture could
    // not read.
    if (c.traced_ok()) {
      c.skip = SkipReason::kBadPath;
    } else {
      c.emulated = true;
    }
    return false;
  }
  std::string base;
  const std::string_view traced = p;
  const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
  const int slot = info ? info->path_slot(pi) : -1;  // which Request::path (a symlink's target is none)
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
      fd_not_open(l.state);
      return false;
    }
    base = fds.path(c.key(di));
    if (base.empty()) base = std::string(strings_.get(e.arg(di).str));
    if (base.empty() || base.front() != '/') base = c.proc.cwd();
  }
  *out = SandboxResolver::absolute(base, p);
  switch (SandboxResolver::check(*out)) {
    case PathVerdict::kOk:
      // (Made from the traced path itself, `base` is the directory it started from.)
      if (base_out) *base_out = base_of(di, pi, *out, p.data() == traced.data() ? &base : nullptr);
      return true;
    case PathVerdict::kDevNull: c.skip = SkipReason::kSpecialPath; return false;
    case PathVerdict::kSpecial: c.skip = SkipReason::kSpecialPath; return false;
    case PathVerdict::kBadBytes: c.skip = SkipReason::kBadPath; return false;
  }
  return false;
}

SandboxResolver::Base CallOps::base_of(int di, int pi, std::string_view abs, const std::string* dir_of_abs) {
  SandboxResolver::Base b;
  const std::string_view traced = str(pi);
  if (traced.empty() || traced.front() == '/') return b;
  const bool from_cwd = di < 0 || c.a(di) == AT_FDCWD;
  FdLookup dirfd;
  if (!from_cwd) {
    dirfd = fds.get(c.key(di));
    if (dirfd.state != FdState::kOpen || dirfd.emulated || dirfd.stream) return b;
  }
  std::string dir;
  if (dir_of_abs && from_cwd) {  // (a dirfd's: path_arg may have fallen back to another directory)
    dir = *dir_of_abs;
  } else {
    dir = from_cwd ? c.proc.cwd() : fds.path(c.key(di));
    // `abs` is the plan's path, made absolute its own way: only where both name the same path.
    if (dir.empty() || dir.front() != '/') return b;
    const std::string joined = SandboxResolver::absolute(dir, traced);
    if (joined != abs && SandboxResolver::normalise(joined) != SandboxResolver::normalise(abs)) return b;
  }
  if (dir.empty() || dir.front() != '/') return b;
  if (from_cwd) {
    ThreadScratch::Cwd& cwd = c.scratch.cwd;
    if (cwd.fd.get() < 0 || cwd.proc != &c.proc || cwd.path != dir) {
      // (Not kept when it failed: the directory may be made later.)
      const int fd = sandbox_.open(dir, O_PATH | O_DIRECTORY, 0);
      cwd.fd.reset(fd < 0 ? -1 : fd);
      cwd.proc = &c.proc;
      cwd.path = std::move(dir);
    }
    b.dirfd = cwd.fd.get();
  } else {
    b.dirfd = dirfd.fd;  // opened by the sandbox, inside the root
  }
  if (b.dirfd >= 0) b.path = traced;
  return b;
}

bool CallOps::empty_path_allowed() const {
  for (int k = 0; k < std::min<int>(e.nargs, trace::kMaxArgs); ++k)
    if (e.arg(k).type == trace::ArgType::kAtFlags && (e.arg(k).value & AT_EMPTY_PATH)) return true;
  return false;
}

const void* CallOps::xattr_value(std::string_view name, size_t n, int fd, const char* below) {
  if (is_posix_acl_xattr(name)) {
    struct stat st {};
    thread_local std::vector<unsigned char> acl;
    acl.resize(n);
    const int flags = *below ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH;
    if (::fstatat(fd, below, &st, flags) == 0 && posix_acl_value(n, st.st_mode, acl.data())) return acl.data();
  }
  return c.scratch.write_area(n);
}

int64_t CallOps::object(int di, int pi, bool follow, UniqueFd* out) {
  std::string abs;
  SandboxResolver::Base base;
  if (!path_arg(di, pi, &abs, &base)) return 1;
  int fd = sandbox_.open_object(abs, follow, &base);
  c.scratch.call.begin_ns = monotonic_ns();  // the call on the object begins now
  if (fd < 0) return fd;
  out->reset(fd);
  return 0;
}

int64_t CallOps::parent(int di, int pi, SandboxResolver::Parent* out) {
  std::string abs;
  SandboxResolver::Base base;
  if (!path_arg(di, pi, &abs, &base)) return 1;
  const int r = sandbox_.open_parent(abs, out, &base);
  c.scratch.call.begin_ns = monotonic_ns();  // the *at call on the name begins now
  return r;
}

int64_t CallOps::install(int key, int replay_fd, bool cloexec, std::string path, bool stream) {
  if (replay_fd < 0) {
    if (c.traced_ok()) fds.set_state(key, FdState::kFailed);
    return replay_fd;
  }
  if (!c.traced_ok()) {  // the trace failed here: keep nothing
    ::close(replay_fd);
    return replay_fd;
  }
  fds.set_open(key, replay_fd, cloexec, std::move(path), stream);
  return replay_fd;
}

int64_t CallOps::open_path(int di, int pi, int flags, mode_t mode) {
  if (int64_t r; reopen_own_fd(pi, flags, &r)) return r;
  std::string abs;
  SandboxResolver::Base base;
  if (!path_arg(di, pi, &abs, &base)) {
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
  bool fifo = false;
  int fd = sandbox_.open(abs, flags & ~O_CLOEXEC, mode, &c.scratch.call, &fifo, &base);
  return install(c.ret_key(), fd, flags & O_CLOEXEC, abs, fifo);
}

// open("/dev/fd/N") of an fd N the replay holds (special_file.h: own_fd_named): the file of the
// replay fd opened anew through /proc/thread-self/fd (a new open file description, as the kernel
// gives; for a pipe, its end in the mode asked). The replay fd was made inside the root or is a
// replayer pipe, so its magic link leads nowhere else.
bool CallOps::reopen_own_fd(int pi, int flags, int64_t* r) {
  std::string_view p = str(pi);
  if (p.empty() || p.front() != '/') return false;
  const int n = own_fd_named(p, e.pid);
  if (n < 0) return false;
  const int key = c.keys ? c.keys[pi] : n;
  if (key < 0) return false;
  const FdLookup l = fds.get(key);
  if (l.state != FdState::kOpen || l.emulated) return false;
  const std::string via = fd_path(l.fd);
  const int open_flags = (flags & ~(O_CLOEXEC | O_CREAT | O_EXCL)) | O_CLOEXEC | (l.stream ? O_NONBLOCK : 0);
  const int fd = the_call([&] { return ::open(via.c_str(), open_flags); });
  if (fd >= 0 && l.stream) forced_nonblock_created(fd, flags & O_NONBLOCK);
  *r = install(c.ret_key(), fd < 0 ? -errno : fd, flags & O_CLOEXEC, fds.path(key), l.stream);
  return true;
}

int64_t CallOps::dup_to(int from_replay, int new_key, bool cloexec) {
  const int d = the_call([&] { return ::fcntl(from_replay, F_DUPFD_CLOEXEC, 0); });
  if (d < 0) return -errno;
  std::string p = fds.path(c.key(0));
  install(new_key, d, cloexec, p, fds.get(c.key(0)).stream);
  return d;
}


}  // namespace rastro::replay
