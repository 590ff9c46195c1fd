#include "trace/analysis/concurrency.h"

#include <random>

#include <gtest/gtest.h>

#include "tests/trace/sample_trace.h"

namespace rastro::trace {
namespace {

TEST(Concurrency, SampleTraceByHand) {
  // [0,100) [200,500) [300,350) [400,1400) [600,610) [1500,inf): see sample_trace.h
  auto levels = concurrency_levels(testing::sample_trace());
  EXPECT_EQ(levels, (std::vector<uint32_t>{1, 1, 2, 2, 2, 1}));
  ConcurrencySummary s = summarize_concurrency(levels);
  EXPECT_EQ(s.requests, 6u);
  EXPECT_DOUBLE_EQ(s.mean, 1.5);
  EXPECT_EQ(s.max, 2u);
  EXPECT_EQ(s.median, 1u);
  EXPECT_EQ(s.p99, 2u);
  ASSERT_EQ(s.ecdf.size(), 2u);
  EXPECT_EQ(s.ecdf[0].level, 1u);
  EXPECT_EQ(s.ecdf[0].count, 3u);
  EXPECT_DOUBLE_EQ(s.ecdf[0].cumulative, 0.5);
  EXPECT_EQ(s.ecdf[1].level, 2u);
  EXPECT_DOUBLE_EQ(s.ecdf[1].cumulative, 1.0);
}

TEST(Concurrency, TiesZeroLengthAndBackToBack) {
  // Two requests starting together see each other; one ending exactly when the next starts
  // does not overlap it; a zero-length request counts itself.
  std::vector<int64_t> b{0, 0, 10, 20};
  std::vector<int64_t> e{10, 5, 20, 20};
  EXPECT_EQ(concurrency_levels(b, e), (std::vector<uint32_t>{2, 2, 1, 1}));
  // end < begin is treated as zero length.
  EXPECT_EQ(concurrency_levels(std::vector<int64_t>{5}, std::vector<int64_t>{3}),
            (std::vector<uint32_t>{1}));
  EXPECT_TRUE(concurrency_levels(std::vector<int64_t>{}, std::vector<int64_t>{}).empty());
}

// The O(n log n) computation against the definition, evaluated naively.
TEST(Concurrency, MatchesQuadraticDefinition) {
  std::mt19937 rng(5);
  std::vector<int64_t> b(500), e(500);
  for (size_t i = 0; i < b.size(); ++i) {
    b[i] = rng() % 10000;
    e[i] = b[i] + rng() % 300;
  }
  auto levels = concurrency_levels(b, e);
  for (size_t i = 0; i < b.size(); ++i) {
    uint32_t n = 0;
    for (size_t j = 0; j < b.size(); ++j)
      if (j == i || (b[j] <= b[i] && b[i] < e[j])) ++n;
    EXPECT_EQ(levels[i], n) << i;
  }
}

// The streaming counter (spilling sorts) gives the whole-trace levels' histogram, spilled or not,
// with ties, zero-length and unfinished requests.
TEST(Concurrency, StreamingCounterMatchesTheWholeTraceLevels) {
  std::mt19937 rng(6);
  Trace t;
  for (int i = 0; i < 5000; ++i) {
    Event ev;
    ev.begin_ns = rng() % 20000;
    ev.end_ns = ev.begin_ns + (i % 10 == 0 ? 0 : static_cast<int64_t>(rng() % 400)) - (i % 50 == 1 ? 7 : 0);
    if (i % 300 == 0) ev.flags = kEventUnfinished;
    t.events.push_back(ev);
  }
  ConcurrencySummary whole = summarize_concurrency(concurrency_levels(t));
  for (size_t memory : {size_t{16}, size_t{1} << 20}) {
    ConcurrencyCounter c(memory);
    for (const Event& ev : t.events) c.add(ev);
    ConcurrencySummary s = summarize_concurrency(c.requests_per_level());
    EXPECT_EQ(s.requests, whole.requests);
    EXPECT_DOUBLE_EQ(s.mean, whole.mean);
    EXPECT_EQ(s.median, whole.median);
    EXPECT_EQ(s.p99, whole.p99);
    EXPECT_EQ(s.max, whole.max);
    ASSERT_EQ(s.ecdf.size(), whole.ecdf.size());
    for (size_t i = 0; i < s.ecdf.size(); ++i) {
      EXPECT_EQ(s.ecdf[i].level, whole.ecdf[i].level);
      EXPECT_EQ(s.ecdf[i].count, whole.ecdf[i].count);
    }
  }
  EXPECT_EQ(ConcurrencyCounter().requests_per_level().size(), 0u);
}

}  // namespace
}  // namespace rastro::trace
