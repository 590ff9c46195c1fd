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
#include "trace/model/page_fault.h"
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
  b.add(1, 1, "write", {3, 0, 1}, -EBADF);  // after close: the fd is gone, EBADF again
  b.add(1, 1, "fcntl", {9, F_GETFD, 0}, -EBADF);  // a probe of an fd never opened (make's children)
  b.add(1, 1, "close", {-1}, -EBADF);            // (the tar pipeline's)
  b.add(1, 1, "write", {3, 0, 1}, 1);            // a traced success after the close: skipped
  FamilyRun r(b);
  EXPECT_EQ(r.outs[0].flags, 0u);
  EXPECT_EQ(r.outs[1].flags, 0u);
  for (size_t i = 2; i < 5; ++i) {
    EXPECT_EQ(r.outs[i].flags, 0u) << i;  // replayed: the kernel said EBADF
    EXPECT_EQ(r.outs[i].rvalue, -EBADF) << i;
  }
  EXPECT_EQ(r.outs[5].skip, SkipReason::kFdAfterClose);
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

// "" names nothing: the kernel fails a call on it with ENOENT before any lookup (cmake's
// mkdir("") after a chdir into a directory that exists). It must not act on the cwd.
TEST(ExecFamilies, AnEmptyPathFailsWithEnoentAndTouchesNothing) {
  TraceBuilder b;
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/w"});
  b.add(1, 1, "chdir", {}, 0, {"/w"});
  b.add(1, 1, "mkdir", {0, 0777}, -ENOENT, {""});
  b.add(1, 1, "chmod", {0, 0700}, -ENOENT, {""});
  b.add(1, 1, "rmdir", {}, -ENOENT, {""});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY, 0600}, -ENOENT, {""});
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, AT_EMPTY_PATH}, 0, {""});  // AT_EMPTY_PATH: the cwd itself
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {""});  // a success on "": a path the capture lost
  FamilyRun r(b);
  for (size_t i = 2; i < 6; ++i) {
    EXPECT_EQ(r.outs[i].flags, 0u) << i;
    EXPECT_EQ(r.outs[i].rvalue, -ENOENT) << i;
  }
  EXPECT_EQ(r.outs[6].flags, 0u);
  EXPECT_EQ(r.outs[6].rvalue, 0);
  EXPECT_EQ(r.outs[7].skip, SkipReason::kBadPath);
  EXPECT_EQ(r.scratch.stats.emulated, 4u);
  struct stat st {};
  ASSERT_EQ(::stat(r.dir.sub("w").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);  // chmod("") did not reach the cwd
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

TEST(ExecFamilies, MemoryMapsFilesAndAnonymousMemory) {
  TraceBuilder b;
  b.add(1, 1, "open", {0, O_CREAT | O_RDWR, 0644}, 3, {"/m"});
  b.add(1, 1, "ftruncate", {3, 4096}, 0);
  b.add(1, 1, "mmap", {0, 4096, PROT_READ, MAP_SHARED, 3, 0}, 0x7f0000000000);
  b.add(1, 1, "munmap", {0x7f0000000000, 4096}, 0);
  b.add(1, 1, "mmap", {0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0}, 0x7f0000100000);
  b.add(1, 1, "munmap", {0x7f0000100000, 4096}, 0);
  b.add(1, 1, "munmap", {0x7f0000200000, 4096}, 0);  // never mapped by a traced mmap
  FamilyRun r(b);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(r.outs[i].flags, 0u) << i;
  EXPECT_EQ(r.outs[6].skip, SkipReason::kUnknownMapping);
}

// PAM's child of runuser unmaps the modules its parent loaded before the fork. The child's copy
// of the parent's address space is not made (one replayer address space), so its munmap, and
// any mprotect on what it inherited, are emulated — the parent's pages stay for the parent's own
// munmap; a range neither mapped nor inherited is still `mapping_not_in_trace`.
TEST(ExecFamilies, AForkedChildsCallsOnItsInheritedMappingsAreEmulated) {
  TraceBuilder b;
  constexpr int64_t kAt = 0x7f0000100000;
  b.add(1, 1, "mmap", {0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0}, kAt);  // 0
  b.add(1, 1, "clone", {SIGCHLD, 0, 0, 0, 0}, 2);                                                 // 1
  b.add(2, 2, "munmap", {kAt, 4096}, 0);                                                          // 2
  b.add(2, 2, "mprotect", {kAt + 4096, 4096, PROT_READ}, 0);                                      // 3
  b.add(2, 2, "mprotect", {kAt, 4096, PROT_READ}, -ENOMEM);                                       // 4 unmapped
  b.add(1, 1, "munmap", {kAt, 8192}, 0);                                                          // 5
  FamilyRun r(b);
  for (size_t i : {0u, 1u, 2u, 3u, 5u}) EXPECT_EQ(r.outs[i].flags, 0u) << i;
  EXPECT_EQ(r.outs[4].skip, SkipReason::kUnknownMapping);
  EXPECT_EQ(r.procs->find(1)->maps.mapped_bytes(), 0u) << "the parent's munmap unmapped its pages";
}

// A page-fault event (trace/model/page_fault.h) of thread 1 of process 1, touching `address`.
void add_fault(TraceBuilder& b, int64_t address, int64_t how, const std::string& file, int64_t offset) {
  trace::Event e;
  e.pid = 1;
  e.tid = 1;
  e.nr = -1;
  e.name = b.t.strings.intern(how & trace::kFaultAround ? trace::kFaultAroundCall : trace::kFaultCall);
  e.flags = trace::kEventPageFault;
  e.nargs = trace::kFaultArgs;
  e.args[trace::kFaultArgFile] = {trace::ArgType::kPath, 0, b.t.strings.intern(file)};
  e.args[trace::kFaultArgOffset] = {trace::ArgType::kOffset, offset, trace::kNoStr};
  e.args[trace::kFaultArgLength] = {trace::ArgType::kCount, 4096, trace::kNoStr};
  e.args[trace::kFaultArgHow] = {trace::ArgType::kInt, how, trace::kNoStr};
  e.args[trace::kFaultArgAddress] = {trace::ArgType::kPtr, address, trace::kNoStr};
  e.begin_ns = e.end_ns = b.clock;
  b.clock += 1000;
  e.seq = b.t.events.size();
  b.t.events.push_back(e);
}

// The mmap family and faults, checked against the file's bytes (pread of the sandboxed file).
TEST(ExecFamilies, MemoryFaultsTouchTheReplayMappingAndMsyncWritesTheFile) {
  constexpr int64_t kAt = 0x7f0000000000, kAnon = 0x7f0000100000;
  TraceBuilder b;
  b.add(1, 1, "open", {0, O_CREAT | O_RDWR, 0644}, 3, {"/m"});
  b.add(1, 1, "ftruncate", {3, 8192}, 0);
  b.add(1, 1, "mmap", {0, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, 3, 0}, kAt);  // 2
  add_fault(b, kAt + 100, 0, "/m", 0);                                              // 3 read
  add_fault(b, kAt, trace::kFaultAround, "/m", 0);                                  // 4 around it
  add_fault(b, kAt + 4096 + 7, trace::kFaultWrite | trace::kFaultShared, "/m", 4096);  // 5 write
  b.add(1, 1, "msync", {kAt, 8192, MS_SYNC}, 0);                                    // 6
  b.add(1, 1, "mprotect", {kAt, 4096, PROT_READ}, 0);                               // 7
  b.add(1, 1, "madvise", {kAt, 8192, MADV_RANDOM}, 0);                              // 8
  b.add(1, 1, "munmap", {kAt, 8192}, 0);                                            // 9
  add_fault(b, kAt + 100, 0, "/m", 0);  // 10 after munmap: as for the executable, which no traced mmap mapped
  b.add(1, 1, "mmap", {0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0}, kAnon);  // 11
  b.add(1, 1, "mremap", {kAnon, 4096, 3 * 4096, MREMAP_MAYMOVE, 0}, kAnon + 0x10000);  // 12
  b.add(1, 1, "madvise", {kAnon + 0x10000, 4096, 100 /* MADV_HWPOISON */}, 0);       // 13
  b.add(1, 1, "brk", {0}, 0x5555000);                                               // 14
  add_fault(b, 0x1000, 0, "", 0);                                                   // 15 no file named
  add_fault(b, 0x2000, 0, "/absent", 0);                                            // 16 not in the root
  b.add(1, 1, "munmap", {0x7f0000900000, 4096}, 0);                                 // 17 never mapped
  FamilyRun r(b);
  for (int i : {0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12}) EXPECT_EQ(r.outs[static_cast<size_t>(i)].flags, 0u) << i;
  EXPECT_EQ(r.outs[13].skip, SkipReason::kUnsupported) << "an advice that acts on the machine";
  EXPECT_EQ(r.outs[15].skip, SkipReason::kUnknownMapping);
  EXPECT_EQ(r.outs[16].flags, trace::kEventMismatch) << "the file is missing: ENOENT, not the traced 0";
  EXPECT_EQ(r.outs[17].skip, SkipReason::kUnknownMapping);
  EXPECT_EQ(r.scratch.stats.emulated, 2u);  // the fault-around range and brk
  const int fd = ::open(r.dir.sub("m").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  char c = 0;
  ASSERT_EQ(::pread(fd, &c, 1, 4096 + 7), 1);
  EXPECT_EQ(c, static_cast<char>('a' + (kAt + 4096 + 7) % 26)) << "the write fault did not reach the file";
  ::close(fd);
}

// The dynamic loader's pattern: reserve a library's whole span, then map its segments over it
// with MAP_FIXED. The replay maps each segment over the replay pages standing for its traced
// range (the kernel replaces pages there, as in the trace), not at a fresh address.
TEST(ExecFamilies, FixedMappingsReplaceThePagesOfTheReplayMappingTheyCover) {
  constexpr int64_t kAt = 0x7f0000400000, kPage = 4096;
  TraceBuilder b;
  b.add(1, 1, "open", {0, O_CREAT | O_RDWR, 0644}, 3, {"/lib"});
  b.add(1, 1, "ftruncate", {3, 4 * kPage}, 0);
  b.add(1, 1, "mmap", {0, 4 * kPage, PROT_READ, MAP_PRIVATE | MAP_DENYWRITE, 3, 0}, kAt);  // 2 reserve
  b.add(1, 1, "mmap", {kAt + kPage, 2 * kPage, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, 3, kPage},
        kAt + kPage);                                                                    // 3 text
  b.add(1, 1, "mmap", {kAt + 3 * kPage, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0},
        kAt + 3 * kPage);                                                                // 4 bss
  add_fault(b, kAt + kPage + 5, 0, "/lib", kPage);                                       // 5 in the text
  b.add(1, 1, "mprotect", {kAt, kPage, PROT_NONE}, 0);                                   // 6 the rest of the reserve
  b.add(1, 1, "mmap", {0x7f0000900000, kPage, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0},
        0x7f0000900000);                                                                 // 7 over nothing backed
  b.add(1, 1, "munmap", {kAt, 4 * kPage}, 0);                                            // 8 all of it
  FamilyRun r(b);
  for (size_t i = 0; i < r.outs.size(); ++i) EXPECT_EQ(r.outs[i].flags, 0u) << i;
  const int64_t base = r.outs[2].rvalue;
  EXPECT_EQ(r.outs[3].rvalue, base + kPage) << "the text segment over the reserve's second page";
  EXPECT_EQ(r.outs[4].rvalue, base + 3 * kPage) << "the bss over its last page";
  EXPECT_NE(r.outs[7].rvalue, 0x7f0000900000) << "no traced address is ever mapped";
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
  b.add(1, 1, "mlock", {0, 4096}, 0);                         // memory
  b.add(1, 1, "chroot", {}, -EPERM, {"/"});                   // process
  FamilyRun r(b);
  for (const auto& o : r.outs) EXPECT_EQ(o.skip, SkipReason::kUnsupported);
  for (const char* n : {"openat2", "poll", "mlock", "chroot"}) EXPECT_EQ(r.scratch.stats.unsupported[n], 1u) << n;
}

}  // namespace
}  // namespace rastro::replay
