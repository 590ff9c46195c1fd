// FdTable follows the kernel's sharing rules (clone(2), execve(2) O_CLOEXEC).
#include "trace/common/fd_table.h"

#include <gtest/gtest.h>

namespace rastro::trace {
namespace {

std::string path_or_none(const FdTable& t, int tid, int fd) {
  const std::string* p = t.path(tid, fd);
  return p ? *p : "<none>";
}

TEST(FdTable, OpenDupCloseAndRelativePaths) {
  FdTable t;
  t.set_cwd(10, "/home/u");
  EXPECT_EQ(t.resolve(10, -100, "a.txt"), "/home/u/a.txt");
  EXPECT_EQ(t.resolve(10, -100, "/abs"), "/abs");
  t.set(10, 3, "/home/u/dir");
  EXPECT_EQ(t.resolve(10, 3, "f"), "/home/u/dir/f");
  EXPECT_EQ(t.resolve(10, 7, "f"), "f") << "unknown dirfd keeps the path as given";
  EXPECT_EQ(t.resolve(11, -100, "f"), "f") << "unknown cwd keeps the path as given";
  t.dup(10, 3, 9, false);
  EXPECT_EQ(path_or_none(t, 10, 9), "/home/u/dir");
  t.close(10, 3);
  EXPECT_EQ(path_or_none(t, 10, 3), "<none>");
  EXPECT_EQ(path_or_none(t, 10, 9), "/home/u/dir");
  t.dup(10, 42, 9, false);  // dup2 of an unknown fd: 9 no longer names the old file
  EXPECT_EQ(path_or_none(t, 10, 9), "<none>");
}

TEST(FdTable, ThreadsShareForksCopyExecClosesCloexec) {
  FdTable t;
  t.set(1, 3, "/a");
  t.set(1, 4, "/b", /*cloexec=*/true);
  t.set_cwd(1, "/w");
  t.on_clone(1, 2, /*share_files=*/true, /*share_fs=*/true);   // a thread
  t.on_clone(1, 5, /*share_files=*/false, /*share_fs=*/false);  // fork
  t.set(2, 6, "/c");
  EXPECT_EQ(path_or_none(t, 1, 6), "/c") << "threads share the table";
  EXPECT_EQ(path_or_none(t, 5, 6), "<none>") << "a forked child has its own copy";
  EXPECT_EQ(path_or_none(t, 5, 3), "/a");
  t.set_cwd(2, "/x");
  EXPECT_EQ(*t.cwd(1), "/x") << "CLONE_FS shares the cwd";
  EXPECT_EQ(*t.cwd(5), "/w");
  t.on_exec(5);
  EXPECT_EQ(path_or_none(t, 5, 4), "<none>");
  EXPECT_EQ(path_or_none(t, 5, 3), "/a");
  EXPECT_EQ(path_or_none(t, 1, 4), "/b") << "exec in the child leaves the parent alone";
  t.rename_task(1, 100);
  EXPECT_EQ(path_or_none(t, 100, 3), "/a");
  EXPECT_EQ(path_or_none(t, 1, 3), "<none>");
}

}  // namespace
}  // namespace rastro::trace
