// ParseStraceLine: every line form strace 6 prints (taken from the fixtures) and the refusals.
#include "trace/importers/strace/strace_parser.h"

#include <gtest/gtest.h>

namespace rastro::trace::strace {
namespace {

TEST(StraceParser, CompleteLineWithPidAndYAnnotations) {
  auto l = ParseStraceLine(
      "8635  1795317127.836832 openat(AT_FDCWD</tmp/stx>, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC) = "
      "3</etc/ld.so.cache> <0.000008>");
  EXPECT_EQ(l.kind, StraceLineKind::kComplete);
  EXPECT_TRUE(l.has_tid);
  EXPECT_EQ(l.tid, 8635);
  EXPECT_EQ(l.time_ns, 1795317127836832000);
  EXPECT_EQ(l.name, "openat");
  EXPECT_EQ(l.args, "AT_FDCWD</tmp/stx>, \"/etc/ld.so.cache\", O_RDONLY|O_CLOEXEC");
  EXPECT_EQ(l.ret, "3</etc/ld.so.cache>");
  EXPECT_TRUE(l.has_duration);
  EXPECT_EQ(l.duration_ns, 8000);
}

TEST(StraceParser, BracketPidNanosecondsErrnoAndPadding) {
  auto l = ParseStraceLine(
      "[pid  9171] 1795317139.199242735 access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or "
      "directory) <0.000008733>");
  EXPECT_EQ(l.kind, StraceLineKind::kComplete);
  EXPECT_EQ(l.tid, 9171);
  EXPECT_EQ(l.time_ns, 1795317139199242735);
  EXPECT_EQ(l.ret, "-1 ENOENT (No such file or directory)");
  EXPECT_EQ(l.duration_ns, 8733);
  l = ParseStraceLine("1795317127.836497 brk(NULL)       = 0x5615d25a4000 <0.000007>");
  EXPECT_EQ(l.kind, StraceLineKind::kComplete);
  EXPECT_FALSE(l.has_tid);
  EXPECT_EQ(l.ret, "0x5615d25a4000");
}

TEST(StraceParser, ParenthesesInsideStringsAndAnnotations) {
  auto l = ParseStraceLine("1 1.5 write(3</tmp/a)b>, \"x) = 1 <0.1>\", 12) = 12 <0.000002>");
  EXPECT_EQ(l.kind, StraceLineKind::kComplete);
  EXPECT_EQ(l.args, "3</tmp/a)b>, \"x) = 1 <0.1>\", 12");
  EXPECT_EQ(l.ret, "12");
  l = ParseStraceLine(
      "9027  1795317144.685786 clone3({flags=CLONE_VM|CLONE_THREAD, stack_size=0x7fff80} => {parent_tid=[9028]}, 88) "
      "= 9028 <0.000095>");
  EXPECT_EQ(l.name, "clone3");
  EXPECT_EQ(l.ret, "9028");
  l = ParseStraceLine("8821  1795317138.745013 ioctl(0</dev/null<char 1:3>>, TCGETS, 0x7ffd36d92910) = -1 ENOTTY "
                      "(Inappropriate ioctl for device) <0.000007>");
  EXPECT_EQ(l.args, "0</dev/null<char 1:3>>, TCGETS, 0x7ffd36d92910");
}

TEST(StraceParser, UnfinishedAndResumed) {
  auto u = ParseStraceLine("[pid  9171] 1795317147.959467 newfstatat(AT_FDCWD</w>, \"/root/.cargo/bin/wc\",  <unfinished ...>");
  EXPECT_EQ(u.kind, StraceLineKind::kUnfinished);
  EXPECT_EQ(u.name, "newfstatat");
  EXPECT_EQ(u.args, "AT_FDCWD</w>, \"/root/.cargo/bin/wc\",");
  auto r = ParseStraceLine("[pid  9171] 1795317147.959502 <... newfstatat resumed>0x7ffc8133b9f0, 0) = -1 ENOENT (No such "
                           "file or directory) <0.000024>");
  EXPECT_EQ(r.kind, StraceLineKind::kResumed);
  EXPECT_EQ(r.name, "newfstatat");
  EXPECT_EQ(r.args, "0x7ffc8133b9f0, 0");
  EXPECT_EQ(r.duration_ns, 24000);
  auto e = ParseStraceLine("9030  1795317144.689193 <... exit resumed>) = ?");
  EXPECT_EQ(e.kind, StraceLineKind::kResumed);
  EXPECT_EQ(e.ret, "?");
  EXPECT_FALSE(e.has_duration);
  auto ru = ParseStraceLine("812 1.5 <... wait4 resumed> <unfinished ...>");
  EXPECT_EQ(ru.kind, StraceLineKind::kResumedUnfinished);
  auto killed = ParseStraceLine("812 1.5 read(0,  <unfinished ...>) = ?");
  EXPECT_EQ(killed.kind, StraceLineKind::kComplete);
  EXPECT_EQ(killed.args, "0,");
  EXPECT_EQ(killed.ret, "?");
}

TEST(StraceParser, NonSyscallLines) {
  EXPECT_EQ(ParseStraceLine("8803  1795317138.734963 +++ exited with 0 +++").kind, StraceLineKind::kExit);
  EXPECT_EQ(ParseStraceLine("1.5 +++ killed by SIGKILL +++").kind, StraceLineKind::kExit);
  EXPECT_EQ(ParseStraceLine("1795317139.228882 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED} ---").kind,
            StraceLineKind::kSignal);
  auto m = ParseStraceLine("strace: Process 9172 attached");
  EXPECT_EQ(m.kind, StraceLineKind::kStraceMessage);
  EXPECT_EQ(m.message_pid, 9172);
  EXPECT_EQ(ParseStraceLine("   ").kind, StraceLineKind::kBlank);
  EXPECT_EQ(ParseStraceLine("812 1.5 exit_group(0)   = ?").kind, StraceLineKind::kComplete);
}

TEST(StraceParser, RefusalsSayWhy) {
  auto tt = ParseStraceLine("812 12:01:02.123456 read(3, \"\", 1) = 0");
  EXPECT_EQ(tt.kind, StraceLineKind::kUnsupported);
  EXPECT_NE(tt.problem.find("-ttt"), std::string_view::npos);
  auto nots = ParseStraceLine("read(3, \"\", 1) = 0");
  EXPECT_EQ(nots.kind, StraceLineKind::kUnsupported);
  EXPECT_EQ(ParseStraceLine("812 1.5 openat(AT_FDCWD, \"/etc/x").kind, StraceLineKind::kNotStrace);
  EXPECT_EQ(ParseStraceLine("812 1.5 openat(AT_FDCWD, \"/etc/x\")").kind, StraceLineKind::kNotStrace);
  EXPECT_EQ(ParseStraceLine("\x7f" "ELF\x02\x01\x01garbage").kind, StraceLineKind::kNotStrace);
  EXPECT_EQ(ParseStraceLine("hello world").kind, StraceLineKind::kNotStrace);
  EXPECT_EQ(ParseStraceLine("[pid abc] 1.5 read() = 0").kind, StraceLineKind::kNotStrace);
}

}  // namespace
}  // namespace rastro::trace::strace
