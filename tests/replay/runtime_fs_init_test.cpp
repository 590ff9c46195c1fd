#include "replay/runtime/fs_init.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/passes/fd_keys.h"
#include "replay/runtime/call_executor.h"
#include "replay/runtime/unique_fd.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TraceBuilder;

const InitEntry* find(const InitPlan& p, const std::string& path) {
  for (const auto& e : p.entries) {
    if (e.path == path) return &e;
  }
  return nullptr;
}

TEST(RuntimeFsInit, DecidesInitialStateFromFirstUse) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"/data/in"});
  b.add(1, 1, "read", {3, 0, 4096}, 4096);
  b.add(1, 1, "read", {3, 0, 4096}, 100);  // short read: the file ends at 4196
  b.add(1, 1, "pread64", {3, 0, 10, 1000}, 10);
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_EXCL | O_WRONLY, 0644}, 4, {"/data/new"});
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/data/sub"});
  b.add(1, 1, "stat", {}, -ENOENT, {"/data/absent"});
  b.add(1, 1, "stat", {}, 0, {"/etc/conf"});
  b.add(1, 1, "chdir", {}, 0, {"/work"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDWR | O_CREAT, 0644}, 5, {"rel"});  // /work/rel
  b.add(1, 1, "pread64", {5, 0, 4096, 8192}, 4096);
  b.add(1, 1, "readlink", {0, 0, 64}, 7, {"/lnk"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, -ENOENT, {"/proc/1/stat"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644}, 6, {"/data/trunc"});
  b.add(1, 1, "read", {6, 0, 10}, 10);  // reads what was written after the truncation
  trace::Trace t = b.take();
  t.header.settings["initial_files"] = {{"/data/declared", 12345}};
  InitPlan p = plan_initial_state(t);

  const InitEntry* in = find(p, "/data/in");
  ASSERT_TRUE(in);
  EXPECT_EQ(in->kind, InitEntry::Kind::kFile);
  EXPECT_EQ(in->size, 4196u);
  ASSERT_TRUE(find(p, "/data"));
  EXPECT_EQ(find(p, "/data")->kind, InitEntry::Kind::kDir);
  EXPECT_FALSE(find(p, "/data/new"));
  EXPECT_FALSE(find(p, "/data/sub"));
  EXPECT_FALSE(find(p, "/data/absent"));
  EXPECT_FALSE(find(p, "/data/trunc"));
  ASSERT_TRUE(find(p, "/etc/conf"));
  ASSERT_TRUE(find(p, "/work"));
  EXPECT_EQ(find(p, "/work")->kind, InitEntry::Kind::kDir);
  ASSERT_TRUE(find(p, "/work/rel"));
  EXPECT_EQ(find(p, "/work/rel")->size, 12288u);
  ASSERT_TRUE(find(p, "/lnk"));
  EXPECT_EQ(find(p, "/lnk")->kind, InitEntry::Kind::kSymlink);
  EXPECT_EQ(find(p, "/lnk")->target.size(), 7u);
  ASSERT_TRUE(find(p, "/data/declared"));
  EXPECT_EQ(find(p, "/data/declared")->size, 12345u);
  for (const auto& e : p.entries) EXPECT_EQ(e.path.rfind("/proc", 0), std::string::npos) << e.path;

  testing::TempDir root;
  SandboxResolver sb(root.path());
  InitReport r = create_initial_state(sb, p);
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  struct stat st;
  ASSERT_EQ(stat(root.sub("data/in").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 4196);
  EXPECT_GE(st.st_blocks * 512, 4096) << "real data, not a hole";
  ASSERT_EQ(stat(root.sub("work/rel").c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 12288);
  ASSERT_EQ(lstat(root.sub("lnk").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_FALSE(std::filesystem::exists(root.sub("data/new")));
  EXPECT_EQ(r.files, 4u);
}

TEST(RuntimeFsInit, ForkedChildInheritsFds) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"/in"});
  b.add(1, 1, "fork", {}, 2);
  b.add(2, 2, "read", {3, 0, 500}, 500);
  InitPlan p = plan_initial_state(b.take());
  ASSERT_TRUE(find(p, "/in"));
  EXPECT_EQ(find(p, "/in")->size, 500u);
}

// The eBPF backend records AT_FDCWD's directory ("AT_FDCWD</w>") and no cwd in the header: a
// relative path is below that directory, which is then a directory, not the file its first use
// (a stat of "/w") left undecided (it became one, and every call below it failed ENOTDIR).
TEST(RuntimeFsInit, RelativePathsFollowTheCwdTheCaptureRecorded) {
  TraceBuilder b;
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/w"});
  trace::Event& open = b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"src/f"});
  open.args[0].str = b.t.strings.intern("/w");
  b.add(1, 1, "read", {3, 0, 100}, 100);
  InitPlan p = plan_initial_state(b.take());
  ASSERT_TRUE(find(p, "/w"));
  EXPECT_EQ(find(p, "/w")->kind, InitEntry::Kind::kDir);
  ASSERT_TRUE(find(p, "/w/src"));
  EXPECT_EQ(find(p, "/w/src")->kind, InitEntry::Kind::kDir);
  ASSERT_TRUE(find(p, "/w/src/f"));
  EXPECT_EQ(find(p, "/w/src/f")->size, 100u);
  EXPECT_FALSE(find(p, "/src/f"));
}

