#include "replay/runtime/fs_init.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace rastro::replay
