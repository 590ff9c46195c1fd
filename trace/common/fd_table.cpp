#include "trace/common/fd_table.h"

#include "common/at_fdcwd.h"

namespace rastro::trace {

namespace {
}

FdTable::Files& FdTable::files(int tid) {
  auto& f = files_[tid];
  if (!f) f = std::make_shared<Files>();
  return *f;
}

void FdTable::on_clone(int parent, int child, bool share_files, bool share_fs) {
  Files& pf = files(parent);
  // strace may show the child's first calls before the parent's clone returns; what the child
  // opened meanwhile is kept (in the shared table for threads).
  std::shared_ptr<Files> early;
  if (auto it = files_.find(child); it != files_.end()) early = it->second;
  if (share_files) {
    if (early && early != files_[parent])
      for (auto& kv : *early) pf[kv.first] = kv.second;
    files_[child] = files_[parent];
  } else {
    auto copy = std::make_shared<Files>(pf);
    if (early)
      for (auto& kv : *early) (*copy)[kv.first] = kv.second;
    files_[child] = std::move(copy);
  }
  auto it = cwd_.find(parent);
  if (it != cwd_.end() && it->second) {
    cwd_[child] = share_fs ? it->second : std::make_shared<std::string>(*it->second);
  }
}

void FdTable::on_exec(int tid) {
  auto it = files_.find(tid);
  if (it == files_.end() || !it->second) return;
  // execve gives the task its own table (unshare_files) before closing O_CLOEXEC fds.
  auto own = std::make_shared<Files>(*it->second);
  std::erase_if(*own, [](const auto& kv) { return kv.second.cloexec; });
  it->second = std::move(own);
}

void FdTable::on_exit(int tid) {
  files_.erase(tid);
  cwd_.erase(tid);
}

void FdTable::set(int tid, int fd, std::string_view path, bool cloexec) {
  Entry& e = files(tid)[fd];
  e.path.assign(path);
  e.cloexec = cloexec;
}

void FdTable::close(int tid, int fd) {
  auto it = files_.find(tid);
  if (it != files_.end() && it->second) it->second->erase(fd);
}

void FdTable::dup(int tid, int oldfd, int newfd, bool cloexec) {
  Files& f = files(tid);
  auto it = f.find(oldfd);
  if (it == f.end()) {
    f.erase(newfd);
    return;
  }
  Entry e{it->second.path, cloexec};
  f[newfd] = std::move(e);
}

const std::string* FdTable::path(int tid, int fd) const {
  auto it = files_.find(tid);
  if (it == files_.end() || !it->second) return nullptr;
  auto e = it->second->find(fd);
  return e == it->second->end() ? nullptr : &e->second.path;
}

void FdTable::set_cwd(int tid, std::string_view path) {
  auto& c = cwd_[tid];
  if (c)
    c->assign(path);  // shared with CLONE_FS siblings, as in the kernel
  else
    c = std::make_shared<std::string>(path);
}

const std::string* FdTable::cwd(int tid) const {
  auto it = cwd_.find(tid);
  return it == cwd_.end() || !it->second ? nullptr : it->second.get();
}

std::string FdTable::resolve(int tid, int dirfd, std::string_view p) const {
  if (!p.empty() && p.front() == '/') return std::string(p);
  const std::string* base = dirfd == kAtFdCwd ? cwd(tid) : path(tid, dirfd);
  if (!base || base->empty() || base->front() != '/') return std::string(p);
  if (p.empty()) return *base;
  std::string out = *base;
  if (out.back() != '/') out += '/';
  out += p;
  return out;
}

void FdTable::rename_task(int from, int to) {
  if (auto it = files_.find(from); it != files_.end()) {
    files_[to] = it->second;
    files_.erase(from);
  }
  if (auto it = cwd_.find(from); it != cwd_.end()) {
    cwd_[to] = it->second;
    cwd_.erase(from);
  }
}

}  // namespace rastro::trace
