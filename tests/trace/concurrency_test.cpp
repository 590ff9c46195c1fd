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

}  // namespace
}  // namespace rastro::trace
