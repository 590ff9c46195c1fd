// Checks the syscall table against the kernel's own numbers (<asm/unistd_64.h>, and this kernel's
// syscall tracepoints for the rows newer than that header), which we did not write.
#include "trace/syscalls/syscall_table.h"

#include <asm/unistd_64.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

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

// The rows Debian 12's header does not know (newer syscalls): checked against the running kernel
// by TheRowsNewerThanTheHeaderAreThisKernelsNumbers.
std::vector<const SyscallInfo*> rows_newer_than_the_header() {
  auto kernel = kernel_numbers();
  std::vector<const SyscallInfo*> out;
  for (const auto& s : all_syscalls())
    if (!kernel.count(std::string(s.name))) out.push_back(&s);
  return out;
}

TEST(SyscallTable, NumbersMatchKernelHeader) {
  auto kernel = kernel_numbers();
  ASSERT_GT(kernel.size(), 300u) << "could not read asm/unistd_64.h";
  for (const auto& s : all_syscalls()) {
    auto it = kernel.find(std::string(s.name));
    if (it != kernel.end()) {
      EXPECT_EQ(it->second, s.nr) << s.name;
    }
  }
  EXPECT_EQ(__NR_openat, syscall_by_name("openat")->nr);
}

// Each newer row's number is the running kernel's: a perf counter on the row's own syscall
// tracepoint counts exactly one call when a child issues syscall(nr) (with invalid arguments; in a
// child because uprobe/uretprobe answer a call from outside their trampoline with SIGSEGV).
TEST(SyscallTable, TheRowsNewerThanTheHeaderAreThisKernelsNumbers) {
  if (!std::filesystem::exists("/sys/kernel/tracing/events/syscalls"))
    GTEST_SKIP() << "tracefs syscall events are not available here";
  auto newer = rows_newer_than_the_header();
  ASSERT_FALSE(newer.empty());
  for (const SyscallInfo* s : newer) {
    std::ifstream id_file("/sys/kernel/tracing/events/syscalls/sys_enter_" + std::string(s->name) + "/id");
    long long id = -1;
    if (!(id_file >> id)) {
      // Built out of this kernel (map_shadow_stack without CONFIG_X86_USER_SHADOW_STACK): its
      // number is the table's; nothing here can confirm it.
      std::printf("%s: no tracepoint in this kernel, number not checked\n", std::string(s->name).c_str());
      continue;
    }
    perf_event_attr attr{};
    attr.type = PERF_TYPE_TRACEPOINT;
    attr.size = sizeof attr;
    attr.config = static_cast<uint64_t>(id);
    attr.inherit = 1;
    attr.disabled = 0;
    int fd = static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
    if (fd < 0) GTEST_SKIP() << "perf_event_open on a tracepoint: " << std::strerror(errno) << " (needs root)";
    pid_t pid = ::fork();
    if (pid == 0) {
      ::syscall(s->nr, -1L, 0L, 0L, 0L, 0L, 0L);
      std::_Exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    uint64_t count = 0;
    ASSERT_EQ(::read(fd, &count, sizeof count), static_cast<ssize_t>(sizeof count));
    ::close(fd);
    EXPECT_EQ(count, 1u) << s->name << " (" << s->nr << ") is not this kernel's syscall of that name";
  }
}

TEST(SyscallTable, EveryTracepointSyscallOfThisKernelHasARow) {
  if (!std::filesystem::exists("/sys/kernel/tracing/events/syscalls"))
    GTEST_SKIP() << "tracefs syscall events are not available here";
  // The kernel's entry-point names that differ from the syscall's (<asm/unistd_64.h>'s) name.
  const std::map<std::string, std::string> kAlias = {{"newstat", "stat"},     {"newfstat", "fstat"},
                                                     {"newlstat", "lstat"},   {"newuname", "uname"},
                                                     {"umount", "umount2"},   {"sendfile64", "sendfile"}};
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/kernel/tracing/events/syscalls")) {
    std::string name = entry.path().filename().string();
    if (name.rfind("sys_enter_", 0) != 0) continue;
    name = name.substr(10);
    if (auto it = kAlias.find(name); it != kAlias.end()) name = it->second;
    EXPECT_NE(syscall_by_name(name), nullptr) << name << " has no row";
    ++n;
  }
  EXPECT_GT(n, 300);
}

TEST(SyscallTable, EveryKernelHeaderNumberHasARow) {
  auto kernel = kernel_numbers();
  ASSERT_GT(kernel.size(), 300u) << "could not read asm/unistd_64.h";
  for (const auto& [name, nr] : kernel) {
    const SyscallInfo* s = syscall_by_nr(nr);
    ASSERT_NE(s, nullptr) << name << " (" << nr << ") has no row";
    EXPECT_EQ(s->name, name);
  }
  EXPECT_EQ(kernel.size() + rows_newer_than_the_header().size(), all_syscalls().size());
  EXPECT_EQ(syscall_by_name("io_uring_enter")->nr, 426);
  EXPECT_EQ(syscall_by_name("clock_nanosleep")->nr, 230);
}

// One argument as the kernel declares it in tracefs (events/syscalls/sys_enter_<name>/format).
struct KernelArg {
  std::string type, name;
};

