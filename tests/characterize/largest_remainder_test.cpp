#include "characterize/largest_remainder.h"

#include <numeric>

#include <gtest/gtest.h>

namespace rastro::characterize {
namespace {

uint64_t sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t{0}); }

TEST(LargestRemainder, SumsToTheTotal) {
  EXPECT_EQ(largest_remainder({1.0 / 3, 1.0 / 3, 1.0 / 3}, 100), (std::vector<uint64_t>{34, 33, 33}));
  EXPECT_EQ(largest_remainder({0.75, 0.25}, 100), (std::vector<uint64_t>{75, 25}));
  // 6/9 and 3/9 of 12 threads: 8 and 4.
  EXPECT_EQ(largest_remainder({6.0 / 9, 3.0 / 9}, 12), (std::vector<uint64_t>{8, 4}));
  // 0.45 * 10 = 4.5 and 0.55 * 10 = 5.5: one unit left, to the larger remainder (ties: first).
  EXPECT_EQ(largest_remainder({0.45, 0.55}, 10), (std::vector<uint64_t>{5, 5}));
  std::vector<double> deciles(10, 0.1);
  EXPECT_EQ(sum(largest_remainder(deciles, 100)), 100u);
}

TEST(LargestRemainder, SharesBelowOneStillFillTheTotal) {
  EXPECT_EQ(largest_remainder({0.2, 0.2}, 10), (std::vector<uint64_t>{5, 5}));
  EXPECT_TRUE(largest_remainder({}, 10).empty());
  EXPECT_EQ(largest_remainder({0.0, 0.0}, 0), (std::vector<uint64_t>{0, 0}));
}

}  // namespace
}  // namespace rastro::characterize
