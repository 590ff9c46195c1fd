#include "capture/ptrace/fd_path_cache.h"

#include <unistd.h>

#include <cstdio>

namespace rastro::capture {

trace::StrId FdPathCache::lookup(pid_t tgid, pid_t tid, int fd) {
  if (fd < 0) return trace::kNoStr;
  auto& fds = table_[tgid];
  auto it = fds.find(fd);
  if (it != fds.end()) return it->second;
  char link[64];
  std::snprintf(link, sizeof link, "/proc/%d/fd/%d", tid, fd);
  char target[4097];
  ++readlinks_;
  ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return trace::kNoStr;  // not open (EBADF call) or the task is gone: do not cache
  trace::StrId id = strings_.intern(std::string_view(target, static_cast<size_t>(n)));
  fds.emplace(fd, id);
  return id;
}

void FdPathCache::forget(pid_t tgid, int fd) {
  auto it = table_.find(tgid);
  if (it != table_.end()) it->second.erase(fd);
}

void FdPathCache::forget_range(pid_t tgid, unsigned first, unsigned last) {
  auto it = table_.find(tgid);
  if (it == table_.end()) return;
  for (auto f = it->second.begin(); f != it->second.end();) {
    auto fd = static_cast<unsigned>(f->first);
    f = (fd >= first && fd <= last) ? it->second.erase(f) : std::next(f);
  }
}

void FdPathCache::forget_process(pid_t tgid) {
  table_.erase(tgid);
  cwd_.erase(tgid);
}

trace::StrId FdPathCache::cwd(pid_t tgid, pid_t tid) {
  auto it = cwd_.find(tgid);
  if (it != cwd_.end()) return it->second;
  char link[64];
  std::snprintf(link, sizeof link, "/proc/%d/cwd", tid);
  char target[4097];
  ++readlinks_;
  ssize_t n = ::readlink(link, target, sizeof target - 1);
  if (n <= 0) return trace::kNoStr;
  trace::StrId id = strings_.intern(std::string_view(target, static_cast<size_t>(n)));
  cwd_.emplace(tgid, id);
  return id;
}

}  // namespace rastro::capture
