// A hostile trace (paths with "..", absolute paths outside the root, symlinks it plants and one
// planted in the root beforehand, device nodes, /proc magic links, NUL and odd bytes) replayed
// with --init by both engines under hand-made and inferred plans: nothing outside the root is
// created, written, renamed, unlinked or chmod-ed. Checked with a canary directory next to the
// root (full listing + contents + modes + mtimes before/after).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/runtime/fs_init.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TraceBuilder;

trace::Trace hostile_trace(const std::string& canary) {
  TraceBuilder b;
  const std::string c = canary;  // its real absolute path, as a trace from this host would name it
  int fd = 3;
  auto create_write = [&](const std::string& p) {
    b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, fd, {p});
    b.add(1, 1, "write", {fd, 0, 64}, 64);
    b.add(1, 1, "close", {fd}, 0);
  };
  for (const std::string& p : std::vector<std::string>
       {c + "/victim", c + "/new", "/../../../../" + c + "/victim", "../../../../../" + c + "/x",
        "/planted/victim", "/planted/../planted/new", "/etc/passwd", "/etc/rastro-should-not-exist",
        std::string("/odd\n\xff\x01name"), "/dev/sda", "/proc/self/root" + c + "/victim",
        "/proc/self/fd/0", std::string("/nul\0" "x", 6)}) {
    create_write(p);
  }
  b.add(1, 1, "chmod", {0, 0777}, 0, {c + "/victim"});
  b.add(1, 1, "chmod", {0, 0777}, 0, {"/planted/victim"});
  b.add(1, 1, "chmod", {0, 0777}, 0, {"/.."});
  b.add(1, 1, "chown", {0, 65534, 65534}, 0, {"/planted/victim"});
  b.add(1, 1, "truncate", {0, 0}, 0, {"/planted/victim"});
  b.add(1, 1, "utimensat", {AT_FDCWD, 0, 0, 0}, 0, {"/planted/victim"});
  b.add(1, 1, "setxattr", {0, 0, 0, 4, 0}, 0, {"/planted/victim", "user.rastro"});
  b.add(1, 1, "unlink", {}, 0, {c + "/victim"});
  b.add(1, 1, "unlink", {}, 0, {"/planted/victim"});
  b.add(1, 1, "rename", {}, 0, {"/planted/keep", "/x"});
  b.add(1, 1, "rename", {}, 0, {"/x", "/../../" + c + "/renamed"});
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/planted/dir"});
  b.add(1, 1, "rmdir", {}, 0, {"/planted/sub"});
  b.add(1, 1, "link", {}, 0, {"/planted/keep", "/planted/hardlink"});
  b.add(1, 1, "symlink", {}, 0, {c, "/esc"});  // the trace plants its own escape
  create_write("/esc/via-trace-symlink");
  b.add(1, 1, "chmod", {0, 0777}, 0, {"/esc"});
  // Path xattr calls walk their last name from the parent (*xattrat): one on a link they follow
  // (the trace's, the planted one) must follow it inside the root, never from the parent outside.
  b.add(1, 1, "setxattr", {0, 0, 0, 4, 0}, 0, {"/esc", "user.rastro"});
  b.add(1, 1, "setxattr", {0, 0, 0, 4, 0}, 0, {"/planted", "user.rastro"});
  b.add(1, 1, "removexattr", {}, 0, {"/esc", "user.keep"});
  b.add(1, 1, "removexattr", {}, 0, {"/planted", "user.keep"});
  b.add(1, 1, "mknod", {0, S_IFCHR | 0666, 0x0103}, 0, {"/nulldev"});
  b.add(1, 1, "mknod", {0, S_IFBLK | 0666, 0x0800}, 0, {c + "/blk"});
  b.add(1, 1, "chdir", {}, 0, {"/../../.."});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY, 0644}, fd, {"../../cwd-escape"});
  b.add(1, 1, "close", {fd}, 0);
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY | O_DIRECTORY, 0}, 9, {"/"});
  b.add(1, 1, "openat", {9, 0, O_CREAT | O_WRONLY, 0644}, 10, {"../../../" + c.substr(1) + "/dirfd"});
  b.add(1, 1, "unlinkat", {9, 0, 0}, 0, {"../planted/keep"});
  b.add(1, 1, "renameat2", {9, 0, AT_FDCWD, 0, 0}, 0, {"..", c + "/root-renamed"});
  return b.take();
}

