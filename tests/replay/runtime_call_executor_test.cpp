#include "replay/runtime/call_executor.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TempDir;
using testing::TraceBuilder;

struct Fixture {
  TempDir dir;
  trace::Trace t;
  std::unique_ptr<SandboxResolver> sb;
  std::unique_ptr<ProcessTable> procs;
  std::unique_ptr<CallExecutor> ex;
  ThreadScratch scratch;
  std::vector<CallOutcome> outs;

  void run(trace::Trace tr) {
    t = std::move(tr);
    sb = std::make_unique<SandboxResolver>(dir.path());
    auto seeds = process_seeds(t);
    procs = std::make_unique<ProcessTable>(seeds);
    ex = std::make_unique<CallExecutor>(*sb, *procs, t.strings);
    for (const auto& e : t.events) outs.push_back(ex->execute(e, nullptr, scratch));
  }
};

TEST(RuntimeCallExecutor, ReplaysFileCallsAndComparesReturnValues) {
  TraceBuilder b;
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/d"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_RDWR, 0644}, 3, {"/d/f"});
  b.add(1, 1, "pwrite64", {3, 0, 100, 50}, 100);
  b.add(1, 1, "pread64", {3, 0, 200, 0}, 150);       // 150 bytes exist: no mismatch
  b.add(1, 1, "lseek", {3, 0, SEEK_END}, 150);
  b.add(1, 1, "write", {3, 0, 10}, 10);
  b.add(1, 1, "fcntl", {3, F_GETFL, 0}, O_RDWR | 0100000);  // the kernel adds O_LARGEFILE
  b.add(1, 1, "dup2", {3, 7}, 7);
  b.add(1, 1, "fstat", {7}, 0);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "read", {7, 0, 4096}, 0);              // fd 7 still open at EOF
  b.add(1, 1, "rename", {0, 0}, 0, {"/d/f", "/d/g"});
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, -ENOENT, {"/d/f"});
  b.add(1, 1, "chdir", {}, 0, {"/d"});
  b.add(1, 1, "unlink", {}, 0, {"g"});               // relative to the traced cwd
  b.add(1, 1, "read", {3, 0, 10}, 10);               // after close: skipped
  b.add(1, 1, "ioctl", {7, 0x5401, 0}, -ENOTTY);     // unsupported: skipped by name
  b.add(1, 1, "pread64", {7, 0, 10, 0}, 99);         // wrong traced value: mismatch
  Fixture f;
  f.run(b.take());
  ASSERT_EQ(f.outs.size(), 18u);
  for (size_t i = 0; i < 15; ++i) {
    EXPECT_EQ(f.outs[i].flags, 0u) << i << " rvalue " << f.outs[i].rvalue;
  }
  EXPECT_EQ(testing::read_file(f.dir.sub("d/g")).size(), 0u) << "unlinked";
  EXPECT_FALSE(std::filesystem::exists(f.dir.sub("d/g")));
  EXPECT_EQ(f.outs[15].skip, SkipReason::kFdAfterClose);
  EXPECT_EQ(f.outs[16].skip, SkipReason::kUnsupported);
  EXPECT_EQ(f.scratch.stats.unsupported["ioctl"], 1u);
  EXPECT_EQ(f.outs[17].flags, trace::kEventMismatch);
  EXPECT_EQ(f.scratch.stats.mismatched, 1u);
  EXPECT_EQ(f.scratch.stats.executed, 16u);
}

// A relative path is walked from the process's cwd, or from the dirfd's replay fd, as the traced
// call walked it, not from the root down the whole absolute path (SandboxResolver::Base: git's
// `.git/...` opens replayed at 1.2-1.6 of traced that way); so do calls on an object or a name,
// whose walk kernel timing counts. Seen here by moving the cwd's parent
// away behind the replay's back: only a walk from the cwd still finds it.
TEST(RuntimeCallExecutor, RelativePathsAreWalkedFromTheCwdOrTheDirfd) {
  TraceBuilder b;
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/a"});
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/a/b"});
  b.add(1, 1, "chdir", {}, 0, {"/a/b"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY, 0644}, 3, {"f"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_DIRECTORY, 0}, 4, {"."});
  // (here /a is moved to /z)
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY, 0644}, 5, {"g"});
  b.add(1, 1, "openat", {4, 0, O_CREAT | O_WRONLY, 0644}, 6, {"h"});
  // Calls on an object (stat) and on a name (mkdir, unlink) walk from there too.
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"g"});
  b.add(1, 1, "newfstatat", {4, 0, 0, 0}, 0, {"h"});
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"sub"});
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"sub/deeper"});
  b.add(1, 1, "unlink", {}, 0, {"f"});
  // A path that leaves the cwd is walked from the root, where /a is gone.
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, -ENOENT, {"../../a/b/f"});
  Fixture f;
  f.t = b.take();
  f.sb = std::make_unique<SandboxResolver>(f.dir.path());
  f.procs = std::make_unique<ProcessTable>(process_seeds(f.t));
  f.ex = std::make_unique<CallExecutor>(*f.sb, *f.procs, f.t.strings);
  for (size_t i = 0; i < f.t.events.size(); ++i) {
    if (i == 5) {
      ASSERT_EQ(::rename(f.dir.sub("a").c_str(), f.dir.sub("z").c_str()), 0);
    }
    f.outs.push_back(f.ex->execute(f.t.events[i], nullptr, f.scratch));
    EXPECT_EQ(f.outs.back().flags, 0u) << "call " << i << " rvalue " << f.outs.back().rvalue;
  }
  EXPECT_TRUE(std::filesystem::exists(f.dir.sub("z/b/g")));
  EXPECT_TRUE(std::filesystem::exists(f.dir.sub("z/b/h")));
  EXPECT_TRUE(std::filesystem::is_directory(f.dir.sub("z/b/sub/deeper")));
  EXPECT_FALSE(std::filesystem::exists(f.dir.sub("z/b/f")));
}

