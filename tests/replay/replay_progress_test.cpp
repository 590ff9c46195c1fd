// The replay's progress line counts every completed request through the engines' hooks, and
// forwards both hooks to the one it wraps (the MPI rank sync in a job replay).
#include "replay/session/replay_progress.h"

#include <atomic>
#include <mutex>
#include <set>

#include <gtest/gtest.h>

#include "replay/passes/replay_passes.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

// An inner hook that records what it is told.
class Recorder final : public RequestHooks {
 public:
  bool before_issue(uint32_t r) override {
    std::lock_guard lock(mu_);
    issued.insert(r);
    return false;
  }
  void after_complete(uint32_t r) override {
    std::lock_guard lock(mu_);
    completed.insert(r);
  }
  std::set<uint32_t> issued, completed;

 private:
  std::mutex mu_;
};

TEST(ReplayProgress, CountsEveryRequestOfBothEnginesAndForwardsToTheWrappedHook) {
  const Plan plan = infer_plan(testing::two_threads_reusing_fd3(), Ordering::kFs).take();
  ASSERT_EQ(plan.requests.size(), 104u);
  for (EngineKind engine : {EngineKind::kWorkers, EngineKind::kCoordinator}) {
    testing::TempDir root;
    SandboxResolver sb(root.path());
    Progress line("test", false);  // counted, never drawn
    Recorder inner;
    EngineResult res;
    uint64_t counted = 0;
    {
      ReplayProgress progress(line, plan.requests.size(), &inner);
      EngineOptions o;
      o.hooks = &progress;
      res = run_engine(engine, plan, sb, o);
      counted = progress.completed();
    }
    EXPECT_EQ(counted, plan.requests.size()) << engine_name(engine);
    EXPECT_EQ(inner.issued.size(), plan.requests.size()) << engine_name(engine);
    EXPECT_EQ(inner.completed.size(), plan.requests.size()) << engine_name(engine);
    EXPECT_EQ(res.stats.skipped_total(), 0u) << engine_name(engine);
  }
}

}  // namespace
}  // namespace rastro::replay