struct Scenario {
  testing::TempDir top;
  std::string root = top.sub("root");
  std::string canary = top.sub("canary");
  std::string outside = top.sub("outside");

  Scenario() {
    mkdir(root.c_str(), 0755);
    mkdir(canary.c_str(), 0755);
    mkdir(outside.c_str(), 0755);
    testing::write_file(canary + "/victim", "canary victim");
    testing::write_file(canary + "/keep", "keep");
    mkdir((canary + "/sub").c_str(), 0755);
    testing::write_file(outside + "/victim", "outside victim");
    testing::write_file(outside + "/keep", "outside keep");
    mkdir((outside + "/sub").c_str(), 0755);
    // (Where the file system takes user xattrs: one a removexattr outside the root would take.)
    ::setxattr(canary.c_str(), "user.keep", "k", 1, 0);
    ::setxattr(outside.c_str(), "user.keep", "k", 1, 0);
    // Planted inside the root before the replay, pointing outside.
    EXPECT_EQ(symlink(outside.c_str(), (root + "/planted").c_str()), 0);
  }
  // The directories' extended attributes: what a path xattr call outside the root would change.
  std::string xattrs() const {
    std::string out;
    for (const std::string& d : {canary, outside}) {
      char buf[256];
      const ssize_t n = ::listxattr(d.c_str(), buf, sizeof buf);
      out += d + ":" + (n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string()) + ";";
    }
    return out;
  }
  std::map<std::string, std::string> outside_state() const {
    auto a = testing::snapshot(canary);
    auto b = testing::snapshot(outside);
    a.insert(b.begin(), b.end());
    // Entries next to the root (nothing new may appear beside it).
    for (const auto& e : std::filesystem::directory_iterator(top.path())) a["top:" + e.path().string()] = "";
    return a;
  }
};

void run_scenario(bool inferred, EngineKind eng) {
  Scenario s;
  auto before = s.outside_state();
  const std::string xattrs_before = s.xattrs();
  std::string etc_before = testing::read_file("/etc/passwd");
  trace::Trace t = hostile_trace(s.canary);
  Plan plan;
  if (inferred) {
    auto p = infer_plan(t, Ordering::kFs);
    ASSERT_TRUE(p.ok()) << p.error();
    plan = std::move(p.value());
  } else {
    plan = testing::hand_plan(t, false);
  }
  SandboxResolver sb(s.root);
  create_initial_state(sb, plan_initial_state(plan.trace));
  EngineResult res = run_engine(eng, plan, sb, EngineOptions{});
  EXPECT_EQ(res.records().size(), plan.requests.size());
  EXPECT_GT(res.stats.skipped_total(), 0u);  // the device nodes, /proc, NUL paths
  EXPECT_GT(res.stats.executed, 20u);        // most of it really ran, inside the root
  auto after = s.outside_state();
  EXPECT_EQ(before, after);
  EXPECT_EQ(s.xattrs(), xattrs_before) << "an xattr changed outside the root";
  for (const auto& [k, v] : after) {
    if (!before.count(k)) ADD_FAILURE() << "created outside the root: " << k;
  }
  for (const auto& [k, v] : before) {
    if (!after.count(k)) ADD_FAILURE() << "removed outside the root: " << k;
    else if (after[k] != v) ADD_FAILURE() << "changed outside the root: " << k;
  }
  EXPECT_EQ(testing::read_file("/etc/passwd"), etc_before);
  EXPECT_FALSE(std::filesystem::exists("/etc/rastro-should-not-exist"));
  // The writes landed inside the root instead.
  EXPECT_TRUE(std::filesystem::exists(s.root + s.canary + "/new"));
  EXPECT_TRUE(std::filesystem::exists(s.root + "/etc/passwd"));
  struct stat st;
  EXPECT_NE(lstat((s.root + "/nulldev").c_str(), &st), 0) << "no device node created";
}

TEST(SandboxHostileTrace, WorkersHandPlan) { run_scenario(false, EngineKind::kWorkers); }
TEST(SandboxHostileTrace, CoordinatorHandPlan) { run_scenario(false, EngineKind::kCoordinator); }
TEST(SandboxHostileTrace, WorkersInferredPlan) { run_scenario(true, EngineKind::kWorkers); }
TEST(SandboxHostileTrace, CoordinatorInferredPlan) { run_scenario(true, EngineKind::kCoordinator); }

}  // namespace
}  // namespace rastro::replay