// The kernel's own argument list of a syscall, or nullopt when tracefs has no event for it.
std::optional<std::vector<KernelArg>> tracefs_args(std::string name) {
  // The kernel names a few x86_64 entry points differently from <asm/unistd_64.h>.
  static const std::map<std::string, std::string> kEntryName = {
      {"stat", "newstat"}, {"fstat", "newfstat"}, {"lstat", "newlstat"},
      {"uname", "newuname"}, {"umount2", "umount"}, {"sendfile", "sendfile64"}};
  if (auto it = kEntryName.find(name); it != kEntryName.end()) name = it->second;
  std::ifstream in("/sys/kernel/tracing/events/syscalls/sys_enter_" + name + "/format");
  if (!in) return std::nullopt;
  std::vector<KernelArg> out;
  // "field:const char * filename;	offset:24;..." — arguments follow __syscall_nr (offset 16 on).
  std::regex re(R"(field:(.*?)\s*(\w+);\s*offset:(\d+);)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re) && std::stoi(m[3]) >= 16) out.push_back({m[1], m[2]});
  // preadv/pwritev(2) take the offset as (pos_l, pos_h); on x86_64 pos_l holds all of it and the
  // table, like strace, shows one offset argument.
  std::erase_if(out, [](const KernelArg& a) { return a.name == "pos_h"; });
  return out;
}

bool is_pointer(const KernelArg& a) { return a.type.find('*') != std::string::npos; }

TEST(SyscallTable, ArgumentCountsAndRolesMatchTheKernelsPrototypes) {
  if (!std::filesystem::exists("/sys/kernel/tracing/events/syscalls"))
    GTEST_SKIP() << "tracefs syscall events are not available here (no CONFIG_FTRACE_SYSCALLS or not mounted)";
  // The kernel's names of fd and dirfd arguments, and of path arguments.
  const std::set<std::string> fd_names = {"fd", "ufd", "epfd", "fdin", "fdout", "fd_in", "fd_out", "fs_fd",
                                          "fanotify_fd", "ruleset_fd", "pidfd", "mqdes", "group_fd",
                                          "mountdirfd", "oldfd", "newfd", "fildes", "out_fd", "in_fd", "dfd",
                                          "dirfd", "olddfd", "newdfd", "from_dfd", "to_dfd"};
  const std::set<std::string> path_names = {"filename", "pathname", "path", "oldname", "newname", "new_root",
                                            "put_old", "specialfile", "special", "dir_name", "from_pathname",
                                            "to_pathname"};
  int checked = 0;
  for (const SyscallInfo& s : all_syscalls()) {
    auto kargs = tracefs_args(std::string(s.name));
    if (!kargs) continue;  // a stub the kernel does not build (afs_syscall, tuxcall, ...)
    ++checked;
    ASSERT_EQ(kargs->size(), s.nargs) << s.name << ": argument count differs from the kernel's";
    for (size_t i = 0; i < kargs->size(); ++i) {
      const KernelArg& k = (*kargs)[i];
      const ArgType t = s.args[i];
      const bool fd_role = t == ArgType::kFd || t == ArgType::kDirFd;
      EXPECT_EQ(fd_role, !is_pointer(k) && fd_names.count(k.name) > 0) << s.name << " arg " << i << " " << k.name;
      if (path_names.count(k.name) && is_pointer(k)) {
        EXPECT_EQ(t, ArgType::kPath) << s.name << " arg " << i;
      }
      if (t == ArgType::kPath || t == ArgType::kStr) {
        EXPECT_NE(k.type.find("char *"), std::string::npos) << s.name << " arg " << i << " is not a string";
      }
      if (k.type == "uid_t" || k.type == "gid_t") {
        EXPECT_EQ(t, ArgType::kUid) << s.name << " arg " << i;
      }
      if (t == ArgType::kFdPair) {
        EXPECT_TRUE(is_pointer(k)) << s.name;
      }
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(SyscallTable, EachArgumentIsReadFromTheRegisterTheKernelPassesItIn) {
  if (!std::filesystem::exists("/sys/kernel/tracing/events/syscalls"))
    GTEST_SKIP() << "tracefs syscall events are not available here (no CONFIG_FTRACE_SYSCALLS or not mounted)";
  int split = 0;
  for (const SyscallInfo& s : all_syscalls()) {
    std::ifstream in("/sys/kernel/tracing/events/syscalls/sys_enter_" + std::string(s.name) + "/format");
    if (!in) continue;
    // The kernel's register order, pos_h included (tracefs_args drops it for the table's view).
    std::vector<std::string> names;
    std::regex re(R"(field:.*?\s*(\w+);\s*offset:(\d+);)");
    std::smatch m;
    for (std::string line; std::getline(in, line);)
      if (std::regex_search(line, m, re) && std::stoi(m[2]) >= 16) names.push_back(m[1]);
    auto pos_h = std::find(names.begin(), names.end(), "pos_h");
    const bool kernel_splits = pos_h != names.end() && pos_h + 1 != names.end();  // an argument after it
    EXPECT_EQ(s.split_offset >= 0, kernel_splits) << s.name;
    auto kargs = tracefs_args(std::string(s.name));
    for (size_t i = 0; kargs && i < kargs->size(); ++i) {
      ASSERT_LT(s.register_of(i), names.size()) << s.name;
      EXPECT_EQ(names[s.register_of(i)], (*kargs)[i].name) << s.name << " arg " << i;
    }
    split += kernel_splits;
  }
  EXPECT_EQ(split, 2) << "preadv2 and pwritev2";
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
  EXPECT_EQ(syscall_by_nr(39)->family, Family::kProcess);  // getpid: no file-system effect
  EXPECT_FALSE(parse_syscall_set("fs").take().contains(39));
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
