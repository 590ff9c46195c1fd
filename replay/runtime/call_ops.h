// What every executor family (replay/runtime/exec_*.cpp) needs for one call: its context (the
// traced event, the process, the fd keys, the outcome so far) and the helpers that map traced fds
// and paths into the sandbox. Private to the call executor.
#pragma once

#include <fcntl.h>
#include <sys/types.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/clock.h"
#include "replay/runtime/call_executor.h"
#include "replay/runtime/unique_fd.h"
#include "replay/runtime/xattr_value.h"

namespace rastro::replay {

// Why a traced fd cannot be used in the replay.
SkipReason fd_skip(FdState s);

inline int64_t sysret(long r) { return r < 0 ? -static_cast<int64_t>(errno) : static_cast<int64_t>(r); }

// Everything one execution needs, so helpers stay small.
struct CallCtx {
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

// One call's execution: CallExecutor::run dispatches to the method of the call's family (the
// syscall table's Family column); each family's cases live in exec_<family>.cpp.
class CallOps {
 public:
  CallOps(CallCtx& ctx, const SandboxResolver& sandbox, ProcessTable& procs, const trace::StringTable& strings,
          std::string_view name)
      : c(ctx), e(ctx.e), fds(*ctx.proc.fds), sandbox_(sandbox), procs_(procs), strings_(strings), name_(name) {}

  int64_t open_close();  // exec_open_close.cpp
  int64_t data_io();     // exec_data_io.cpp
  int64_t stat();        // exec_stat.cpp
  int64_t name_space();  // exec_namespace.cpp
  int64_t fd_ops();      // exec_fd_ops.cpp
  int64_t memory();      // exec_memory.cpp
  int64_t page_fault();  // exec_memory.cpp: a kEventPageFault event
  int64_t process();     // exec_process.cpp
  // Counts the call as unsupported (by name) and returns the traced value.
  int64_t unsupported();

 private:
  std::string_view str(int i) const { return strings_.get(e.arg(i).str); }
  // Absolute traced path of path argument `pi`, relative to dirfd argument `di` (-1 = cwd).
  // Returns false with c.skip set when it cannot be used. `base` (optional): where a relative
  // traced path can be walked from, as the traced call walked it (dirfd -1: from the root only).
  bool path_arg(int di, int pi, std::string* out, SandboxResolver::Base* base = nullptr);
  // The directory a relative path argument starts from, open in this thread's table, when it is
  // the one `abs` was made from: the process's cwd (opened once per cwd) or the dirfd's replay fd.
  // `dir_of_abs`: the cwd path_arg made `abs` from, when it made it from the traced path.
  SandboxResolver::Base base_of(int di, int pi, std::string_view abs, const std::string* dir_of_abs);
  // AT_EMPTY_PATH among the call's flags: an empty path then names the dirfd (or the cwd).
  bool empty_path_allowed() const;
  // O_PATH object fd for a path argument; returns -errno, or 1 with c.skip set.
  int64_t object(int di, int pi, bool follow, UniqueFd* out);
  int64_t parent(int di, int pi, SandboxResolver::Parent* out);
  // Maps a newly created replay fd to the traced fd the call returned.
  int64_t install(int key, int replay_fd, bool cloexec, std::string path, bool stream = false);
  int64_t open_path(int di, int pi, int flags, mode_t mode);
  bool reopen_own_fd(int pi, int flags, int64_t* r);
  int64_t dup_to(int from_replay, int new_key, bool cloexec);
  // Makes `call` (one syscall) the request's timed region, where the executor makes other
  // syscalls around it (lookups, bookkeeping that may allocate): the user-space time is the call's
  // alone, and `--time-with ebpf` finds one call in it (kernel_timing.h). errno is kept.
  template <class Call>
  auto the_call(Call&& call) {
    c.scratch.call.begin_ns = monotonic_ns();
    auto r = call();
    const int err = errno;
    c.scratch.call.end_ns = monotonic_ns();
    errno = err;
    return r;
  }
  // A call's fd is not open in the replay: skipped with the reason (c.skip) — unless the traced
  // call failed with EBADF on an fd the process did not hold (closed, or never opened: a shell's
  // or libc's probe, `fcntl(3, F_GETFD)`, `close(-1)`). Then the kernel says EBADF to the replay
  // too, for a stand-in call on an fd no process holds, and the caller returns the traced EBADF.
  void fd_not_open(FdState s) {
    if (e.rvalue == -EBADF && (s == FdState::kClosed || s == FdState::kNone)) {
      the_call([] { return ::fcntl(-1, F_GETFD); });
      return;
    }
    c.skip = fd_skip(s);
  }
  // The replay fd for argument i, or -1 (fd_not_open).
  // (Inline, with bytes(): every read/write calls them; they were lambdas inside run before.)
  int fd_arg(int i) {
    FdLookup l = fds.get(c.key(i));
    if (l.state == FdState::kOpen) return l.fd;
    fd_not_open(l.state);
    return -1;
  }
  // The value of a replayed setxattr of `n` bytes named `name` on the object `fd` refers to (or,
  // with `below`, its entry of that name, not followed):
  // the deterministic write bytes, or a valid POSIX ACL (xattr_value.h).
  const void* xattr_value(std::string_view name, size_t n, int fd, const char* below = "");
  bool xattr_on_name(bool nofollow, int64_t* r);  // exec_namespace.cpp
  // The traced xattr call on `t`, as the timed call: a set writes xattr_value's bytes for the
  // object `value_fd` (or the name `below` it); a get or list fills the scratch read area.
  int64_t xattr(const XattrTarget& t, int value_fd, const char* below = "");
  size_t bytes(int i) const {
    int64_t v = c.a(i);
    return v < 0 ? 0 : static_cast<size_t>(std::min<int64_t>(v, int64_t{1} << 30));
  }
  // readv/writev: the vector is not recorded, so the traced byte count stands for it.
  size_t vec_bytes() const {
    return e.rvalue > 0 ? static_cast<size_t>(std::min<int64_t>(e.rvalue, int64_t{1} << 30)) : 0;
  }

  CallCtx& c;
  const trace::Event& e;
  FdTable& fds;
  const SandboxResolver& sandbox_;
  ProcessTable& procs_;
  const trace::StringTable& strings_;
  std::string_view name_;
};

}  // namespace rastro::replay
