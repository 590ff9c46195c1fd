#include "characterize/systematic_choice.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace rastro::characterize {
namespace {

// After every prefix of n choices, each option was taken within one of share * n times (a free
// draw of 1000 choices at share 0.3 misses 300 by more than 1 with probability ~0.98).
TEST(SystematicChoice, EveryPrefixKeepsTheShares) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    const std::vector<double> shares{3, 0, 5, 2};  // normalised: 0.3, 0, 0.5, 0.2
    SystematicChoice c(shares, rng);
    std::vector<double> taken(shares.size());
    for (int n = 1; n <= 1000; ++n) {
      taken[c.next()] += 1;
      for (size_t k = 0; k < shares.size(); ++k)
        ASSERT_LT(std::abs(taken[k] - shares[k] / 10.0 * n), 1.0) << "seed " << seed << ", option " << k << " after " << n;
    }
    EXPECT_EQ(taken[1], 0.0);
  }
}

TEST(SystematicChoice, TheOrderDependsOnTheStream) {
  std::vector<size_t> first[2];
  for (uint64_t seed : {1u, 2u}) {
    std::mt19937_64 rng(seed);
    SystematicChoice c({1, 1, 1, 1, 1, 1, 1, 1}, rng);
    for (int n = 0; n < 8; ++n) first[seed - 1].push_back(c.next());
  }
  EXPECT_NE(first[0], first[1]);
}

TEST(SystematicChoice, NoPositiveShareIsEmpty) {
  std::mt19937_64 rng(1);
  EXPECT_TRUE(SystematicChoice({}, rng).empty());
  EXPECT_TRUE(SystematicChoice({0.0, 0.0}, rng).empty());
  EXPECT_FALSE(SystematicChoice({0.0, 0.1}, rng).empty());
}

}  // namespace
}  // namespace rastro::characterize
