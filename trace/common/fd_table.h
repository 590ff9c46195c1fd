// Per-task file-descriptor -> path tracking for importers that only see syscalls (strace logs
// without -y): the one process model (process_model.h, the kernel's sharing rules for clone,
// CLONE_FILES, CLONE_FS and execve's O_CLOEXEC) with a path per fd and a path as the cwd.
// Paths are what the kernel would report for the fd (absolute when the open path or the
// dirfd/cwd it is relative to is known), else the path as the program passed it.
#pragma once

#include <string>
#include <string_view>

#include "trace/common/process_model.h"

namespace rastro::trace {

class FdTable {
 public:
  // A task seen for the first time gets an empty table and an unknown cwd.
  void on_clone(int parent_tid, int child_tid, bool share_files, bool share_fs);
  void on_exec(int tid);
  // Forgets `tid` (its tables live on while shared with other tasks).
  void on_exit(int tid);

  void set(int tid, int fd, std::string_view path, bool cloexec = false);
  void close(int tid, int fd);
  void dup(int tid, int oldfd, int newfd, bool cloexec);
  // nullptr when unknown. The pointer is valid until the next change of that table.
  const std::string* path(int tid, int fd) const;

  void set_cwd(int tid, std::string_view path);
  const std::string* cwd(int tid) const;
  // Joins a relative `path` to dirfd's path (AT_FDCWD = -100: the cwd) when known; an absolute
  // path or an unknown base returns `path` unchanged. Does not touch "." / ".." components.
  std::string resolve(int tid, int dirfd, std::string_view path) const;
  // Moves everything known about `from` to `to` (a task first seen under a placeholder id).
  void rename_task(int from, int to);

 private:
  struct Entry {
    std::string path;
    bool cloexec = false;
  };
  // Cwd "" = unknown.
  ProcessModel<Entry, std::string> tasks_;
};

}  // namespace rastro::trace