// Creates `p` in a fresh root and executes every call of `t` there in trace order: the calls whose
// result differs from the traced one, as "call path: replayed vs traced".
std::vector<std::string> replay_mismatches(const trace::Trace& t, const InitPlan& p) {
  testing::TempDir root;
  SandboxResolver sb(root.path());
  InitReport r = create_initial_state(sb, p);
  EXPECT_TRUE(r.problems.empty()) << r.problems.front();
  ProcessTable procs(process_seeds(t));
  CallExecutor ex(sb, procs, t.strings);
  ThreadScratch scratch;
  std::vector<std::string> out;
  for (const trace::Event& e : t.events) {
    const CallOutcome o = ex.execute(e, nullptr, scratch);
    if (o.flags & trace::kEventMismatch) {
      std::string path;
      for (int i = 0; i < e.nargs; ++i)
        if (e.arg(i).type == trace::ArgType::kPath) path = std::string(t.str(e.arg(i).str));
      out.push_back(std::string(trace::function_name(e, t.strings)) + " " + path + ": " + std::to_string(o.rvalue) +
                    " vs " + std::to_string(e.rvalue));
    }
  }
  return out;
}

// make's and gcc's walk over the toolchain (the corpus's make capture): cc found on PATH by stat
// and access(X_OK), then resolved by realpath — readlink of every component: EINVAL for a
// directory or file, the target's length for a symlink, the walk then going on along the target.
// The links get the targets their walk shows, the file at the end of the chain is executable,
// paths readlink found to be no symlinks exist, a directory is one when a call named it "X/." or
// failed ENOENT below it (a file there would have said ENOTDIR).
TEST(RuntimeFsInit, ToolchainWalkGivesLinksTheirTargetsAndPathsTheirKind) {
  TraceBuilder b;
  auto readlink = [&](const std::string& p, int64_t rv) { b.add(1, 1, "readlink", {0, 0, 1023}, rv, {p}); };
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/usr/bin/cc"});
  b.add(1, 1, "access", {0, X_OK}, 0, {"/usr/bin/cc"});
  readlink("/usr", -EINVAL);
  readlink("/usr/bin", -EINVAL);
  readlink("/usr/bin/cc", 20);  // -> /etc/alternatives/cc
  readlink("/etc", -EINVAL);
  readlink("/etc/alternatives", -EINVAL);
  readlink("/etc/alternatives/cc", 12);  // -> /usr/bin/gcc
  readlink("/usr", -EINVAL);
  readlink("/usr/bin", -EINVAL);
  readlink("/usr/bin/gcc", 6);  // -> gcc-12
  readlink("/usr/bin/gcc-12", -EINVAL);
  b.add(1, 1, "stat", {}, 0, {"/usr/local/include"});
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, -ENOENT, {"/usr/local/include/x86_64-linux-gnu"});
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/opt/stubs/."});
  b.add(1, 1, "access", {0, R_OK}, -ENOENT, {"/opt/stubs/specs"});
  b.add(1, 1, "stat", {}, 0, {"/usr/bin/cc"});
  const trace::Trace t = b.take();
  const InitPlan p = plan_initial_state(t);

  const InitEntry* cc = find(p, "/usr/bin/cc");
  ASSERT_TRUE(cc);
  EXPECT_EQ(cc->kind, InitEntry::Kind::kSymlink);
  EXPECT_EQ(cc->target, "/etc/alternatives/cc");
  ASSERT_TRUE(find(p, "/etc/alternatives/cc"));
  EXPECT_EQ(find(p, "/etc/alternatives/cc")->target, "/usr/bin/gcc");
  ASSERT_TRUE(find(p, "/usr/bin/gcc"));
  EXPECT_EQ(find(p, "/usr/bin/gcc")->target, "gcc-12");
  const InitEntry* gcc = find(p, "/usr/bin/gcc-12");
  ASSERT_TRUE(gcc) << "readlink's EINVAL: it exists and is no symlink";
  EXPECT_EQ(gcc->kind, InitEntry::Kind::kFile);
  EXPECT_EQ(gcc->mode, 0755u) << "access(X_OK) through the links";
  ASSERT_TRUE(find(p, "/usr/local/include"));
  EXPECT_EQ(find(p, "/usr/local/include")->kind, InitEntry::Kind::kDir);
  ASSERT_TRUE(find(p, "/opt/stubs"));
  EXPECT_EQ(find(p, "/opt/stubs")->kind, InitEntry::Kind::kDir);
  EXPECT_FALSE(find(p, "/usr/local/include/x86_64-linux-gnu"));
  EXPECT_FALSE(find(p, "/opt/stubs/specs"));

  const std::vector<std::string> bad = replay_mismatches(t, p);
  EXPECT_TRUE(bad.empty()) << bad.size() << " mismatches, first: " << bad.front();
}

