// The sampling bounds against values computed independently with R 4.2 (Debian r-base):
//   prop.test(c(61, 49), c(67, 62), correct = FALSE)$statistic    -> 3.69979808474
//   prop.test(c(58, 30), c(165, 140), correct = FALSE)$statistic  -> 6.94806668335
//   qnorm(0.975)                                                  -> 1.95996398454
//   poisson.test(c(x, x), c(1, 1))$conf.int, x = 20, 71, 400      -> below
#include "characterize/sampling_bounds.h"

#include <cmath>

#include <gtest/gtest.h>

namespace rastro::characterize {
namespace {

TEST(SamplingBounds, TheNormalQuantileIsRs) { EXPECT_NEAR(kZ975, 1.95996398454, 1e-10); }

// The z test's statistic is (d / SE)^2 with SE the pooled standard error; the bound is 1.96 SE,
// so (d / bound)^2 * 1.96^2 must be R's chi-square statistic for the same counts.
TEST(SamplingBounds, TwoProportionBoundIsThePooledZTestsRejectionDistance) {
  struct Case {
    double x1, n1, x2, n2, r_statistic;
  };
  for (const Case& c : {Case{61, 67, 49, 62, 3.69979808474}, Case{58, 165, 30, 140, 6.94806668335}}) {
    const double p1 = c.x1 / c.n1, p2 = c.x2 / c.n2;
    const double b = two_proportion_bound(p1, c.n1, p2, c.n2);
    const double statistic = std::pow((p1 - p2) / b * 1.95996398454, 2);
    EXPECT_NEAR(statistic, c.r_statistic, 1e-8) << c.x1 << "/" << c.n1 << " vs " << c.x2 << "/" << c.n2;
  }
  EXPECT_EQ(two_proportion_bound(0.5, 0, 0.5, 10), 0.0);
  // tar's sequential fraction: 61 of 67 transfers; the same share in as many synthetic ones.
  EXPECT_NEAR(two_proportion_bound(61.0 / 67, 67, 61.0 / 67, 67), 0.0967, 5e-4);
}

// The relative bound lies inside the exact 95 % interval of the ratio of two equal Poisson
// counts (R's poisson.test): 1 - lower <= bound <= upper - 1, and both ends tighten as 1/sqrt(t).
TEST(SamplingBounds, CountRatioBoundLiesInsideTheExactPoissonInterval) {
  struct Case {
    double t, lower, upper;
  };
  for (const Case& c : {Case{20, 0.51061466721, 1.95842396276}, Case{71, 0.709427163288, 1.409587977102},
                        Case{400, 0.868397656281, 1.151546175612}}) {
    const double b = count_ratio_bound(c.t, c.t);
    EXPECT_GE(b, 1 - c.lower) << c.t;
    EXPECT_LE(b, c.upper - 1) << c.t;
    EXPECT_NEAR(b, std::log(c.upper), 0.1 * std::log(c.upper)) << c.t;  // the log rate ratio's normal approximation
  }
  EXPECT_EQ(count_ratio_bound(0, 5), 0.0);
}

TEST(SamplingBounds, KsCriticalDistance) {
  EXPECT_NEAR(ks_critical_distance(100, 100), 1.358 * std::sqrt(0.02), 1e-12);
  EXPECT_EQ(ks_critical_distance(0, 100), 0.0);
}

}  // namespace
}  // namespace rastro::characterize
