// The coordinator engine's hand-offs: by default (the thesis design) every request passes through
// the coordinator's queue and every completion is reported to it; with coordinator_chain, only the
// requests that wait for something other than their own thread's previous request, and only the
// completions such a request waits for.
#include <fcntl.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

EngineResult run_coordinator(const Plan& plan, bool chain, const testing::TempDir& root) {
  SandboxResolver sb(root.path());
  EngineOptions o;
  o.coordinator_chain = chain;
  return run_engine(EngineKind::kCoordinator, plan, sb, o);
}

EngineResult replay(const Plan& plan, bool chain, const testing::TempDir& root) {
  EngineResult res = run_coordinator(plan, chain, root);
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
  const EngineResult res = replay(plan, false, root);
  EXPECT_EQ(res.handoffs, 104u);
  EXPECT_EQ(res.completions_reported, 104u);
}

TEST(CoordinatorEngine, ChainRunsAThreadsOwnSequenceWithoutTheCoordinator) {
  // Thread ordering: each thread's requests depend only on their predecessor, so only the two
  // threads' first requests go through the coordinator.
  const Plan plan = infer_plan(testing::two_threads_reusing_fd3(), Ordering::kThread).take();
  testing::TempDir root;
  EngineResult res = replay(plan, true, root);
  EXPECT_EQ(res.handoffs, 2u);
  EXPECT_EQ(res.completions_reported, 0u);  // nothing waits on another thread: no wake-up for it
  for (size_t r = 1; r < res.log.size(); ++r) {
    if (plan.requests[r].thread == plan.requests[r - 1].thread) {
      EXPECT_GE(res.records()[r].begin_ns, res.records()[r - 1].end_ns) << "request " << r;
    }
  }
}

// The requests available at the start are found before the workers start. Here thread 10's first
// request comes first in the plan and the rest of its requests last, after 400 000 of thread 11's:
// its worker reaches them long before a scan of the plan would (CI failure of f39542b, where the
// coordinator scanned after the start and handed over requests a worker had already run: they
// ran twice and out of their thread's order).
TEST(CoordinatorEngine, ChainedRequestsAreNotHandedOverAgainByTheStartingScan) {
  constexpr int kFiller = 400'000;
  testing::TraceBuilder b;
  b.add(1, 10, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/a"});
  b.add(1, 11, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 4, {"/b"});
  for (int i = 0; i < kFiller; ++i) b.add(1, 11, "lseek", {4, 0, SEEK_SET}, 0);
  for (int i = 0; i < 10; ++i) b.add(1, 10, "write", {3, 0, 5}, 5);
  const Plan plan = infer_plan(b.take(), Ordering::kThread).take();
  for (int run = 0; run < 3; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    testing::TempDir root;
    const EngineResult res = run_coordinator(plan, true, root);
    EXPECT_EQ(res.handoffs, 2u);
    EXPECT_EQ(res.stats.executed, plan.requests.size());
    EXPECT_EQ(std::filesystem::file_size(root.sub("a")), 50u);
  }
}

TEST(CoordinatorEngine, ChainKeepsOtherThreadsDependencies) {
  // Temporal ordering (hand_plan): thread 11's first request waits for thread 10's last; every
  // request with such an edge still goes through the coordinator and still waits.
  const Plan plan = testing::hand_plan(testing::two_threads_reusing_fd3(), true);
  testing::TempDir root;
  EngineResult res = replay(plan, true, root);
  EXPECT_GE(res.handoffs, 2u);  // the threads' first requests; the others when another thread is behind
  EXPECT_LT(res.handoffs, plan.requests.size());
  // Only the requests another thread's request waits for are reported to the coordinator.
  EXPECT_GT(res.completions_reported, 0u);
  EXPECT_LT(res.completions_reported, plan.requests.size());
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    for (const Dep& dep : deps_of(plan, static_cast<uint32_t>(r))) {
      const uint32_t d = dep.request;
      EXPECT_GE(res.records()[r].begin_ns, res.records()[d].end_ns) << "request " << r << " before its dependency " << d;
    }
  }
}

// Two threads taking turns (temporal ordering: each request waits for the other thread's last
// one as well as its own thread's): after each request, its worker counts down its thread's next
// one while the coordinator counts down the other thread's, and whichever brings a count to zero
// runs it (the worker) or hands it over (the coordinator). Over many runs and every interleaving
// they make, no request starts before a dependency ends and none runs twice (the file sizes).
TEST(CoordinatorEngine, ChainAndCoordinatorCountDownTogetherWithoutRunningARequestTwice) {
  testing::TraceBuilder b;
  b.add(1, 10, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/a"});
  b.add(1, 11, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 4, {"/b"});
  for (int i = 0; i < 100; ++i) {
    b.add(1, 10, "write", {3, 0, 5}, 5);
    b.add(1, 11, "write", {4, 0, 10}, 10);
  }
  const Plan plan = testing::hand_plan(b.take(), true);
  for (int run = 0; run < 20; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    testing::TempDir root;
    const EngineResult res = run_coordinator(plan, true, root);
    EXPECT_EQ(res.stats.executed, plan.requests.size());
    EXPECT_EQ(std::filesystem::file_size(root.sub("a")), 500u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("b")), 1000u);
    const std::vector<RequestRecord> recs = res.records();
    for (size_t r = 0; r < plan.requests.size(); ++r)
      for (const Dep& dep : deps_of(plan, static_cast<uint32_t>(r)))
        ASSERT_GE(recs[r].begin_ns, recs[dep.request].end_ns) << "request " << r << " before its dependency " << dep.request;
  }
}

}  // namespace
}  // namespace rastro::replay
