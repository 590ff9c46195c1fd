// The kernel's per-syscall role words come from the syscall table.
#include "capture/ebpf/fs_roles.h"

#include <linux/types.h>

#include <gtest/gtest.h>

#include "capture/ebpf/fs_events.h"

namespace rastro::capture::ebpf {
namespace {

TEST(EbpfFsRoles, FsSetMarksPathsFdsPairsAndExec) {
  auto set = trace::parse_syscall_set("fs");
  ASSERT_TRUE(set.ok()) << set.error();
  auto roles = build_roles(set.value());
  // openat(dirfd, path, flags, mode)
  EXPECT_TRUE(roles[257] & FS_ROLE_WANTED);
  EXPECT_EQ(FS_ROLE_ARG(roles[257], 0), FS_ROLE_FD);
  EXPECT_EQ(FS_ROLE_ARG(roles[257], 1), FS_ROLE_PATH);
  EXPECT_EQ(FS_ROLE_ARG(roles[257], 2), FS_ROLE_NONE);
  // write(fd, buf, count)
  EXPECT_EQ(FS_ROLE_ARG(roles[1], 0), FS_ROLE_FD);
  EXPECT_EQ(FS_ROLE_ARG(roles[1], 1), FS_ROLE_NONE);
  // rename(old, new), pipe(fds), socketpair(..., fds)
  EXPECT_EQ(FS_ROLE_ARG(roles[82], 0), FS_ROLE_PATH);
  EXPECT_EQ(FS_ROLE_ARG(roles[82], 1), FS_ROLE_PATH);
  EXPECT_EQ(FS_ROLE_ARG(roles[22], 0), FS_ROLE_FDPAIR);
  EXPECT_EQ(FS_ROLE_ARG(roles[53], 3), FS_ROLE_FDPAIR);
  EXPECT_TRUE(roles[59] & FS_ROLE_EXEC);
  EXPECT_TRUE(roles[72] & FS_ROLE_LOCK);  // fcntl: lock commands' struct flock is read
  EXPECT_FALSE(roles[73] & FS_ROLE_LOCK);  // flock takes no struct
  EXPECT_FALSE(roles[257] & FS_ROLE_EXEC);
  EXPECT_EQ(roles[39], 0);  // getpid: not selected
}

TEST(EbpfFsRoles, SelectionIsExact) {
  auto set = trace::parse_syscall_set("umask");
  ASSERT_TRUE(set.ok()) << set.error();
  auto roles = build_roles(set.value());
  for (int nr = 0; nr < kRoleSlots; ++nr) {
    if (nr == 95)
      EXPECT_EQ(roles[95], FS_ROLE_WANTED);
    else
      EXPECT_EQ(roles[static_cast<size_t>(nr)], 0) << nr;
  }
  auto all = trace::parse_syscall_set("all");
  ASSERT_TRUE(all.ok());
  auto roles_all = build_roles(all.value());
  EXPECT_EQ(roles_all[39], FS_ROLE_WANTED);   // unknown to the table, still recorded
  EXPECT_EQ(roles_all[511], FS_ROLE_WANTED);
}

}  // namespace
}  // namespace rastro::capture::ebpf