// git init: the repository directory did not exist (stat ENOENT), then was made; the log file's
// first open failed ENOENT (no logs directory yet), it was created and appended to, then read
// back. Nothing below the new directory existed before the trace — not the appended file that
// was read (before, it was created with the size read, and so was the directory above it: the
// replay's stat found .git and its mkdir failed EEXIST).
TEST(RuntimeFsInit, NothingExistedBelowADirectoryTheTraceMade) {
  TraceBuilder b;
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, AT_SYMLINK_NOFOLLOW}, -ENOENT, {"/r/.git"});
  b.add(1, 1, "mkdir", {0, 0777}, 0, {"/r/.git"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_WRONLY | O_CREAT | O_APPEND, 0666}, -ENOENT, {"/r/.git/logs/HEAD"});
  b.add(1, 1, "mkdir", {0, 0777}, 0, {"/r/.git/logs"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_WRONLY | O_CREAT | O_APPEND, 0666}, 3, {"/r/.git/logs/HEAD"});
  b.add(1, 1, "write", {3, 0, 127}, 127);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"/r/.git/logs/HEAD"});
  b.add(1, 1, "read", {3, 0, 4096}, 127);
  b.add(1, 1, "close", {3}, 0);
  const trace::Trace t = b.take();
  const InitPlan p = plan_initial_state(t);
  for (const InitEntry& e : p.entries) EXPECT_EQ(e.path.find("/r/.git"), std::string::npos) << e.path;
  ASSERT_TRUE(find(p, "/r"));
  const std::vector<std::string> bad = replay_mismatches(t, p);
  EXPECT_TRUE(bad.empty()) << bad.size() << " mismatches, first: " << bad.front();
}

