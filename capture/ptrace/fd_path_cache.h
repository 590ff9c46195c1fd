// fd -> path of traced processes (like `strace -y`), without a readlink per event.
//
// A path is read once from /proc/PID/fd/N on first use and kept until the fd may have changed:
// the tracer reports every call that can *replace* an open fd number (close, close_range, dup2,
// dup3, fd-returning calls, exec). Calls the tracer does not stop for (memfd_create, eventfd,
// recvmsg SCM_RIGHTS, ...) can only take a *free* number, which is never cached, so the cache
// stays right as long as those bookkeeping calls are traced (the seccomp filter always
// includes them). Processes sharing an fd table without being threads (clone(CLONE_FILES)
// without CLONE_THREAD) are not tracked as sharing.
//
// Not the process model of trace/common/process_model.h on purpose: the tracer can ask the kernel
// (/proc), so it caches the kernel's answer and only needs to know when to forget it, instead of
// working the fd table out from the calls as the importers and passes must.
#pragma once

#include <sys/types.h>

#include <unordered_map>

#include "trace/model/string_table.h"

namespace rastro::capture {

class FdPathCache {
 public:
  explicit FdPathCache(trace::StringTable& strings) : strings_(strings) {}
  // The interned path of `fd` in process `tgid` (read through task `tid`), or kNoStr.
  trace::StrId lookup(pid_t tgid, pid_t tid, int fd);
  void forget(pid_t tgid, int fd);
  void forget_range(pid_t tgid, unsigned first, unsigned last);
  void forget_process(pid_t tgid);
  // The working directory of `tgid` (strace -y shows it for AT_FDCWD), read once from
  // /proc/TID/cwd and kept until forget_cwd() (chdir, fchdir, chroot).
  trace::StrId cwd(pid_t tgid, pid_t tid);
  void forget_cwd(pid_t tgid) { cwd_.erase(tgid); }
  uint64_t readlinks() const { return readlinks_; }

 private:
  trace::StringTable& strings_;
  std::unordered_map<pid_t, std::unordered_map<int, trace::StrId>> table_;
  std::unordered_map<pid_t, trace::StrId> cwd_;
  uint64_t readlinks_ = 0;
};

}  // namespace rastro::capture
