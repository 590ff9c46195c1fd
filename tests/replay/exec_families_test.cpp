// The executor split by syscall family (replay/runtime/exec_*.cpp): CallExecutor::run dispatches
// by the table's Family column. One test per family, checked against the file system the kernel
// leaves behind (stat(2) of the sandbox), plus the rows of each family that have no case.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "replay/runtime/call_executor.h"
#include "replay_test_util.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {
namespace {

using testing::TempDir;
using testing::TraceBuilder;

struct FamilyRun {
  TempDir dir;
  trace::Trace t;
  std::unique_ptr<SandboxResolver> sb;
  std::unique_ptr<ProcessTable> procs;
  ThreadScratch scratch;
  std::vector<CallOutcome> outs;

  explicit FamilyRun(TraceBuilder& b) : t(b.take()) {
    sb = std::make_unique<SandboxResolver>(dir.path());
    procs = std::make_unique<ProcessTable>(process_seeds(t));
    CallExecutor ex(*sb, *procs, t.strings);
    for (const auto& e : t.events) outs.push_back(ex.execute(e, nullptr, scratch));
  }
  bool all_clean() const {
    for (const auto& o : outs)
      if (o.flags != 0) return false;
    return true;
  }
};

off_t size_of(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

TEST(ExecFamilies, OpenCloseCreatesTheFileAndReleasesTheFd) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY, 0600}, 3, {"/f"});
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "write", {3, 0, 1}, -EBADF);  // after close: the fd is gone
  FamilyRun r(b);
  EXPECT_EQ(r.outs[0].flags, 0u);
  EXPECT_EQ(r.outs[1].flags, 0u);
  EXPECT_EQ(r.outs[2].skip, SkipReason::kFdAfterClose);
  EXPECT_EQ(size_of(r.dir.sub("f")), 0);
}

TEST(ExecFamilies, DataIoMovesTheTracedByteCounts) {
  TraceBuilder b;
  b.add(1, 1, "creat", {0, 0644}, 3, {"/d"});
  b.add(1, 1, "pwrite64", {3, 0, 4096, 8192}, 4096);
  b.add(1, 1, "write", {3, 0, 10}, 10);
  b.add(1, 1, "fsync", {3}, 0);
  b.add(1, 1, "ftruncate", {3, 5000}, 0);
  FamilyRun r(b);
  EXPECT_TRUE(r.all_clean());
  EXPECT_EQ(size_of(r.dir.sub("d")), 5000);
  EXPECT_EQ(r.scratch.stats.executed, 5u);
}

TEST(ExecFamilies, StatSeesWhatTheKernelSays) {
  TraceBuilder b;
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/x"});
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/x"});
  b.add(1, 1, "access", {0, F_OK}, -ENOENT, {"/nothing"});
  b.add(1, 1, "stat", {0, 0}, 0, {"/x"});
  FamilyRun r(b);
  EXPECT_TRUE(r.all_clean());
}

TEST(ExecFamilies, NamespaceChangesNames) {
  TraceBuilder b;
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/a"});
  b.add(1, 1, "mknod", {0, S_IFREG | 0644, 0}, 0, {"/a/n"});
  b.add(1, 1, "rename", {0, 0}, 0, {"/a/n", "/a/m"});
  b.add(1, 1, "symlink", {0, 0}, 0, {"m", "/a/l"});
  b.add(1, 1, "chmod", {0, 0600}, 0, {"/a/m"});
  b.add(1, 1, "mknod", {0, S_IFCHR | 0644, 0}, 0, {"/a/dev"});  // a device: refused
  FamilyRun r(b);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(r.outs[i].flags, 0u) << i;
  EXPECT_EQ(r.outs[5].skip, SkipReason::kDeviceNode);
  struct stat st {};
  ASSERT_EQ(::stat(r.dir.sub("a/m").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(std::filesystem::exists(r.dir.sub("a/n")));
  EXPECT_TRUE(std::filesystem::is_symlink(r.dir.sub("a/l")));
}

TEST(ExecFamilies, FdOpsDuplicateAndPipe) {
  TraceBuilder b;
  b.add(1, 1, "open", {0, O_CREAT | O_RDWR, 0644}, 3, {"/p"});
  b.add(1, 1, "dup", {3}, 4);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "write", {4, 0, 7}, 7);  // through the duplicate
  b.add(1, 1, "pipe2", {(int64_t{6} << 32) | 5, 0}, 0);
  b.add(1, 1, "write", {6, 0, 3}, 3);
  b.add(1, 1, "read", {5, 0, 3}, 3);
  FamilyRun r(b);
  EXPECT_TRUE(r.all_clean());
  EXPECT_EQ(size_of(r.dir.sub("p")), 7);
}

TEST(ExecFamilies, MemoryMapsFilesOnly) {
  TraceBuilder b;
  b.add(1, 1, "open", {0, O_CREAT | O_RDWR, 0644}, 3, {"/m"});
  b.add(1, 1, "ftruncate", {3, 4096}, 0);
  b.add(1, 1, "mmap", {0, 4096, PROT_READ, MAP_SHARED, 3, 0}, 0x7f0000000000);
  b.add(1, 1, "munmap", {0x7f0000000000, 4096}, 0);
  b.add(1, 1, "mmap", {0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0}, 0x7f0000100000);
  FamilyRun r(b);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(r.outs[i].flags, 0u) << i;
  EXPECT_EQ(r.outs[4].skip, SkipReason::kNotFileMapping);
}

TEST(ExecFamilies, ProcessCallsAreStructureOnlyButChdirMoves) {
  TraceBuilder b;
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/w"});
  b.add(1, 1, "chdir", {}, 0, {"/w"});
  b.add(1, 1, "umask", {022}, 022);
  b.add(1, 1, "creat", {0, 0644}, 3, {"rel"});  // relative to the new cwd
  FamilyRun r(b);
  EXPECT_TRUE(r.all_clean());
  EXPECT_EQ(r.scratch.stats.emulated, 1u);  // umask
  EXPECT_TRUE(std::filesystem::exists(r.dir.sub("w/rel")));
}

TEST(ExecFamilies, RowsWithoutACaseAreUnsupportedByName) {
  // One row of a family its file has no case for, per family that has one.
  TraceBuilder b;
  b.add(1, 1, "openat2", {AT_FDCWD, 0, 0, 24}, 3, {"/o"});  // open_close
  b.add(1, 1, "poll", {0, 1, 0}, 0);                          // fd_ops (an ioctl on the inherited
                                                              // stdin would be emulated now)
  b.add(1, 1, "mprotect", {0, 4096, PROT_READ}, 0);           // memory
  b.add(1, 1, "chroot", {}, -EPERM, {"/"});                   // process
  FamilyRun r(b);
  for (const auto& o : r.outs) EXPECT_EQ(o.skip, SkipReason::kUnsupported);
  for (const char* n : {"openat2", "poll", "mprotect", "chroot"}) EXPECT_EQ(r.scratch.stats.unsupported[n], 1u) << n;
}

}  // namespace
}  // namespace rastro::replay