// A read of bytes the trace wrote says nothing about the file's original size: only reads past
// everything written so far do (a synthetic trace's pread64 of its own writes sized the file to
// the writes, and the replay's reads of the original part found more than the traced EOF).
TEST(RuntimeFsInit, ReadsOfWrittenBytesDoNotSizeTheOriginalFile) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDWR, 0}, 3, {"/d/f"});
  b.add(1, 1, "pread64", {3, 0, 100, 0}, 100);
  b.add(1, 1, "pwrite64", {3, 0, 8192, 0}, 8192);
  b.add(1, 1, "pread64", {3, 0, 4096, 4096}, 4096);  // written bytes
  b.add(1, 1, "lseek", {3, 0, SEEK_END}, 8192);       // the end the write made
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDWR, 0}, 4, {"/d/g"});
  b.add(1, 1, "write", {4, 0, 1000}, 1000);
  b.add(1, 1, "pread64", {4, 0, 4096, 0}, 3000);  // reads past the write: the original was 3000
  InitPlan p = plan_initial_state(b.take());
  ASSERT_TRUE(find(p, "/d/f"));
  EXPECT_EQ(find(p, "/d/f")->size, 100u);
  ASSERT_TRUE(find(p, "/d/g"));
  EXPECT_EQ(find(p, "/d/g")->size, 3000u);
}

// Debian's merged /usr: the loader opens /lib/x86_64-linux-gnu/libc.so.6, which the kernel
// resolves through the link /lib -> usr/lib (the capture records the fd's path), and cmake later
// readlinks /lib (7 bytes). /lib is then a link, not the directory its use as an ancestor made it,
// and what was used below it is created where it leads. The loader maps libc's whole segment span
// (past the end of the file); a read returning fewer bytes than asked met the end: the size.
TEST(RuntimeFsInit, ALinkUsedAsADirectoryIsMadeALinkToWhereTheKernelWent) {
  TraceBuilder b;
  const std::string lib = "/lib/x86_64-linux-gnu/libc.so.6", real = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  auto on_fd = [&](trace::Event& e, const std::string& path) { e.args[0].str = b.t.strings.intern(path); };
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_CLOEXEC, 0}, 3, {lib});
  on_fd(b.add(1, 1, "read", {3, 0, 832}, 832), real);
  auto& map = b.add(1, 1, "mmap", {0, 1974096, PROT_READ, MAP_PRIVATE, 3, 0}, 0x7f0000000000);
  map.args[4].str = b.t.strings.intern(real);
  on_fd(b.add(1, 1, "lseek", {3, 1921024, SEEK_SET}, 1921024), real);
  on_fd(b.add(1, 1, "read", {3, 0, 4096}, 1112), real);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "readlink", {0, 0, 1023}, 7, {"/lib"});
  b.add(1, 1, "readlink", {0, 0, 1023}, 20, {"/usr/local/cuda"});  // nothing goes through it
  // A link with paths used below it and no sign of its target: a directory of a name of its length.
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/opt/l/sub/f"});
  b.add(1, 1, "readlink", {0, 0, 1023}, 5, {"/opt/l"});
  InitPlan p = plan_initial_state(b.take());

  const InitEntry* link = find(p, "/lib");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->kind, InitEntry::Kind::kSymlink);
  EXPECT_EQ(link->target, "usr/lib");
  EXPECT_FALSE(find(p, lib)) << "created through the link, not beside it";
  ASSERT_TRUE(find(p, real));
  EXPECT_EQ(find(p, real)->size, 1921024u + 1112u);
  ASSERT_TRUE(find(p, "/usr/local/cuda"));
  EXPECT_EQ(find(p, "/usr/local/cuda")->target.size(), 20u);
  const InitEntry* opt = find(p, "/opt/l");
  ASSERT_TRUE(opt);
  ASSERT_EQ(opt->kind, InitEntry::Kind::kSymlink);
  ASSERT_EQ(opt->target.size(), 5u);
  EXPECT_TRUE(find(p, "/opt/" + opt->target + "/sub/f"));

  testing::TempDir root;
  SandboxResolver sb(root.path());
  const InitReport rep = create_initial_state(sb, p);
  EXPECT_TRUE(rep.problems.empty()) << rep.problems.front();
  char buf[64];
  ssize_t n = ::readlink(root.sub("lib").c_str(), buf, sizeof buf);
  EXPECT_EQ(std::string(buf, static_cast<size_t>(std::max<ssize_t>(n, 0))), "usr/lib");
  struct stat st {};
  ASSERT_EQ(::stat(root.sub("lib/x86_64-linux-gnu/libc.so.6").c_str(), &st), 0) << "the traced name, through the link";
  EXPECT_EQ(st.st_size, 1921024 + 1112);
  EXPECT_EQ(::readlink(root.sub("opt/l").c_str(), buf, sizeof buf), 5);
  EXPECT_EQ(::stat(root.sub("opt/l/sub/f").c_str(), &st), 0);
}

