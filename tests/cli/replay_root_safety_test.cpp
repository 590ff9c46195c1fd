// No data loss (issue #15): `rastro replay --root` refuses a directory holding files it did not
// make, --init never changes a file already in the root, and `/` is refused whatever the flags.
// Each refusal is checked with the file the user cares about, byte for byte, afterwards.
#include <fcntl.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_test_util.h"
#include "trace_fixture.h"
#include "replay/session/root_guard.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"
#include "trace/syscalls/syscall_table.h"

namespace {

namespace fs = std::filesystem;
namespace trace = rastro::trace;
using rastro::cli_test::kRastro;
using rastro::cli_test::sh;
using rastro::cli_test::slurp;
using rastro::cli_test::TempDir;

void call(trace::Trace& t, const char* name, std::initializer_list<trace::Arg> args, int64_t rv) {
  rastro::cli_test::append_call(t, name, args, rv, 1'000'000 + static_cast<int64_t>(t.events.size()) * 10'000, 1000);
}

// A program that reads 4 KiB of an existing /data/db, then rewrites it with 7 bytes.
std::string write_db_trace(const std::string& dir, bool rewrite) {
  trace::Trace t;
  const trace::StrId db = t.strings.intern("/data/db");
  call(t, "openat", {{trace::ArgType::kDirFd, -100, 0}, {trace::ArgType::kPath, 0, db}, {trace::ArgType::kOpenFlags, O_RDONLY, 0}}, 5);
  call(t, "pread64", {{trace::ArgType::kFd, 5, db}, {trace::ArgType::kBuf, 0, 0}, {trace::ArgType::kCount, 4096, 0},
                      {trace::ArgType::kOffset, 0, 0}}, 4096);
  call(t, "close", {{trace::ArgType::kFd, 5, db}}, 0);
  if (rewrite) {
    call(t, "openat", {{trace::ArgType::kDirFd, -100, 0}, {trace::ArgType::kPath, 0, db},
                       {trace::ArgType::kOpenFlags, O_WRONLY | O_TRUNC, 0}}, 5);
    call(t, "write", {{trace::ArgType::kFd, 5, db}, {trace::ArgType::kBuf, 0, 0}, {trace::ArgType::kCount, 7, 0}}, 7);
    call(t, "close", {{trace::ArgType::kFd, 5, db}}, 0);
  }
  t.header.complete = true;
  const std::string path = dir + (rewrite ? "/rewrite.rastro" : "/read.rastro");
  trace::write_trace(path, t);
  return path;
}

std::string replay(const std::string& trace, const std::string& root, const std::string& flags) {
  return kRastro + " replay -O fs -T fullspeed " + trace + " -o " + fs::path(trace).parent_path().string() +
         "/out.rastro --root '" + root + "' " + flags;
}

TEST(ReplayRootSafety, AUsersDirectoryIsRefusedWithAndWithoutForceAndKeptByteForByte) {
  TempDir d;
  const std::string trace = write_db_trace(d.path, true);
  const std::string root = d.path + "/mine";
  fs::create_directories(root + "/data");
  std::ofstream(root + "/data/db") << "USER CONTENT";
  for (const std::string flags : {"--init", "", "--init --force", "--force"}) {
    const auto r = sh(replay(trace, root, flags));
    EXPECT_NE(r.status, 0) << flags << "\n" << r.out;
    EXPECT_NE(r.out.find(root), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(flags.find("--force") == std::string::npos ? "--force" : "--allow-unsafe-root"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(slurp(root + "/data/db"), "USER CONTENT") << flags;
    EXPECT_FALSE(fs::exists(root + "/" + rastro::replay::kRootMarker)) << flags;
  }
  // Both flags: the user said they accept it; the replay then does what the program did.
  const auto r = sh(replay(trace, root, "--init --force --allow-unsafe-root"));
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(fs::file_size(root + "/data/db"), 7u);
}

TEST(ReplayRootSafety, ARastroRootIsReusedOnlyWithForceAndInitKeepsWhatIsThere) {
  TempDir d;
  const std::string trace = write_db_trace(d.path, false);
  const std::string root = d.path + "/root";
  auto first = sh(replay(trace, root, "--init"));
  ASSERT_EQ(first.status, 0) << first.out;
  EXPECT_TRUE(fs::is_regular_file(root + "/" + rastro::replay::kRootMarker));
  EXPECT_EQ(fs::file_size(root + "/data/db"), 4096u);  // init made the file the trace reads

  auto again = sh(replay(trace, root, "--init"));
  EXPECT_NE(again.status, 0) << again.out;
  EXPECT_NE(again.out.find("not empty"), std::string::npos) << again.out;

  // A shorter file put there by hand is neither extended nor replaced by --init: the replayed
  // pread64 then reads 3 bytes where the program read 4096, and the summary says so.
  { std::ofstream(root + "/data/db", std::ios::trunc) << "abc"; }
  auto forced = sh(replay(trace, root, "--init --force"));
  ASSERT_EQ(forced.status, 0) << forced.out;
  EXPECT_NE(forced.out.find("1 files already there kept as they are"), std::string::npos) << forced.out;
  EXPECT_EQ(slurp(root + "/data/db"), "abc");
  trace::Trace out = trace::read_trace(d.path + "/out.rastro");
  ASSERT_EQ(out.events.size(), 3u);
  EXPECT_EQ(out.events[1].rvalue, 3);
  EXPECT_TRUE(out.events[1].flags & trace::kEventMismatch);
}

TEST(ReplayRootSafety, TheFileSystemRootIsRefusedWhateverTheFlags) {
  TempDir d;
  const std::string trace = write_db_trace(d.path, true);
  const auto r = sh(replay(trace, "/", "--init --force --allow-unsafe-root"));
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("file-system root"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists("/data/db") && fs::file_size("/data/db") == 7u);
  EXPECT_FALSE(fs::exists(std::string("/") + rastro::replay::kRootMarker));
}

TEST(ReplayRootSafety, HelpNamesEveryRootFlag) {
  const auto r = sh(kRastro + " replay --help");
  ASSERT_EQ(r.status, 0);
  for (const char* flag : {"--root", "--init", "--force", "--allow-unsafe-root"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
}

}  // namespace
