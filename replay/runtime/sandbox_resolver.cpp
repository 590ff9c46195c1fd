#include "replay/runtime/sandbox_resolver.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/clock.h"
#include "common/error.h"
#include "replay/runtime/forced_nonblock.h"
#include "replay/runtime/stream_io.h"

namespace rastro::replay {

SandboxResolver::SandboxResolver(const std::string& root, RootFifos fifos) : root_(root), fifos_(fifos) {
  int fd = ::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    throw Error("replay root '" + root + "': " + std::strerror(errno) +
                " (it must be an existing directory)");
  }
  root_fd_.reset(fd);
}

std::string SandboxResolver::absolute(std::string_view cwd, std::string_view path) {
  if (!path.empty() && path.front() == '/') return std::string(path);
  std::string out(cwd.empty() ? std::string_view("/") : cwd);
  if (out.front() != '/') out.insert(out.begin(), '/');
  if (out.back() != '/') out.push_back('/');
  out.append(path);
  return out;
}

std::string SandboxResolver::normalise(std::string_view abs) {
  std::vector<std::string_view> parts;
  size_t i = 0;
  while (i < abs.size()) {
    size_t j = abs.find('/', i);
    if (j == std::string_view::npos) j = abs.size();
    std::string_view part = abs.substr(i, j - i);
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  std::string out;
  for (auto part : parts) {
    out.push_back('/');
    out.append(part);
  }
  return out.empty() ? "/" : out;
}

std::string SandboxResolver::squeeze_slashes(std::string_view p) {
  std::string out;
  out.reserve(p.size());
  for (char c : p) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  return out;
}

bool SandboxResolver::under(std::string_view path, std::string_view dir) {
  if (path.substr(0, dir.size()) != dir) return false;
  return path.size() == dir.size() || path[dir.size()] == '/';
}

PathVerdict SandboxResolver::check(std::string_view abs_path) {
  if (abs_path.empty() || abs_path.find('\0') != std::string_view::npos) return PathVerdict::kBadBytes;
  std::string p = squeeze_slashes(abs_path);
  if (p == "/dev/null") return PathVerdict::kDevNull;
  // POSIX shared memory and semaphores (shm_open, sem_open: PostgreSQL, Chromium, Python's
  // multiprocessing) are files of a tmpfs the program creates, maps and unlinks: ordinary files
  // inside the root, like any other the trace creates.
  if (under(p, "/dev/shm")) return PathVerdict::kOk;
  for (std::string_view special : {"/dev", "/proc", "/sys"}) {
    if (under(p, special)) return PathVerdict::kSpecial;
  }
  return PathVerdict::kOk;
}

std::string_view SandboxResolver::relative(std::string_view abs_path) {
  size_t i = 0;
  while (i < abs_path.size() && abs_path[i] == '/') ++i;
  if (i == abs_path.size()) return ".";
  return abs_path.substr(i);
}

namespace {

long openat2_retrying(int dirfd, const std::string& path, const open_how& how, SyscallSpan* span) {
  for (;;) {
    if (span) span->begin_ns = monotonic_ns();
    long fd = syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof how);
    if (span) span->end_ns = monotonic_ns();
    if (fd >= 0) return fd;
    // EAGAIN: a concurrent rename raced the lookup (scoped lookups are conservative); retry.
    if (errno != EAGAIN) return -errno;
  }
}

open_how how_of(int flags, mode_t mode, uint64_t resolve) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags) | O_CLOEXEC;
  // The kernel rejects a mode without O_CREAT/O_TMPFILE.
  how.mode = (flags & (O_CREAT | __O_TMPFILE)) ? (mode & 07777) : 0;
  how.resolve = resolve;
  return how;
}

}  // namespace

int SandboxResolver::openat2_in_root(std::string_view rel, int flags, mode_t mode, SyscallSpan* span) const {
  const std::string p(rel);  // NUL-terminated copy (the trace's strings are views)
  return static_cast<int>(
      openat2_retrying(root_fd_.get(), p, how_of(flags, mode, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), span));
}

int SandboxResolver::openat2_from(const Base* base, std::string_view abs_path, int flags, mode_t mode,
                                  SyscallSpan* span) const {
  if (base && base->dirfd >= 0 && !base->path.empty() && base->path.front() != '/') {
    const std::string p(base->path);
    const long fd = openat2_retrying(base->dirfd, p, how_of(flags, mode, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), span);
    if (fd != -EXDEV) return static_cast<int>(fd);
    if (abs_path.empty()) return kLeftTheBase;  // the caller walks its own way from the root
  }
  return openat2_in_root(relative(abs_path), flags, mode, span);
}

