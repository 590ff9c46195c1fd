#include "trace/common/fd_table.h"

#include "common/at_fdcwd.h"

namespace rastro::trace {

void FdTable::on_clone(int parent, int child, bool share_files, bool share_fs) {
  tasks_.clone(parent, child, share_files, share_fs);
}

void FdTable::on_exec(int tid) { tasks_.exec(tid); }

void FdTable::on_exit(int tid) { tasks_.exit(tid); }

void FdTable::set(int tid, int fd, std::string_view path, bool cloexec) {
  Entry& e = tasks_.get(tid).files->fds[fd];
  e.path.assign(path);
  e.cloexec = cloexec;
}

void FdTable::close(int tid, int fd) {
  if (auto* t = tasks_.find(tid)) t->files->fds.erase(fd);
}

void FdTable::dup(int tid, int oldfd, int newfd, bool cloexec) {
  auto& fds = tasks_.get(tid).files->fds;
  auto it = fds.find(oldfd);
  if (it == fds.end()) {
    fds.erase(newfd);
    return;
  }
  Entry e{it->second.path, cloexec};
  fds[newfd] = std::move(e);
}

const std::string* FdTable::path(int tid, int fd) const {
  const auto* t = tasks_.find(tid);
  if (!t) return nullptr;
  auto e = t->files->fds.find(fd);
  return e == t->files->fds.end() ? nullptr : &e->second.path;
}

void FdTable::set_cwd(int tid, std::string_view path) {
  tasks_.get(tid).cwd->assign(path);  // shared with CLONE_FS siblings, as in the kernel
}

const std::string* FdTable::cwd(int tid) const {
  const auto* t = tasks_.find(tid);
  return !t || t->cwd->empty() ? nullptr : t->cwd.get();
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

void FdTable::rename_task(int from, int to) { tasks_.rename(from, to); }

}  // namespace rastro::trace
