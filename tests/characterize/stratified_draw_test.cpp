#include "characterize/stratified_draw.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

namespace rastro::characterize {
namespace {

// Ten equally likely values and ten strata: every ten draws take each value once (free draws of
// ten repeat one with probability 1 - 10!/10^10 > 0.999).
TEST(StratifiedDraw, EveryRoundOfStrataTakesEachValueOnce) {
  std::vector<double> sample{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const EmpiricalDistribution d = summarize(sample);
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    StratifiedDraw draw(d, sample.size(), rng);
    for (int round = 0; round < 3; ++round) {
      std::vector<double> got;
      for (size_t k = 0; k < sample.size(); ++k) got.push_back(draw.next(rng));
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, sample) << "seed " << seed << ", round " << round;
    }
  }
}

TEST(StratifiedDraw, AnEmptyDistributionDrawsZero) {
  std::mt19937_64 rng(1);
  const EmpiricalDistribution none;
  StratifiedDraw draw(none, 0, rng);
  EXPECT_EQ(draw.next(rng), 0.0);
  EXPECT_EQ(StratifiedDraw().next(rng), 0.0);
}

}  // namespace
}  // namespace rastro::characterize
