// The one initial-cwd rule (replay/passes/initial_cwd.h) and that path resolution, the process
// seeds and the initial-state planner all follow it.
#include "replay/passes/initial_cwd.h"

#include <gtest/gtest.h>

#include "replay/passes/replay_passes.h"
#include "tests/replay/trace_builder_plan.h"

namespace rastro::replay {
namespace {

TEST(InitialCwd, HeaderCwdFromSettingsThenEnvironmentThenExtraAbsoluteAndNormalised) {
  trace::TraceHeader h;
  EXPECT_EQ(initial_cwd(h), "");
  EXPECT_EQ(initial_cwd_or_root(h), "/");
  h.extra["cwd"] = "/x//y/./z/";
  EXPECT_EQ(initial_cwd(h), "/x/y/z");
  h.environment["cwd"] = "/env/../e";
  EXPECT_EQ(initial_cwd(h), "/e");
  h.settings["cwd"] = "relative/dir";  // not absolute: ignored
  EXPECT_EQ(initial_cwd(h), "/e");
  h.settings["cwd"] = "/s";
  EXPECT_EQ(initial_cwd(h), "/s");
  h.settings["cwd"] = 7;  // not a string: ignored
  EXPECT_EQ(initial_cwd_or_root(h), "/e");
}

// A relative name in a trace whose header records the cwd only in `extra`, unnormalised: the
// resolved path, the process's starting cwd and the file --init creates agree. (Before the one
// rule, the seeds ignored `extra` and the --init planner always started in "/", creating "/f".)
TEST(InitialCwd, PathsSeedsAndInitialStateFollowTheSameRule) {
  testing::PlanTraceBuilder b;
  b.add(5, 5, 100, 200, "openat", {-100, "f", 0, 0}, 3);
  b.add(5, 5, 300, 400, "read", {3, 0, 10}, 10);
  trace::Trace t = b.take();
  t.header.extra["cwd"] = "/w/./d/";
  auto p = infer_plan(std::move(t), Ordering::kFs);
  ASSERT_TRUE(p.ok()) << p.error();
  const Plan& plan = p.value();
  EXPECT_EQ(plan.trace.str(plan.paths[0][0]), "/w/d/f");
  ASSERT_EQ(plan.processes.size(), 1u);
  EXPECT_EQ(plan.processes[0].cwd, "/w/d");
  std::vector<std::string> created;
  for (const InitEntry& e : plan.init.entries) created.push_back(e.path);
  EXPECT_EQ(created, (std::vector<std::string>{"/w", "/w/d", "/w/d/f"}));
  EXPECT_EQ(plan.init.entries.back().size, 10u);  // sized to what was read from it
  EXPECT_EQ(plan.figures.unresolved_paths, 0u);
}

// The eBPF backend records no cwd in the header but the directory of every AT_FDCWD
// ("AT_FDCWD</w>"): that is the process's cwd, also for its later calls without a dirfd (make's
// stat("f1.o") resolved to "/f1.o" and found nothing the compiler had made in /w).
TEST(InitialCwd, RecordedAtFdcwdIsTheProcessCwdForItsOtherCalls) {
  testing::PlanTraceBuilder b;
  const size_t open = b.add(5, 5, 100, 200, "openat", {-100, "a", 0, 0}, 3);
  b.trace().events[open].args[0].str = b.trace().strings.intern("/w");
  b.add(5, 5, 300, 400, "read", {3, 0, 10}, 10);
  b.add(5, 5, 500, 600, "stat", {"b", 0}, 0);
  auto p = infer_plan(b.take(), Ordering::kFs);
  ASSERT_TRUE(p.ok()) << p.error();
  const Plan& plan = p.value();
  EXPECT_EQ(plan.trace.str(plan.paths[0][0]), "/w/a");
  EXPECT_EQ(plan.trace.str(plan.paths[2][0]), "/w/b");
  std::vector<std::string> created;
  for (const InitEntry& e : plan.init.entries) created.push_back(e.path);
  EXPECT_EQ(created, (std::vector<std::string>{"/w", "/w/a", "/w/b"}));
}

}  // namespace
}  // namespace rastro::replay