// python lists every directory on sys.path and opens only what it imports: the listing's byte
// count is all the trace has of the other entries. --init makes placeholder entries whose records
// (linux_dirent64: 19 bytes, the name and its NUL, padded to 8) make up the traced count, so the
// replayed listing returns it; a directory the trace changed before listing it gets none.
TEST(RuntimeFsInit, ListedDirectoriesGetTheEntriesTheirListingShows) {
  TraceBuilder b;
  // "." and ".." (24 bytes each), "json" (24) and 3000 bytes of entries never named.
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0}, 3, {"/usr/lib/py"});
  b.add(1, 1, "getdents64", {3, 0, 32768}, 48 + 24 + 3000);
  b.add(1, 1, "getdents64", {3, 0, 32768}, 0);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/usr/lib/py/json"});
  // A directory the trace adds to before listing it: its listing shows the new entry too.
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/w/new"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_DIRECTORY, 0}, 3, {"/w"});
  b.add(1, 1, "getdents64", {3, 0, 32768}, 48 + 24 + 800);
  b.add(1, 1, "getdents64", {3, 0, 32768}, 0);
  b.add(1, 1, "close", {3}, 0);
  const trace::Trace t = b.take();
  const InitPlan p = plan_initial_state(t);
  size_t py = 0, w = 0;
  for (const InitEntry& e : p.entries) {
    if (e.path.rfind("/usr/lib/py/~", 0) == 0) {
      ++py;
      EXPECT_EQ(e.kind, InitEntry::Kind::kFile);
      EXPECT_LE(e.path.size() - e.path.rfind('/') - 1, 255u) << e.path;
    }
    if (e.path.rfind("/w/~", 0) == 0) ++w;
  }
  EXPECT_GE(py, 3000u / 280);
  EXPECT_EQ(w, 0u);
  // The replayed listing of /usr/lib/py returns the traced 3072 bytes (with no placeholders: 72).
  // That of /w returns 72 bytes for the traced 872: the trace made no claim about /w's entries.
  const std::vector<std::string> bad = replay_mismatches(t, p);
  ASSERT_EQ(bad.size(), 1u) << (bad.empty() ? "" : bad.front());
  EXPECT_EQ(bad.front(), "getdents64 : 72 vs 872");
}