TEST(RuntimeCallExecutor, WritesDeterministicBytes) {
  TraceBuilder b;
  b.add(1, 1, "open", {0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 5, {"/out"});
  b.add(1, 1, "write", {5, 0, 30}, 30);
  b.add(1, 1, "close", {5}, 0);
  Fixture f;
  f.run(b.take());
  std::string content = testing::read_file(f.dir.sub("out"));
  ASSERT_EQ(content.size(), 30u);
  for (size_t i = 0; i < content.size(); ++i) EXPECT_EQ(content[i], write_pattern_byte(i));
}

TEST(RuntimeCallExecutor, InconsistentFdsAreSkippedNotFatal) {
  TraceBuilder b;
  b.add(1, 1, "read", {5, 0, 10}, 10);                               // before its open
  b.add(1, 1, "open", {0, O_RDONLY, 0}, 5, {"/missing"});           // fails in the replay
  b.add(1, 1, "read", {5, 0, 10}, 10);                               // fd of a failed open
  b.add(1, 1, "open", {0, O_RDONLY, 0}, 6, {"/dev/sda"});           // refused (not emulated)
  b.add(1, 1, "read", {6, 0, 10}, 10);
  b.add(1, 1, "open", {0, O_WRONLY, 0}, 8, {"/dev/null"});          // emulated (special_file.h)
  b.add(1, 1, "write", {8, 0, 10}, 10);
  b.add(1, 1, "write", {1, 0, 3}, 3);                                // inherited: emulated too
  Fixture f;
  f.run(b.take());
  EXPECT_EQ(f.outs[0].skip, SkipReason::kFdBeforeOpen);
  EXPECT_EQ(f.outs[1].flags, trace::kEventMismatch);
  EXPECT_EQ(f.outs[1].rvalue, -ENOENT);
  EXPECT_EQ(f.outs[2].skip, SkipReason::kFdOpenFailed);
  EXPECT_EQ(f.outs[3].skip, SkipReason::kSpecialPath);
  EXPECT_EQ(f.outs[4].skip, SkipReason::kFdRefused);
  EXPECT_EQ(f.outs[5].flags, 0u);
  EXPECT_EQ(f.outs[6].flags, 0u);
  EXPECT_EQ(f.outs[7].flags, 0u);
}

TEST(RuntimeCallExecutor, PlanResolvedPathsTakePrecedence) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY, 0644}, 3, {"rel"});
  trace::Trace t = b.take();
  trace::StrId resolved[2] = {t.strings.intern("/from/plan"), trace::kNoStr};
  TempDir dir;
  mkdir(dir.sub("from").c_str(), 0755);
  SandboxResolver sb(dir.path());
  auto seeds = process_seeds(t);
  ProcessTable procs(seeds);
  CallExecutor ex(sb, procs, t.strings);
  ThreadScratch s;
  EXPECT_EQ(ex.execute(t.events[0], nullptr, s, resolved).flags, 0u);
  EXPECT_TRUE(std::filesystem::exists(dir.sub("from/plan")));
  EXPECT_FALSE(std::filesystem::exists(dir.sub("rel")));
}

}  // namespace
}  // namespace rastro::replay

namespace rastro::replay {
namespace {

trace::Event traced_call(int nr, std::initializer_list<trace::Arg> args, int64_t rvalue) {
  trace::Event e;
  e.nr = nr;
  for (const auto& a : args) e.args[e.nargs++] = a;
  e.rvalue = rvalue;
  return e;
}

// New fds are numbered by the replayer's process, not the traced one: only success vs failure
// (and which errno) counts, for open and for fcntl(F_DUPFD*) alike; other results must be equal.
TEST(RuntimeRvalueMismatch, NewFdNumbersDoNotCountOtherResultsDo) {
  using trace::ArgType;
  const trace::Arg fd1{ArgType::kFd, 1, 0};
  EXPECT_FALSE(rvalue_mismatch(traced_call(SYS_fcntl, {fd1, {ArgType::kFcntlCmd, F_DUPFD, 0}, {ArgType::kInt, 10, 0}}, 11), 12));
  EXPECT_FALSE(rvalue_mismatch(traced_call(SYS_fcntl, {fd1, {ArgType::kFcntlCmd, F_DUPFD_CLOEXEC, 0}, {ArgType::kInt, 3, 0}}, 3), 7));
  EXPECT_TRUE(rvalue_mismatch(traced_call(SYS_fcntl, {fd1, {ArgType::kFcntlCmd, F_DUPFD, 0}, {ArgType::kInt, 10, 0}}, 11), -EMFILE));
  EXPECT_TRUE(rvalue_mismatch(traced_call(SYS_fcntl, {fd1, {ArgType::kFcntlCmd, F_GETFL, 0}}, O_WRONLY), O_RDWR));
  EXPECT_FALSE(rvalue_mismatch(traced_call(SYS_openat, {{ArgType::kDirFd, AT_FDCWD, 0}}, 3), 9));
  EXPECT_TRUE(rvalue_mismatch(traced_call(SYS_openat, {{ArgType::kDirFd, AT_FDCWD, 0}}, 3), -ENOENT));
  EXPECT_TRUE(rvalue_mismatch(traced_call(SYS_pread64, {fd1}, 4096), 100));
}

}  // namespace
}  // namespace rastro::replay