int SandboxResolver::open(std::string_view abs_path, int flags, mode_t mode, SyscallSpan* span, bool* fifo,
                          const Base* base) const {
  if (flags & O_PATH) return openat2_from(base, abs_path, flags, mode, span);
  const bool fifo_possible = fifos_ == RootFifos::kPossible;
  const bool nonblock = flags & O_NONBLOCK;
  int fd = openat2_from(base, abs_path, fifo_possible ? flags | O_NONBLOCK : flags, mode, span);
  if (fifo_possible && fd == -ENXIO && (flags & O_ACCMODE) == O_WRONLY && is_fifo(abs_path)) {
    // A FIFO no reader has open yet: the traced open waited for one, and so does this one, up to a
    // stream's deadline (stream_io.h; the reader's open never waits). A writer that opened and
    // closed before its reader came would lose its bytes with the FIFO's buffer. At the deadline
    // (a reader the replay does not bring), read-write, which Linux never refuses nor blocks.
    const int64_t begin = span ? span->begin_ns : 0;
    const int64_t deadline = monotonic_ns() + stream_wait_budget_ns(0);
    while (fd == -ENXIO && monotonic_ns() < deadline) {
      ::usleep(50);
      fd = openat2_in_root(relative(abs_path), flags | O_NONBLOCK, mode, span);
    }
    if (fd == -ENXIO) fd = openat2_in_root(relative(abs_path), (flags & ~O_ACCMODE) | O_RDWR | O_NONBLOCK, mode, span);
    if (span) span->begin_ns = begin;  // the wait is the call's, as it was in the trace
  }
  if (fd < 0) return fd;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    ::close(fd);
    return -EPERM;
  }
  if (S_ISFIFO(st.st_mode) && fifo_possible) {
    // A named FIFO the trace made (mkfifo): a stream between the replayed processes like a pipe
    // (stream_io.h), kept non-blocking so a replay that diverges waits with a deadline, never
    // forever; the program's own O_NONBLOCK is what F_GETFL shows (forced_nonblock.h).
    (void)::fcntl(fd, F_SETPIPE_SZ, kReplayPipeBytes);
    forced_nonblock_created(fd, nonblock);
    if (fifo) *fifo = true;
    return fd;
  }
  if (!(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
    ::close(fd);
    return -EPERM;
  }
  if (fifo_possible && !nonblock) {
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  }
  return fd;
}

bool SandboxResolver::is_fifo(std::string_view abs_path) const {
  UniqueFd o(open_object(abs_path, true));
  struct stat st;
  return o.get() >= 0 && ::fstat(o.get(), &st) == 0 && S_ISFIFO(st.st_mode);
}

int SandboxResolver::open_object(std::string_view abs_path, bool follow, const Base* base) const {
  return openat2_from(base, abs_path, O_PATH | (follow ? 0 : O_NOFOLLOW), 0, nullptr);
}

int SandboxResolver::open_parent(std::string_view abs_path, Parent* out, const Base* base) const {
  if (base && base->dirfd >= 0 && !base->path.empty() && base->path.front() != '/') {
    // The traced path's own directory part, walked from the base; its last name as traced.
    std::string_view t = base->path;
    while (t.size() > 1 && t.back() == '/') t.remove_suffix(1);
    const size_t slash = t.rfind('/');
    const std::string_view name = slash == std::string_view::npos ? t : t.substr(slash + 1);
    if (!name.empty() && name != "." && name != "..") {
      const Base dir{base->dirfd, slash == std::string_view::npos ? std::string_view(".") : t.substr(0, slash + 1)};
      const int fd = openat2_from(&dir, {}, O_PATH | O_DIRECTORY, 0, nullptr);
      if (fd != kLeftTheBase) {
        if (fd < 0) return fd;
        out->dir.reset(fd);
        out->name.assign(name);
        return 0;
      }
    }
  }
  std::string_view p = abs_path;
  while (p.size() > 1 && p.back() == '/') p.remove_suffix(1);  // "dir/" names "dir"
  size_t slash = p.rfind('/');
  std::string_view name = slash == std::string_view::npos ? p : p.substr(slash + 1);
  std::string_view dir = slash == std::string_view::npos ? std::string_view("/") : p.substr(0, slash + 1);
  if (name.empty() || name == "." || name == "..") {
    int fd = openat2_in_root(relative(p), O_PATH | O_DIRECTORY, 0);
    if (fd < 0) return fd;
    out->dir.reset(fd);
    out->name.clear();
    return 0;
  }
  int fd = openat2_in_root(relative(dir), O_PATH | O_DIRECTORY, 0);
  if (fd < 0) return fd;
  out->dir.reset(fd);
  out->name.assign(name);
  return 0;
}

// thread-self, not self: a replay thread standing for a forked process has its own fd table
// (unshare(CLONE_FILES)), and /proc/self/fd is the thread-group leader's table, where N is
// another file or none (path xattr calls acted on the wrong file or failed with ENOENT).
std::string fd_path(int fd) { return "/proc/thread-self/fd/" + std::to_string(fd); }

namespace {
#ifndef SYS_fchmodat2
constexpr long SYS_fchmodat2 = 452;  // Linux 6.6; Debian 12's headers predate it
#endif
int64_t ret_or_errno(long r) { return r < 0 ? -errno : r; }
// An old kernel rejects the AT_EMPTY_PATH form: ENOSYS (no such syscall) or EINVAL (flag unknown).
bool form_missing(long r) { return r < 0 && (errno == ENOSYS || errno == EINVAL); }
}  // namespace

int64_t access_object(int fd, int mode) {
  long r = syscall(SYS_faccessat2, fd, "", mode, AT_EMPTY_PATH);
  if (form_missing(r)) r = ::access(fd_path(fd).c_str(), mode);
  return ret_or_errno(r);
}

int64_t chmod_object(int fd, mode_t mode) {
  long r = syscall(SYS_fchmodat2, fd, "", mode, AT_EMPTY_PATH);
  if (form_missing(r)) r = ::chmod(fd_path(fd).c_str(), mode);
  return ret_or_errno(r);
}

int64_t touch_object(int fd) {
  long r = syscall(SYS_utimensat, fd, "", nullptr, AT_EMPTY_PATH);
  if (form_missing(r)) r = ::utimensat(AT_FDCWD, fd_path(fd).c_str(), nullptr, 0);
  return ret_or_errno(r);
}

}  // namespace rastro::replay
