// Which tokens a rank sends and awaits (mpi/replay/rank_sync_plan.h), on a hand-made two-rank job
// whose answers are worked out here from the event times.
#include "mpi/replay/rank_sync_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "mpi/mpi_ops.h"
#include "mpi/replay/rank_part.h"
#include "replay/passes/replay_passes.h"
#include "tests/replay/trace_builder_plan.h"

namespace rastro::mpi {
namespace {

using replay::testing::PlanTraceBuilder;

// Rank 0 is pid 10, rank 1 pid 20; rank 1's clock bound is `bound` ns.
trace::Trace two_rank_job(int64_t bound) {
  PlanTraceBuilder b;
  auto mpi = [&](int32_t pid, int64_t begin, int64_t end, const char* name, int64_t peer, int64_t match) {
    const size_t i = b.add(pid, pid, begin, end, name, {int64_t{0}, peer, int64_t{7}, int64_t{4}, int64_t{0}, match}, 0);
    b.trace().events[i].nargs = kArgMatch + 1;
  };
  b.add(10, 10, 0, 100, "write", {1, 0, 8}, 8);          // 0
  mpi(20, 50, 1'000, "MPI_Recv", 0, 1);                   // 1 rank 1 posts early, completes at 1000
  mpi(10, 200, 300, "MPI_Send", 1, 1);                    // 2
  b.add(20, 20, 600, 700, "write", {1, 0, 8}, 8);         // 3 began before the receive ended
  b.add(20, 20, 1'100, 1'200, "write", {1, 0, 8}, 8);     // 4 the first after it
  mpi(10, 1'300, 2'000, "MPI_Barrier", -1, 2);            // 5
  mpi(20, 1'500, 1'900, "MPI_Barrier", -1, 2);            // 6
  b.add(10, 10, 2'100, 2'200, "write", {1, 0, 8}, 8);     // 7
  b.add(20, 20, 2'300, 2'400, "write", {1, 0, 8}, 8);     // 8
  trace::Trace t = b.take();
  const nlohmann::json est = {{"at_ns", 0}, {"offset_ns", 0}, {"half_width_ns", bound}, {"rounds", 16}};
  nlohmann::json r1 = {{"rank", 1}, {"host", "b"}, {"pids", {20}}};
  if (bound > 0) r1["init"] = est;
  t.header.extra["mpi_job"] = {{"job", "j"}, {"ranks", {{{"rank", 0}, {"host", "a"}, {"pids", {10}}}, r1}}};
  return t;
}

struct Ranks {
  replay::Plan job;
  std::vector<replay::Plan> local;
  std::vector<RankSyncPlan> sync;
  // The rank-plan request of a job event of that rank.
  uint32_t request_of(int rank, uint32_t job_event, const RankPart& p) const {
    const uint32_t ev = p.local_event[job_event];
    for (uint32_t q = 0; q < local[static_cast<size_t>(rank)].requests.size(); ++q)
      if (local[static_cast<size_t>(rank)].requests[q].event == ev) return q;
    return UINT32_MAX;
  }
  std::vector<RankPart> parts;
};

Ranks plan_ranks(trace::Trace t, replay::Ordering ordering) {
  Ranks r;
  auto clocks = JobClocks::from_header(t.header);
  EXPECT_TRUE(clocks);
  for (int k = 0; k < 2; ++k) r.parts.push_back(rank_part(t, *clocks, k));
  r.job = replay::infer_plan(std::move(t), ordering).take();
  for (int k = 0; k < 2; ++k) {
    r.local.push_back(replay::infer_plan(r.parts[static_cast<size_t>(k)].trace, ordering).take());
    r.sync.push_back(rank_sync_plan(r.job, *clocks, k, r.local.back(), r.parts[static_cast<size_t>(k)].local_event));
  }
  return r;
}

std::vector<Token> waits_at(const RankSyncPlan& s, uint32_t q) {
  auto it = s.at.find(q);
  return it == s.at.end() ? std::vector<Token>{} : it->second.wait_before;
}
std::vector<Token> sends_at(const RankSyncPlan& s, uint32_t q) {
  auto it = s.at.find(q);
  return it == s.at.end() ? std::vector<Token>{} : it->second.send_before;
}

TEST(RankSyncPlan, MessagesAndCollectivesBecomeTokensAtTheRightCalls) {
  Ranks r = plan_ranks(two_rank_job(0), replay::Ordering::kFs);
  const auto& s0 = r.sync[0];
  const auto& s1 = r.sync[1];
  // Rank 0 sends the message's token just before its MPI_Send (event 2).
  EXPECT_EQ(sends_at(s0, r.request_of(0, 2, r.parts[0])), (std::vector<Token>{{1, 1}}));
  // Rank 1 awaits it before its write at 1100 (event 4), not before the one that overlapped the receive.
  EXPECT_TRUE(waits_at(s1, r.request_of(1, 3, r.parts[1])).empty());
  EXPECT_EQ(waits_at(s1, r.request_of(1, 4, r.parts[1])), (std::vector<Token>{{0, 1}}));
  // Barrier (instance 2): rank 1 tells rank 0 (the lowest member) it entered, just before its
  // barrier (event 6), and awaits the release before its next call (event 8); rank 0 awaits the
  // entry and releases before its next call (event 7).
  EXPECT_EQ(sends_at(s1, r.request_of(1, 6, r.parts[1])), (std::vector<Token>{{0, 2}}));
  EXPECT_EQ(waits_at(s1, r.request_of(1, 8, r.parts[1])), (std::vector<Token>{{0, 2}}));
  EXPECT_EQ(waits_at(s0, r.request_of(0, 7, r.parts[0])), (std::vector<Token>{{1, 2}}));
  EXPECT_EQ(sends_at(s0, r.request_of(0, 7, r.parts[0])), (std::vector<Token>{{1, 2}}));
  EXPECT_EQ(s0.message_tokens_sent, 1u);
  EXPECT_EQ(s1.message_tokens_awaited, 1u);
  EXPECT_EQ(s0.clock_edge_tokens_sent + s1.clock_edge_tokens_awaited, 0u);  // fs: no shared resource
  EXPECT_TRUE(s0.at_end.wait_before.empty() && s1.at_end.wait_before.empty());
}

// Every token one rank awaits is one its peer sends, and every token sent is awaited: otherwise a
// replay would wait in vain or leave messages behind.
void expect_tokens_pair_up(const Ranks& r) {
  std::multiset<std::tuple<int, int, int64_t>> sent, awaited;  // (from, to, value)
  for (int k = 0; k < 2; ++k) {
    auto add = [&](const SyncActions& a) {
      for (const Token& t : a.send_before) sent.emplace(k, t.peer, t.value);
      for (const Token& t : a.send_after) sent.emplace(k, t.peer, t.value);
      for (const Token& t : a.wait_before) awaited.emplace(t.peer, k, t.value);
    };
    for (const auto& [q, a] : r.sync[static_cast<size_t>(k)].at) add(a);
    add(r.sync[static_cast<size_t>(k)].at_end);
  }
  EXPECT_EQ(sent, awaited);
  EXPECT_FALSE(sent.empty());
}

TEST(RankSyncPlan, TokensPairUpAcrossRanks) {
  expect_tokens_pair_up(plan_ranks(two_rank_job(0), replay::Ordering::kFs));
  expect_tokens_pair_up(plan_ranks(two_rank_job(0), replay::Ordering::kTemporal));
  expect_tokens_pair_up(plan_ranks(two_rank_job(150), replay::Ordering::kTemporal));
}

TEST(RankSyncPlan, ClockProvenEdgesUnderTemporalOrder) {
  // Exact clocks: rank 1's write at 600 (event 3) is proven after rank 0's MPI_Send (ended 300),
  // rank 0's latest call completed by then: rank 0 sends right after that call, rank 1 awaits the
  // token before its write. (Its write at 1100 waits for the same call: implied by thread order.)
  Ranks r = plan_ranks(two_rank_job(0), replay::Ordering::kTemporal);
  auto it = r.sync[0].at.find(r.request_of(0, 2, r.parts[0]));
  ASSERT_NE(it, r.sync[0].at.end());
  ASSERT_EQ(it->second.send_after.size(), 1u);
  EXPECT_EQ(it->second.send_after[0].peer, 1);
  EXPECT_GE(it->second.send_after[0].value, kClockEdgeBase);
  const Token from_rank0{0, it->second.send_after[0].value};
  EXPECT_EQ(waits_at(r.sync[1], r.request_of(1, 3, r.parts[1])), (std::vector<Token>{from_rank0}));
  EXPECT_EQ(waits_at(r.sync[1], r.request_of(1, 4, r.parts[1])), (std::vector<Token>{{0, 1}}));  // the message only
  // With a bound of 1 µs on rank 1 the gaps of 300 and 800 ns prove nothing: only the message.
  Ranks wide = plan_ranks(two_rank_job(1'000), replay::Ordering::kTemporal);
  EXPECT_TRUE(waits_at(wide.sync[1], wide.request_of(1, 3, wide.parts[1])).empty());
  EXPECT_EQ(waits_at(wide.sync[1], wide.request_of(1, 4, wide.parts[1])), (std::vector<Token>{{0, 1}}));
}

}  // namespace
}  // namespace rastro::mpi
