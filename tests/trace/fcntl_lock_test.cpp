// fcntl's lock form (trace/syscalls/fcntl_lock.h): which commands are locks (checked against the
// C library's constants), the 6-argument form, and how it reads and prints in the text codec.
#include "trace/syscalls/fcntl_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include <filesystem>

#include <gtest/gtest.h>

#include "trace/io/trace_io.h"
#include "trace/syscalls/arg_format.h"

namespace rastro::trace {
namespace {

Event fcntl_event(StringTable& st, int64_t cmd) {
  Event e;
  e.nr = syscall_by_name("fcntl")->nr;
  e.nargs = 3;
  e.args[0] = {ArgType::kFd, 3, st.intern("/db")};
  e.args[1] = {ArgType::kFcntlCmd, cmd, kNoStr};
  e.args[2] = {ArgType::kInt, 0x7ffd1234, kNoStr};
  return e;
}

// `e`'s argument text, after checking that it parses back to the same arguments.
std::string round_trip(const Event& e, StringTable& st) {
  const std::string text = format_args(e, st);
  Event back;
  back.nr = e.nr;
  EXPECT_TRUE(parse_args(text, back, st).ok()) << text;
  EXPECT_EQ(back, e) << text;
  return text;
}

TEST(FcntlLock, TheSixCommandsOfTheCLibrary) {
  for (int c : {F_GETLK, F_SETLK, F_SETLKW, F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW}) EXPECT_TRUE(is_lock_command(c)) << c;
  for (int c : {F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_SETOWN, F_DUPFD_CLOEXEC, F_SETLEASE})
    EXPECT_FALSE(is_lock_command(c)) << c;
  EXPECT_TRUE(is_blocking_lock_command(F_SETLKW));
  EXPECT_TRUE(is_blocking_lock_command(F_OFD_SETLKW));
  EXPECT_FALSE(is_blocking_lock_command(F_SETLK));
  EXPECT_TRUE(is_query_lock_command(F_GETLK));
  EXPECT_TRUE(is_query_lock_command(F_OFD_GETLK));
  EXPECT_FALSE(is_query_lock_command(F_OFD_SETLK));
  EXPECT_TRUE(is_ofd_lock_command(F_OFD_SETLKW));
  EXPECT_FALSE(is_ofd_lock_command(F_SETLKW));
  EXPECT_TRUE(takes_lock_commands(syscall_by_name("fcntl")));
  EXPECT_FALSE(takes_lock_commands(syscall_by_name("flock")));
  EXPECT_FALSE(takes_lock_commands(syscall_by_name("ioctl")));
}

TEST(FcntlLock, SixArgumentFormRoundTripsThroughTheTextCodec) {
  StringTable st;
  Event e = fcntl_event(st, F_SETLK);
  EXPECT_TRUE(is_lock_call(e));
  EXPECT_FALSE(has_lock_fields(e)) << "the 3-argument form carries no struct";
  set_lock_fields(e, {F_WRLCK, SEEK_SET, 1073741824, 1});
  ASSERT_TRUE(has_lock_fields(e));
  const LockFields f = lock_fields(e);
  EXPECT_EQ(f.type, F_WRLCK);
  EXPECT_EQ(f.whence, SEEK_SET);
  EXPECT_EQ(f.start, 1073741824);
  EXPECT_EQ(f.len, 1);
  EXPECT_EQ(round_trip(e, st), "3</db>, F_SETLK, F_WRLCK, SEEK_SET, 1073741824, 1");
  // The old form still prints and reads as before.
  EXPECT_EQ(round_trip(fcntl_event(st, F_SETLK), st), "3</db>, F_SETLK, 2147291700");
}

TEST(FcntlLock, LockTypeNamesAndOtherCommandsKeepTheirForm) {
  StringTable st;
  EXPECT_EQ(format_arg({ArgType::kLockType, F_RDLCK, kNoStr}, st), "F_RDLCK");
  EXPECT_EQ(format_arg({ArgType::kLockType, F_WRLCK, kNoStr}, st), "F_WRLCK");
  EXPECT_EQ(format_arg({ArgType::kLockType, F_UNLCK, kNoStr}, st), "F_UNLCK");
  EXPECT_EQ(format_arg({ArgType::kLockType, 7, kNoStr}, st), "7");
  auto a = parse_arg(ArgType::kLockType, "F_UNLCK", st);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->value, F_UNLCK);
  EXPECT_EQ(arg_type_name(ArgType::kLockType), "locktype");
  EXPECT_EQ(arg_type_from_name("locktype").value_or(ArgType::kNone), ArgType::kLockType);
  // A 6-argument fcntl whose types are not the lock signature is tagged, and reads back.
  Event odd = fcntl_event(st, F_GETFL);
  odd.nargs = 6;
  for (size_t i = 2; i < 6; ++i) odd.args[i] = {ArgType::kInt, static_cast<int64_t>(i), kNoStr};
  EXPECT_EQ(round_trip(odd, st), "fd:3</db>, fcntlcmd:F_GETFL, int:2, int:3, int:4, int:5");
  EXPECT_FALSE(is_lock_call(odd));
}

TEST(FcntlLock, LockEventsRoundTripThroughTheBinaryAndTextFormats) {
  Trace t;
  Event e = fcntl_event(t.strings, F_OFD_SETLKW);
  set_lock_fields(e, {F_RDLCK, SEEK_END, -96, 96});
  e.rvalue = -EAGAIN;
  t.events.push_back(e);
  e.seq = 1;
  set_lock_fields(e, {F_UNLCK, SEEK_CUR, 0, 0});
  t.events.push_back(e);
  const std::string dir = std::filesystem::temp_directory_path() / ("rastro-fcntl-lock-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* name : {"t.rastro", "t.tsv", "t.csv"}) {
    SCOPED_TRACE(name);
    write_trace(dir + "/" + name, t);
    const Trace back = read_trace(dir + "/" + name);
    ASSERT_EQ(back.events.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_TRUE(has_lock_fields(back.events[i]));
      EXPECT_EQ(back.events[i].args, t.events[i].args) << format_args(back.events[i], back.strings);
      EXPECT_EQ(back.events[i].rvalue, t.events[i].rvalue);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(FcntlLock, SignatureForOtherCounts) {
  const SyscallInfo* fcntl = syscall_by_name("fcntl");
  EXPECT_EQ(signature_for(fcntl, 3), &fcntl->args);
  EXPECT_EQ(signature_for(fcntl, 6), &kLockSignature);
  EXPECT_EQ(signature_for(fcntl, 4), nullptr);
  const SyscallInfo* read = syscall_by_name("read");
  EXPECT_EQ(signature_for(read, 6), nullptr);
  EXPECT_EQ(signature_for(nullptr, 6), nullptr);
}

}  // namespace
}  // namespace rastro::trace
