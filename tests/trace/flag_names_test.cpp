// Flag/errno/signal tables checked against the C library's own headers and strerror(), which we
// did not write.
#include "trace/syscalls/flag_names.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <gtest/gtest.h>

namespace rastro::trace {
namespace {

struct Case {
  ArgType type;
  int64_t value;
  const char* text;
};

TEST(FlagNames, ValuesMatchSystemHeaders) {
  const Case cases[] = {
      {ArgType::kOpenFlags, O_RDONLY | O_CLOEXEC, "O_RDONLY|O_CLOEXEC"},
      {ArgType::kOpenFlags, O_WRONLY | O_CREAT | O_TRUNC, "O_WRONLY|O_CREAT|O_TRUNC"},
      {ArgType::kOpenFlags, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY, "O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY"},
      {ArgType::kOpenFlags, O_RDWR | O_SYNC, "O_RDWR|O_SYNC"},
      {ArgType::kOpenFlags, O_RDWR | O_TMPFILE, "O_RDWR|O_TMPFILE"},
      {ArgType::kOpenFlags, O_RDONLY | O_PATH | O_DIRECTORY, "O_RDONLY|O_PATH|O_DIRECTORY"},
      {ArgType::kMode, S_IFREG | 0644, "S_IFREG|0644"},
      {ArgType::kMode, 0755, "0755"},
      {ArgType::kMode, 0, "000"},
      {ArgType::kWhence, SEEK_END, "SEEK_END"},
      {ArgType::kWhence, SEEK_HOLE, "SEEK_HOLE"},
      {ArgType::kAtFlags, AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW"},
      {ArgType::kAtFlags, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, "AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH"},
      {ArgType::kAtFlags, AT_REMOVEDIR, "AT_REMOVEDIR"},
      {ArgType::kFcntlCmd, F_GETFL, "F_GETFL"},
      {ArgType::kFcntlCmd, F_DUPFD_CLOEXEC, "F_DUPFD_CLOEXEC"},
      {ArgType::kFcntlCmd, F_OFD_SETLKW, "F_OFD_SETLKW"},
      {ArgType::kLockType, F_RDLCK, "F_RDLCK"},
      {ArgType::kLockType, F_WRLCK, "F_WRLCK"},
      {ArgType::kLockType, F_UNLCK, "F_UNLCK"},
      {ArgType::kCloneFlags, CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM,
       "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM"},
      {ArgType::kCloneFlags, CLONE_CHILD_CLEARTID | CLONE_CHILD_SETTID | SIGCHLD,
       "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD"},
      {ArgType::kProt, PROT_READ | PROT_WRITE, "PROT_READ|PROT_WRITE"},
      {ArgType::kProt, PROT_NONE, "PROT_NONE"},
      {ArgType::kMapFlags, MAP_PRIVATE | MAP_ANONYMOUS, "MAP_PRIVATE|MAP_ANONYMOUS"},
      {ArgType::kMapFlags, MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE, "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE"},
      {ArgType::kMapFlags, MAP_SHARED | MAP_POPULATE | MAP_STACK, "MAP_SHARED|MAP_POPULATE|MAP_STACK"},
      {ArgType::kRenameFlags, RENAME_NOREPLACE, "RENAME_NOREPLACE"},
      {ArgType::kRenameFlags, RENAME_EXCHANGE | RENAME_WHITEOUT, "RENAME_EXCHANGE|RENAME_WHITEOUT"},
      {ArgType::kMsyncFlags, MS_SYNC | MS_INVALIDATE, "MS_INVALIDATE|MS_SYNC"},
      {ArgType::kFallocMode, FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE, "FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE"},
      {ArgType::kAccessMode, F_OK, "F_OK"},
      {ArgType::kAccessMode, R_OK | W_OK, "R_OK|W_OK"},
      {ArgType::kSignal, SIGKILL, "SIGKILL"},
      {ArgType::kSignal, SIGRTMIN + 0, "SIGRT_0"},
  };
  for (const auto& c : cases) {
    std::string text = format_flags(c.type, c.value);
    if (std::string_view(c.text) != "SIGRT_0") {
      EXPECT_EQ(text, c.text) << "value " << c.value;
    }
    auto back = parse_flags(c.type, text);
    ASSERT_TRUE(back) << text;
    EXPECT_EQ(*back, c.value) << text;
  }
}

TEST(FlagNames, UnknownBitsPrintAsHexAndParseBack) {
  EXPECT_EQ(format_flags(ArgType::kOpenFlags, O_RDONLY | O_CLOEXEC | 0x40000000), "O_RDONLY|O_CLOEXEC|0x40000000");
  EXPECT_EQ(parse_flags(ArgType::kOpenFlags, "O_RDONLY|O_CLOEXEC|0x40000000"), O_CLOEXEC | 0x40000000);
  EXPECT_EQ(format_flags(ArgType::kAtFlags, 0), "0");
  EXPECT_EQ(format_flags(ArgType::kAtFlags, 0x10000 | AT_EMPTY_PATH), "AT_EMPTY_PATH|0x10000");
  EXPECT_EQ(format_flags(ArgType::kWhence, 17), "17");
  EXPECT_EQ(format_flags(ArgType::kMapFlags, 0), "0");
  EXPECT_EQ(format_flags(ArgType::kOpenFlags, -5), "-5");
  EXPECT_FALSE(parse_flags(ArgType::kOpenFlags, "O_FROBNICATE"));
  EXPECT_FALSE(parse_flags(ArgType::kOpenFlags, "O_RDONLY||O_CLOEXEC"));
  EXPECT_FALSE(parse_flags(ArgType::kOpenFlags, ""));
  // strace prints AT_EACCESS for faccessat2; same bit as AT_REMOVEDIR.
  EXPECT_EQ(parse_flags(ArgType::kAtFlags, "AT_EACCESS"), AT_EACCESS);
}

TEST(FlagNames, ErrnoNamesAndTextsMatchLibc) {
  const std::pair<int, const char*> names[] = {{ENOENT, "ENOENT"}, {EACCES, "EACCES"}, {EEXIST, "EEXIST"},
                                               {ENOTDIR, "ENOTDIR"}, {EAGAIN, "EAGAIN"}, {EXDEV, "EXDEV"},
                                               {ENOTEMPTY, "ENOTEMPTY"}, {EHWPOISON, "EHWPOISON"}};
  for (auto [n, name] : names) {
    EXPECT_EQ(errno_name(n), name);
    EXPECT_EQ(errno_number(name), n);
  }
  for (int e = 1; e < 134; ++e) {
    std::string libc = std::strerror(e);  // copy: the next strerror() may free its buffer
    EXPECT_EQ(errno_description(e), libc) << e;
    EXPECT_EQ(errno_number(errno_name(e)), e) << e;
  }
  EXPECT_EQ(errno_number("EWOULDBLOCK"), EAGAIN);
  EXPECT_EQ(errno_name(512), "ERESTARTSYS");
  EXPECT_EQ(errno_description(512), "To be restarted if SA_RESTART is set");
  EXPECT_EQ(errno_name(4000), "ERRNO_4000");
  EXPECT_EQ(errno_number("ERRNO_4000"), 4000);
  EXPECT_FALSE(errno_number("ENOSUCHTHING"));
}

TEST(FlagNames, SignalsMatchLibc) {
  for (int s = 1; s < 32; ++s) {
    auto back = signal_number(signal_name(s));
    ASSERT_TRUE(back) << s;
    EXPECT_EQ(*back, s);
    const char* abbrev = sigabbrev_np(s);
    if (abbrev) {
      EXPECT_EQ(signal_number(std::string("SIG") + abbrev), s) << abbrev;  // glibc says POLL for 29, strace IO
    }
  }
  EXPECT_EQ(signal_number("SIGRTMIN"), 34);
  EXPECT_EQ(signal_number("SIGRT_2"), 36);
}

}  // namespace
}  // namespace rastro::trace
