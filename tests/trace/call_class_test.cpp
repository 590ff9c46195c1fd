// The call class of each syscall: checked against syscalls whose class a reader of the man pages
// would name, by their kernel numbers (<sys/syscall.h>), not by the table under test.
#include "trace/analysis/call_class.h"

#include <sys/syscall.h>

#include <algorithm>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "trace/syscalls/syscall_table.h"

namespace rastro::trace {
namespace {

std::string class_of(int nr) {
  Event e;
  e.nr = nr;
  return std::string(call_class(e));
}

TEST(CallClass, KnownSyscalls) {
  const std::pair<int, const char*> expected[] = {
      {SYS_read, "data"},         {SYS_pwrite64, "data"},      {SYS_lseek, "data"},
      {SYS_fallocate, "data"},    {SYS_fsync, "sync"},         {SYS_fdatasync, "sync"},
      {SYS_sync, "sync"},         {SYS_newfstatat, "metadata"}, {SYS_access, "metadata"},
      {SYS_getdents64, "metadata"}, {SYS_readlink, "metadata"}, {SYS_rename, "namespace"},
      {SYS_mkdir, "namespace"},   {SYS_unlink, "namespace"},   {SYS_chmod, "namespace"},
      {SYS_openat, "open/close"}, {SYS_close, "open/close"},   {SYS_dup2, "fd"},
      {SYS_fcntl, "fd"},          {SYS_pipe2, "fd"},           {SYS_mmap, "memory"},
      {SYS_munmap, "memory"},     {SYS_clone, "process"},      {SYS_execve, "process"},
      {SYS_exit_group, "process"},
  };
  for (const auto& [nr, cls] : expected) EXPECT_EQ(class_of(nr), cls) << "nr " << nr;
}

TEST(CallClass, UnknownCallsAreOther) {
  EXPECT_EQ(class_of(-1), "other");
  EXPECT_EQ(class_of(100000), "other");
}

TEST(CallClass, EveryTableRowHasAListedClassOtherThanOther) {
  const auto names = call_class_names();
  for (const SyscallInfo& s : all_syscalls()) {
    const std::string c = class_of(s.nr);
    EXPECT_NE(c, "other") << s.name;
    EXPECT_NE(std::find(names.begin(), names.end(), c), names.end()) << s.name << ": " << c;
  }
}

TEST(CallClass, CachedWorkIsEveryListedClassButTheDeviceProcessesAndOther) {
  for (const char* c : {"data", "metadata", "namespace", "open/close", "fd", "memory"}) EXPECT_TRUE(cached_work_class(c)) << c;
  for (const char* c : {"sync", "process", "other", "total", "fsync"}) EXPECT_FALSE(cached_work_class(c)) << c;
}

}  // namespace
}  // namespace rastro::trace
