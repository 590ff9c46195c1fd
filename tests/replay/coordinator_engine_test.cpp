// The coordinator engine's hand-offs: by default (the thesis design) every request passes through
// the coordinator's queue; with coordinator_chain, only those that wait for something other than
// their own thread's previous request.
#include <fcntl.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

EngineResult replay(const Plan& plan, bool chain, const testing::TempDir& root) {
  SandboxResolver sb(root.path());
  EngineOptions o;
  o.coordinator_chain = chain;
  EngineResult res = run_engine(EngineKind::kCoordinator, plan, sb, o);
  EXPECT_EQ(res.stats.skipped_total(), 0u);
  EXPECT_EQ(res.stats.mismatched, 0u);
  EXPECT_EQ(std::filesystem::file_size(root.sub("a")), 500u);
  EXPECT_EQ(std::filesystem::file_size(root.sub("b")), 1000u);
  return res;
}

TEST(CoordinatorEngine, ThesisDesignHandsEveryRequestThroughTheCoordinator) {
  const Plan plan = infer_plan(testing::two_threads_reusing_fd3(), Ordering::kThread).take();
  ASSERT_EQ(plan.requests.size(), 104u);
  testing::TempDir root;
  EXPECT_EQ(replay(plan, false, root).handoffs, 104u);
}

TEST(CoordinatorEngine, ChainRunsAThreadsOwnSequenceWithoutTheCoordinator) {
  // Thread ordering: each thread's requests depend only on their predecessor, so only the two
  // threads' first requests go through the coordinator.
  const Plan plan = infer_plan(testing::two_threads_reusing_fd3(), Ordering::kThread).take();
  testing::TempDir root;
  EngineResult res = replay(plan, true, root);
  EXPECT_EQ(res.handoffs, 2u);
  for (size_t r = 1; r < res.log.size(); ++r) {
    if (plan.requests[r].thread == plan.requests[r - 1].thread) {
      EXPECT_GE(res.records()[r].begin_ns, res.records()[r - 1].end_ns) << "request " << r;
    }
  }
}

TEST(CoordinatorEngine, ChainKeepsOtherThreadsDependencies) {
  // Temporal ordering (hand_plan): thread 11's first request waits for thread 10's last; every
  // request with such an edge still goes through the coordinator and still waits.
  const Plan plan = testing::hand_plan(testing::two_threads_reusing_fd3(), true);
  testing::TempDir root;
  EngineResult res = replay(plan, true, root);
  EXPECT_GT(res.handoffs, 2u);
  EXPECT_LT(res.handoffs, plan.requests.size());
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    for (const Dep& dep : deps_of(plan, static_cast<uint32_t>(r))) {
      const uint32_t d = dep.request;
      EXPECT_GE(res.records()[r].begin_ns, res.records()[d].end_ns) << "request " << r << " before its dependency " << d;
    }
  }
}

}  // namespace
}  // namespace rastro::replay
