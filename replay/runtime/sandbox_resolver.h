// Confines every traced path to the replay root (SPEC §4: "a replay must never touch anything
// outside its sandbox root").
//
// Traced paths are made absolute against the traced cwd, then resolved by the kernel relative
// to a dirfd of the root with openat2(RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS): `..` stops at the
// root, absolute symlinks (also ones planted inside the root) are re-rooted, /proc magic links
// are refused. Calls that act on a name (unlink, mkdir, rename, link, symlink, readlink, lstat)
// resolve the *parent* that way and then use the *at syscall on the last component relative to
// that dirfd; calls that follow the last component (stat, chmod, chown, truncate, utimensat,
// xattrs) resolve the object itself to an O_PATH fd and act on it. Nothing is ever resolved by the
// kernel from "/" or the process cwd.
//
// Immutable after construction, so shared by every replay thread without locking.
#pragma once

#include <sys/types.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>

#include "replay/runtime/unique_fd.h"

namespace rastro::replay {

// When the one syscall that stands for a traced call began and ended (CLOCK_MONOTONIC), for a
// caller that times the call alone: the checks and bookkeeping around it are the replayer's own.
struct SyscallSpan {
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};

enum class PathVerdict : uint8_t {
  kOk,
  kDevNull,   // "/dev/null" (harmless, very common)
  kSpecial,   // under /dev, /proc or /sys: refused (no device, no kernel interface is touched)
  // (The executor serves the special files it can emulate before it asks the sandbox:
  // special_file.h. What reaches these verdicts is what it cannot: disks, /dev/mem ... /dev/shm
  // is kOk: POSIX shared memory, files the program makes, replayed inside the root.)
  kBadBytes,  // empty or contains NUL: no program can pass such a path; the trace is corrupt
};

// Whether the root may hold a FIFO. Opening one must not wait for its other end, so an open that
// could meet one asks for O_NONBLOCK and, on a regular file or directory, takes it off again with
// two fcntl calls of the replayer's own. Those calls warm the kernel's fcntl path, and a traced
// program's own next fcntl then replays faster than it ran (docs/replay.md r22: the first
// fcntl of git's forked children). A root the replay found empty, replaying a trace that makes no
// FIFO, holds none (--init makes only directories, files and symlinks).
enum class RootFifos : uint8_t { kPossible, kNone };

class SandboxResolver {
 public:
  // Opens `root` (which must be an existing directory). Throws rastro::Error otherwise.
  explicit SandboxResolver(const std::string& root, RootFifos fifos = RootFifos::kPossible);
  RootFifos fifos() const { return fifos_; }
  const std::string& root() const { return root_; }
  int root_fd() const { return root_fd_.get(); }

  // `path` made absolute against the traced `cwd` (textual join; the kernel resolves `..`).
  static std::string absolute(std::string_view cwd, std::string_view path);
  // Lexical normalisation ("/a/./b/../c" -> "/a/c"): used for bookkeeping keys (cwd, --init's
  // inventory), never for resolution, which the kernel does.
  static std::string normalise(std::string_view abs);
  // Classifies an absolute traced path before it is used.
  static PathVerdict check(std::string_view abs_path);
  // Repeated slashes collapsed ("//dev//sda" -> "/dev/sda"), for classifying paths.
  static std::string squeeze_slashes(std::string_view path);
  // Whether `path` is `dir` or below it ("/dev" holds "/dev/x", not "/devices").
  static bool under(std::string_view path, std::string_view dir);

  // Where a traced relative path started: a directory inside the root that stands for the traced
  // call's cwd or dirfd (an O_PATH or directory fd the sandbox opened), and the path as traced.
  // The kernel then walks from it, RESOLVE_BENEATH, the components the traced call walked, not
  // the whole absolute path from the root: git's `.git/...` opens relative to its work tree
  // replayed at 1.2-1.6 of traced, walking five more components. A path that leaves the base
  // (`..` above it, an absolute symlink: EXDEV) is walked from the root as before.
  struct Base {
    int dirfd = -1;
    std::string_view path;
  };

  // openat2 of an absolute traced path inside the root. Returns the fd or -errno.
  // Device nodes and sockets found inside the root are refused with -EPERM (a planted device node
  // must not be written). A FIFO (the trace's mkfifo) opens non-blocking, its writer read-write
  // when no reader has it yet, so it never blocks the replay: a stream (stream_io.h); with
  // RootFifos::kNone a FIFO found all the same is refused like a device node. `span`
  // (optional): when the openat2 itself ran (the type check after it is the sandbox's).
  // `fifo` (optional): set when the fd is such a FIFO.
  // `base` (optional): the same object, named relative to a Base (above).
  int open(std::string_view abs_path, int flags, mode_t mode, SyscallSpan* span = nullptr, bool* fifo = nullptr,
           const Base* base = nullptr) const;
  // O_PATH fd of the object; `follow` = follow a final symlink (inside the root). fd or -errno.
  int open_object(std::string_view abs_path, bool follow, const Base* base = nullptr) const;

  // The directory containing the last component, and that component. When the path ends in
  // "." or ".." or is "/" there is no name to act on: `name` is empty and `dir` is the object
  // itself (a directory), so callers never hand ".." to an *at call relative to the root.
  struct Parent {
    UniqueFd dir;
    std::string name;
  };
  // `base` (optional): the traced path's directory part is walked from it, its last name kept
  // as traced (a path leaving the base is resolved from the root, as without one).
  int open_parent(std::string_view abs_path, Parent* out, const Base* base = nullptr) const;

  // Root-relative form used with RESOLVE_IN_ROOT ("/a/b" -> "a/b", "/" -> ".").
  static std::string_view relative(std::string_view abs_path);

 private:
  bool is_fifo(std::string_view abs_path) const;
  int openat2_in_root(std::string_view rel, int flags, mode_t mode, SyscallSpan* span = nullptr) const;
  // From `base` when it is given and the path stays beneath it, else from the root (with an empty
  // `abs_path`: kLeftTheBase instead).
  static constexpr int kLeftTheBase = -EXDEV;
  int openat2_from(const Base* base, std::string_view abs_path, int flags, mode_t mode, SyscallSpan* span) const;

  std::string root_;
  UniqueFd root_fd_;
  RootFifos fifos_;
};

// A path through which the runtime's own syscalls can act on an O_PATH fd of the calling thread's
// fd table ("/proc/thread-self/fd/N").
// The fd was resolved inside the root, so following this magic link stays inside it.
std::string fd_path(int fd);

// access / chmod / utimes(NULL) on an O_PATH fd resolved inside the root; 0 or -errno. They use the
// AT_EMPTY_PATH forms (faccessat2, fchmodat2, utimensat), so the timed call walks no path: through
// fd_path() it walked /proc's magic link and took about twice the traced call's time (issue 15).
// A kernel without these forms gets fd_path().
int64_t access_object(int fd, int mode);
int64_t chmod_object(int fd, mode_t mode);
int64_t touch_object(int fd);

}  // namespace rastro::replay