// PostgreSQL's timezone scan reads a directory until it meets the name it wants: one getdents64
// that left room in its buffer for more records, then close, no call returning 0. That call
// returned every entry (the kernel fills the buffer while entries remain), so the listing is
// complete; one that filled its buffer is not, and gets no placeholders.
TEST(RuntimeFsInit, AListingCallThatLeftRoomInItsBufferIsComplete) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_DIRECTORY, 0}, 3, {"/usr/share/zoneinfo"});
  b.add(1, 1, "getdents64", {3, 0, 32768}, 2136);
  b.add(1, 1, "close", {3}, 0);
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/usr/share/zoneinfo/Etc"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_DIRECTORY, 0}, 3, {"/var/full"});
  b.add(1, 1, "getdents64", {3, 0, 1024}, 1000);  // 24 bytes left: the next record may not fit
  b.add(1, 1, "close", {3}, 0);
  const trace::Trace t = b.take();
  const InitPlan p = plan_initial_state(t);
  size_t full = 0;
  for (const InitEntry& e : p.entries) full += e.path.rfind("/var/full/~", 0) == 0;
  EXPECT_EQ(full, 0u);
  const std::vector<std::string> bad = replay_mismatches(t, p);
  ASSERT_EQ(bad.size(), 1u) << (bad.empty() ? "" : bad.front());
  EXPECT_EQ(bad.front(), "getdents64 : 48 vs 1000");
}

// POSIX shared memory (shm_open: PostgreSQL's dynamic shared memory, Python's multiprocessing)
// is a file in the tmpfs at /dev/shm that the program creates, sizes, maps and unlinks: replayed
// as a file inside the root, not refused as a device. The host's /dev/shm is not touched.
TEST(RuntimeFsInit, SharedMemoryFilesAreReplayedInsideTheRoot) {
  const std::string name = "/dev/shm/rastro-test-PostgreSQL." + std::to_string(getpid());
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600}, 5, {name});
  b.add(1, 1, "ftruncate", {5, 26976}, 0);
  b.add(1, 1, "fallocate", {5, 0, 0, 26976}, 0);
  b.add(1, 1, "mmap", {0, 26976, PROT_READ | PROT_WRITE, MAP_SHARED, 5, 0}, 0x7f0000000000);
  b.add(1, 1, "close", {5}, 0);
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {name});
  b.add(1, 1, "munmap", {0x7f0000000000, 26976}, 0);
  b.add(1, 1, "unlink", {0}, 0, {name});
  const trace::Trace t = b.take();
  const InitPlan p = plan_initial_state(t);
  ASSERT_NE(find(p, "/dev/shm"), nullptr);
  EXPECT_EQ(find(p, "/dev/shm")->kind, InitEntry::Kind::kDir);
  EXPECT_EQ(find(p, name), nullptr);  // the trace makes it

  testing::TempDir root;
  SandboxResolver sb(root.path());
  ASSERT_TRUE(create_initial_state(sb, p).problems.empty());
  ProcessTable procs(process_seeds(t));
  CallExecutor ex(sb, procs, t.strings);
  ThreadScratch scratch;
  for (const trace::Event& e : t.events) {
    const CallOutcome o = ex.execute(e, nullptr, scratch);
    EXPECT_EQ(o.flags & (trace::kEventSkipped | trace::kEventMismatch), 0u)
        << trace::function_name(e, t.strings) << ": " << o.rvalue << " (skip " << static_cast<int>(o.skip) << ")";
    if (std::string(trace::function_name(e, t.strings)) == "newfstatat") {
      struct stat st {};
      ASSERT_EQ(::stat(root.sub(name.substr(1)).c_str(), &st), 0) << "not made inside the root";
      EXPECT_EQ(st.st_size, 26976);
      EXPECT_NE(::access(name.c_str(), F_OK), 0) << name << " made on the host";
    }
  }
  EXPECT_NE(::access(root.sub(name.substr(1)).c_str(), F_OK), 0) << "the unlink was not replayed";
}

