// The cross-rank pass (replay/passes/cross_rank_order.h) on hand-made two-rank jobs whose expected
// edges are worked out here from the timestamps and the bound, not by the pass.
#include "replay/passes/cross_rank_order.h"

#include <gtest/gtest.h>

#include "replay/passes/replay_passes.h"
#include "tests/replay/trace_builder_plan.h"

namespace rastro::replay {
namespace {

using testing::Edge;
using testing::PlanTraceBuilder;
using testing::dump;
using testing::edges_of;

constexpr int64_t kBound = 1'000;  // rank 1's aligned timestamps are known to ± 1 µs; rank 0 is the reference
constexpr int64_t O_WRONLY_ = 01, O_RDONLY_ = 0, O_CREAT_ = 0100;

void make_job(trace::Trace& t) {
  const nlohmann::json est = {{"at_ns", 0}, {"offset_ns", 0}, {"half_width_ns", kBound}, {"rounds", 16}};
  t.header.extra["mpi_job"] = {
      {"job", "j"},
      {"ranks", {{{"rank", 0}, {"host", "a"}, {"pids", {10}}}, {{"rank", 1}, {"host", "b"}, {"pids", {20}}, {"init", est}}}}};
}

// Rank 0 (pid 10): a write [0, 100]; its second thread a write [150, 160].
// Rank 1 (pid 20): writes at [500, 600] (a gap of 400 ns after rank 0's first write: less than the
// 1 µs bound, so unproven) and [2'000, 2'100] (1'900 ns: proven, as is [150, 160] → 1'840 ns).
trace::Trace temporal_job(bool merged) {
  PlanTraceBuilder b;
  b.add(10, 10, 0, 100, "write", {1, 0, 8}, 8);      // request 0
  b.add(10, 11, 150, 160, "write", {1, 0, 8}, 8);    // 1
  b.add(20, 20, 500, 600, "write", {1, 0, 8}, 8);    // 2
  b.add(20, 20, 2'000, 2'100, "write", {1, 0, 8}, 8);  // 3
  trace::Trace t = b.take();
  if (merged) make_job(t);
  return t;
}

TEST(CrossRankOrder, TemporalEdgesAcrossRanksOnlyWhereTheGapBeatsTheBound) {
  auto plan = infer_plan(temporal_job(true), Ordering::kTemporal).take();
  const auto e = edges_of(plan, false);
  // Within rank 0, one clock: 0 -> 1 exactly. Rank 1's first write is not proven after anything
  // of rank 0; its second is proven after both of rank 0's threads' last calls.
  const std::set<Edge> want = {{0, 1, "temporal"}, {0, 3, "temporal"}, {1, 3, "temporal"}};
  EXPECT_EQ(e, want) << dump(e);
}

TEST(CrossRankOrder, ControlWithoutTheJobTheClocksOrderEverything) {
  // The same trace read as one host's: rank 1's first write follows rank 0's calls.
  auto plan = infer_plan(temporal_job(false), Ordering::kTemporal).take();
  const auto e = edges_of(plan, false);
  EXPECT_TRUE(e.count({1, 2, "temporal"})) << dump(e);
}

TEST(CrossRankOrder, ImpliedEdgesAreLeftOut) {
  // Rank 1 writes three times, long after rank 0's only call: only its first write waits for it.
  PlanTraceBuilder b;
  b.add(10, 10, 0, 100, "write", {1, 0, 8}, 8);
  for (int k = 0; k < 3; ++k) b.add(20, 20, 5'000 + k * 1'000, 5'500 + k * 1'000, "write", {1, 0, 8}, 8);
  trace::Trace t = b.take();
  make_job(t);
  auto plan = infer_plan(std::move(t), Ordering::kTemporal).take();
  const auto e = edges_of(plan, false);
  EXPECT_EQ(e, (std::set<Edge>{{0, 1, "temporal"}})) << dump(e);
}

// A file rank 0 creates and rank 1 opens: the path edge stays only when the gap proves it.
trace::Trace shared_file_job(int64_t open_at) {
  PlanTraceBuilder b;
  b.add(10, 10, 0, 100, "openat", {-100, "/shared/f", O_WRONLY_ | O_CREAT_, 0644}, 3);
  b.add(20, 20, open_at, open_at + 100, "openat", {-100, "/shared/f", O_RDONLY_, 0}, 3);
  trace::Trace t = b.take();
  make_job(t);
  return t;
}

TEST(CrossRankOrder, FsEdgesAcrossRanksNeedTheGapToo) {
  auto near = edges_of(infer_plan(shared_file_job(500), Ordering::kFs).take(), false);
  EXPECT_TRUE(near.empty()) << dump(near);
  auto far = edges_of(infer_plan(shared_file_job(5'000), Ordering::kFs).take(), false);
  EXPECT_EQ(far, (std::set<Edge>{{0, 1, "path"}})) << dump(far);
}

TEST(CrossRankOrder, AMalformedJobHeaderFailsThePass) {
  trace::Trace t = temporal_job(true);
  t.header.extra["mpi_job"]["ranks"][1]["init"].erase("offset_ns");
  auto r = infer_plan(std::move(t), Ordering::kTemporal);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("cross_rank_order: malformed mpi_job header"), std::string::npos) << r.error();
}

}  // namespace
}  // namespace rastro::replay
