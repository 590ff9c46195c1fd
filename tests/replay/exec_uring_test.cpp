// The ring replay of io_uring requests (replay/runtime/exec_uring.h, pass uring_batches): a
// hand-built trace of 16 O_DIRECT reads submitted in two io_uring_enter batches of 8, the second
// after the first completed (traced queue depth 8). Replayed through rings, the replayed trace
// must hold 16 io_uring read events with the traced offsets, lengths and results, and the reads
// in flight together must be 8 — not 1 (serialised) and not 16 (the depth not kept: O_DIRECT
// reads of the device stay in flight long enough for the second batch to overlap the first).
#include <fcntl.h>
#include <sys/syscall.h>

#include <cstring>
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/passes/uring_batches.h"
#include "replay/runtime/exec_uring.h"
#include "replay/runtime/replay_output.h"
#include "tests/replay/replay_test_util.h"
#include "tests/replay/trace_builder_plan.h"
#include "trace/analysis/concurrency.h"
#include "trace/io/trace_sink.h"

namespace rastro::replay {
namespace {

using testing::PlanTraceBuilder;
using testing::TempDir;

constexpr int kReads = 16;
constexpr int kBatch = 8;
constexpr int64_t kBlock = 4096;

// Batch b's io_uring_enter begins at 10'000 * (b + 1); its reads are submitted 10 ns apart and
// complete 5'000 ns later, before the next batch's enter.
trace::Trace sixteen_reads(bool one_batch_each = false) {
  PlanTraceBuilder b;
  b.add(100, 100, 0, 100, "openat", {int64_t{AT_FDCWD}, std::string("/data"), int64_t{O_RDONLY | O_DIRECT}, int64_t{0}},
        3);
  for (int batch = 0; batch < kReads / kBatch; ++batch) {
    const int64_t enter = 10'000 * (batch + 1);
    b.add(100, 100, enter, enter + 200, "io_uring_enter", {int64_t{5}, int64_t{kBatch}, int64_t{0}, int64_t{0}, int64_t{0}, int64_t{8}},
          kBatch);
    for (int i = 0; i < kBatch; ++i) {
      const int k = batch * kBatch + i;
      const int64_t submit = enter + 10 * (i + 1);
      const size_t ev = b.add(100, 100, submit, submit + 5'000, "pread64",
                              {int64_t{3}, int64_t{0}, kBlock, int64_t{(k * 7 % kReads) * kBlock}}, kBlock);
      trace::Event& e = b.trace().events[ev];
      e.flags |= trace::kEventUring;
      e.uring_user_data = static_cast<uint64_t>(k);
      e.uring_enter_ns = one_batch_each ? 0 : enter;
    }
  }
  b.add(100, 100, 40'000, 40'100, "close", {int64_t{3}}, 0);
  return b.take();
}

// The replayed reads; the most io_uring reads in flight at once ([begin, end) overlapping).
struct Replayed {
  std::vector<trace::Event> uring;
  int plain_reads = 0;
  uint32_t max_in_flight = 0;
  uint64_t mismatched = 0;
};

Replayed replay(const Plan& plan, EngineKind engine, UringMode mode, const std::string& root) {
  SandboxResolver sandbox(root);
  UringReplay uring(plan, mode);
  EngineOptions options;
  options.uring = &uring;
  EngineResult res = run_engine(engine, plan, sandbox, options);
  trace::MemorySink sink;
  append_replay_events(sink, plan.trace, res.log);
  Replayed out;
  out.mismatched = res.stats.mismatched;
  std::vector<int64_t> begins, ends;
  for (const trace::Event& e : sink.trace().events) {
    if (e.nr != SYS_pread64) continue;
    if (!(e.flags & trace::kEventUring)) {
      ++out.plain_reads;
      continue;
    }
    out.uring.push_back(e);
    begins.push_back(e.begin_ns);
    ends.push_back(e.end_ns);
  }
  for (uint32_t level : trace::concurrency_levels(begins, ends)) out.max_in_flight = std::max(out.max_in_flight, level);
  return out;
}

#define SKIP_WITHOUT_IO_URING()                                    \
  if (std::string why = io_uring_missing(); !why.empty()) {        \
    std::printf("no io_uring on this kernel: %s\n", why.c_str()); \
    GTEST_SKIP() << why;                                           \
  }

std::string make_root(const TempDir& dir) {
  testing::write_file(dir.sub("data"), std::string(kReads * kBlock, 'd'));
  return dir.path();
}

TEST(UringBatches, KeepTheTracedBatchesDepthAndCompletionsToAwait) {
  Plan plan = infer_plan(sixteen_reads(), Ordering::kFs).take();
  const UringPlan& u = plan.uring;
  ASSERT_FALSE(u.empty());
  ASSERT_EQ(plan.threads.size(), 1u);
  EXPECT_EQ(u.thread_depth[0], 8u);
  // Requests: 0 openat, 1 enter, 2..9 batch 1, 10 enter, 11..18 batch 2, 19 close.
  for (int i = 0; i < kBatch; ++i) {
    EXPECT_EQ(u.depth[2 + i], static_cast<uint32_t>(i + 1));
    EXPECT_EQ(u.depth[11 + i], static_cast<uint32_t>(i + 1));
    EXPECT_EQ(u.batch_end[2 + i], i == kBatch - 1 ? 1 : 0);
  }
  EXPECT_EQ(u.depth[0], 0u);
  EXPECT_EQ(u.depth[10], 0u);
  // The second batch's enter began after the first batch completed: it awaits all 8; the close
  // awaits the second batch.
  auto awaits = [&](uint32_t r) {
    std::vector<uint32_t> v(u.awaits.begin() + u.awaits_begin[r], u.awaits.begin() + u.awaits_begin[r + 1]);
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(awaits(10), (std::vector<uint32_t>{2, 3, 4, 5, 6, 7, 8, 9}));
  EXPECT_EQ(awaits(19), (std::vector<uint32_t>{11, 12, 13, 14, 15, 16, 17, 18}));
  EXPECT_TRUE(awaits(11).empty());
}

TEST(UringBatches, ATraceWithoutIoUringRequestsHasNoUringPlan) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "pread64", {int64_t{3}, int64_t{0}, int64_t{10}, int64_t{0}}, 10);
  EXPECT_TRUE(infer_plan(b.take(), Ordering::kFs).take().uring.empty());
}

TEST(UringMode, ParsesRingAndPlainAndRefusesOthers) {
  EXPECT_EQ(parse_uring_mode("ring").take(), UringMode::kRing);
  EXPECT_EQ(parse_uring_mode("plain").take(), UringMode::kPlain);
  EXPECT_FALSE(parse_uring_mode("rings").ok());
}

class UringReplayTest : public ::testing::TestWithParam<EngineKind> {};

TEST_P(UringReplayTest, SixteenReadsAtDepthEightReplayThroughARingAtDepthEight) {
  SKIP_WITHOUT_IO_URING();
  TempDir dir;
  const std::string root = make_root(dir);
  Plan plan = infer_plan(sixteen_reads(), Ordering::kFs).take();
  Replayed r = replay(plan, GetParam(), UringMode::kRing, root);
  ASSERT_EQ(r.uring.size(), static_cast<size_t>(kReads)) << "every read replayed as an io_uring request";
  std::vector<int64_t> offsets;
  for (const trace::Event& e : r.uring) {
    EXPECT_EQ(e.rvalue, kBlock) << "offset " << e.arg(3).value;
    EXPECT_EQ(e.arg(2).value, kBlock);
    EXPECT_LE(e.begin_ns, e.end_ns);
    offsets.push_back(e.arg(3).value);
  }
  std::sort(offsets.begin(), offsets.end());
  for (int k = 0; k < kReads; ++k) EXPECT_EQ(offsets[static_cast<size_t>(k)], k * kBlock);
  EXPECT_EQ(r.mismatched, 0u);
  EXPECT_EQ(r.max_in_flight, 8u) << "the traced queue depth";
}

TEST_P(UringReplayTest, PlainModeReplaysTheSameReadsOneAfterTheOther) {
  TempDir dir;
  const std::string root = make_root(dir);
  Plan plan = infer_plan(sixteen_reads(), Ordering::kFs).take();
  Replayed r = replay(plan, GetParam(), UringMode::kPlain, root);
  EXPECT_TRUE(r.uring.empty());
  EXPECT_EQ(r.plain_reads, kReads);
  EXPECT_EQ(r.mismatched, 0u) << "O_DIRECT reads need page-aligned buffers";
}

TEST_P(UringReplayTest, RequestsWithoutACapturedEnterAreSubmittedOneByOne) {
  SKIP_WITHOUT_IO_URING();
  TempDir dir;
  const std::string root = make_root(dir);
  Plan plan = infer_plan(sixteen_reads(/*one_batch_each=*/true), Ordering::kFs).take();
  for (int i = 0; i < kBatch; ++i) EXPECT_EQ(plan.uring.batch_end[2 + i], 1);
  Replayed r = replay(plan, GetParam(), UringMode::kRing, root);
  ASSERT_EQ(r.uring.size(), static_cast<size_t>(kReads));
  EXPECT_EQ(r.mismatched, 0u);
  EXPECT_GE(r.max_in_flight, 1u);
  EXPECT_LE(r.max_in_flight, 8u) << "never more in flight than in the trace";
}

INSTANTIATE_TEST_SUITE_P(Engines, UringReplayTest, ::testing::Values(EngineKind::kWorkers, EngineKind::kCoordinator),
                         [](const auto& p) { return std::string(engine_name(p.param)); });

}  // namespace
}  // namespace rastro::replay