// The traced program's pre-existing files were on disk; init's copies must be too before the
// replay starts, or the replay's first fsync (or the writeback) pays for them. The kernel says
// whether a file's data is still only in the page cache: FIEMAP flags such extents DELALLOC
// (ext4, xfs, btrfs allocate at writeback).
TEST(RuntimeFsInit, InitialStateIsOnDiskBeforeTheReplayStarts) {
  InitPlan p;
  p.entries.push_back({InitEntry::Kind::kDir, "/d", 0, 0755, ""});
  p.entries.push_back({InitEntry::Kind::kFile, "/d/data", 4u << 20, 0644, ""});
  testing::TempDir root;
  SandboxResolver sb(root.path());
  InitReport r = create_initial_state(sb, p);
  ASSERT_TRUE(r.problems.empty()) << r.problems.front();
  UniqueFd fd(open(root.sub("d/data").c_str(), O_RDONLY));
  ASSERT_GE(fd.get(), 0);
  constexpr unsigned kMax = 64;
  std::vector<char> buf(sizeof(fiemap) + kMax * sizeof(fiemap_extent));
  auto* fm = reinterpret_cast<fiemap*>(buf.data());
  fm->fm_length = FIEMAP_MAX_OFFSET;  // no FIEMAP_FLAG_SYNC: the state as init left it
  fm->fm_extent_count = kMax;
  if (ioctl(fd.get(), FS_IOC_FIEMAP, fm) != 0) {
    if (errno == EOPNOTSUPP || errno == ENOTTY) GTEST_SKIP() << root.path() << ": no FIEMAP on this file system";
    FAIL() << "FIEMAP: " << std::strerror(errno);
  }
  ASSERT_GT(fm->fm_mapped_extents, 0u) << "4 MiB of data in no extent";
  for (unsigned i = 0; i < fm->fm_mapped_extents; ++i) {
    EXPECT_EQ(fm->fm_extents[i].fe_flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN), 0u)
        << "extent " << i << " still in the page cache only";
  }
}

}  // namespace
}  // namespace rastro::replay

namespace rastro::replay {
namespace {

bool later(const timespec& a, const timespec& b) { return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec); }

// What init makes looks already read since it was written (atime later than mtime and ctime), as
// the traced program's inputs were: with relatime, a first read then updates no atime — an inode
// write inside the replayed call that the traced call did not make.
TEST(RuntimeFsInit, WhatInitMakesReadsWithoutAnAccessTimeUpdate) {
  testing::TempDir root;
  SandboxResolver sb(root.path());
  InitPlan plan;
  plan.entries.push_back({InitEntry::Kind::kDir, "/d", 0, 0755, ""});
  plan.entries.push_back({InitEntry::Kind::kFile, "/d/f", 5000, 0644, ""});
  plan.entries.push_back({InitEntry::Kind::kSymlink, "/d/l", 0, 0644, "f"});
  plan.entries.push_back({InitEntry::Kind::kFile, "/e/g", 10, 0644, ""});  // its directory made on the way
  const InitReport rep = create_initial_state(sb, plan);
  EXPECT_TRUE(rep.problems.empty()) << rep.problems.front();
  for (const char* p : {"d", "d/f", "d/l", "e", "e/g"}) {
    struct stat st {};
    ASSERT_EQ(::lstat(root.sub(p).c_str(), &st), 0) << p;
    EXPECT_TRUE(later(st.st_atim, st.st_mtim)) << p;
    EXPECT_TRUE(later(st.st_atim, st.st_ctim)) << p;
  }
  struct stat before {}, after {};
  ASSERT_EQ(::stat(root.sub("d/f").c_str(), &before), 0);
  const int fd = ::open(root.sub("d/f").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  char buf[832];
  EXPECT_EQ(::read(fd, buf, sizeof buf), static_cast<ssize_t>(sizeof buf));
  ::close(fd);
  ASSERT_EQ(::stat(root.sub("d/f").c_str(), &after), 0);
  EXPECT_EQ(after.st_atim.tv_sec, before.st_atim.tv_sec);
  EXPECT_EQ(after.st_atim.tv_nsec, before.st_atim.tv_nsec) << "the first read updated the access time";
}

}  // namespace
}  // namespace rastro::replay
