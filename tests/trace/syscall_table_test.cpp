// Checks the syscall table against the kernel's own numbers (<asm/unistd_64.h>), which we did not write.
#include "trace/syscalls/syscall_table.h"

#include <asm/unistd_64.h>

#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>

namespace rastro::trace {
namespace {

std::map<std::string, int> kernel_numbers() {
  std::map<std::string, int> out;
  std::ifstream in("/usr/include/x86_64-linux-gnu/asm/unistd_64.h");
  std::regex re(R"(#define __NR_(\w+) (\d+))");
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re)) out[m[1]] = std::stoi(m[2]);
  return out;
}

TEST(SyscallTable, NumbersMatchKernelHeader) {
  auto kernel = kernel_numbers();
  ASSERT_GT(kernel.size(), 300u) << "could not read asm/unistd_64.h";
  for (const auto& s : all_syscalls()) {
    auto it = kernel.find(std::string(s.name));
    ASSERT_NE(it, kernel.end()) << s.name << " is not a kernel syscall name";
    EXPECT_EQ(it->second, s.nr) << s.name;
  }
  EXPECT_EQ(__NR_openat, syscall_by_name("openat")->nr);
}

TEST(SyscallTable, SortedAndArgCountsConsistent) {
  int prev = -1;
  for (const auto& s : all_syscalls()) {
    EXPECT_GT(s.nr, prev);
    prev = s.nr;
    for (int i = 0; i < kMaxArgs; ++i)
      EXPECT_EQ(i < s.nargs, s.args[static_cast<size_t>(i)] != ArgType::kNone) << s.name << " arg " << i;
    EXPECT_EQ(syscall_by_nr(s.nr), &s);
  }
  EXPECT_EQ(syscall_by_nr(39), nullptr);  // getpid: not a file-system call
}

TEST(SyscallSet, ParsesClassesNamesAndNegation) {
  auto fs = parse_syscall_set("fs").take();
  EXPECT_TRUE(fs.contains(__NR_openat));
  EXPECT_TRUE(fs.contains(__NR_clone));
  EXPECT_FALSE(fs.contains(__NR_ioctl));
  auto some = parse_syscall_set("%read,!pread64,rename").take();
  EXPECT_TRUE(some.contains(__NR_read));
  EXPECT_FALSE(some.contains(__NR_pread64));
  EXPECT_TRUE(some.contains(__NR_rename));
  EXPECT_FALSE(some.contains(__NR_write));
  EXPECT_TRUE(parse_syscall_set("all").take().contains(39));
  auto bad = parse_syscall_set("read,frobnicate");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("frobnicate"), std::string::npos);
}

// Checked against the kernel's numbers (asm/unistd_64.h) and fcntl.h's values, not the table.
TEST(SyscallTable, PathSlotSkipsSymlinksContentAndCountsFileNames) {
  EXPECT_EQ(syscall_by_nr(__NR_symlink)->path_slot(0), -1);     // the link's content
  EXPECT_EQ(syscall_by_nr(__NR_symlink)->path_slot(1), 0);      // the link created
  EXPECT_EQ(syscall_by_nr(__NR_symlinkat)->path_slot(0), -1);
  EXPECT_EQ(syscall_by_nr(__NR_symlinkat)->path_slot(2), 0);
  EXPECT_EQ(syscall_by_nr(__NR_renameat2)->path_slot(1), 0);    // renameat2(olddirfd, old, newdirfd, new, flags)
  EXPECT_EQ(syscall_by_nr(__NR_renameat2)->path_slot(3), 1);
  EXPECT_EQ(syscall_by_nr(__NR_renameat2)->path_slot(0), -1);   // a dirfd
  EXPECT_EQ(syscall_by_nr(__NR_openat)->path_slot(1), 0);
}

TEST(SyscallTable, ReturnsNewFdForFdReturningCallsAndFcntlDuplication) {
  EXPECT_TRUE(syscall_by_nr(__NR_openat)->returns_new_fd(0));
  EXPECT_TRUE(syscall_by_nr(__NR_fcntl)->returns_new_fd(0));     // F_DUPFD
  EXPECT_TRUE(syscall_by_nr(__NR_fcntl)->returns_new_fd(1030));  // F_DUPFD_CLOEXEC
  EXPECT_FALSE(syscall_by_nr(__NR_fcntl)->returns_new_fd(1));    // F_GETFD
  EXPECT_FALSE(syscall_by_nr(__NR_fcntl)->returns_new_fd(4));    // F_SETFL
  EXPECT_FALSE(syscall_by_nr(__NR_read)->returns_new_fd(0));
  EXPECT_TRUE(is_dup_fd_command(0));
  EXPECT_FALSE(is_dup_fd_command(2));
}

}  // namespace
}  // namespace rastro::trace
