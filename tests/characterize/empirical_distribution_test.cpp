#include "characterize/empirical_distribution.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace rastro::characterize {
namespace {

TEST(EmpiricalDistribution, FewDistinctValuesAreKeptExactly) {
  std::vector<double> v = {4096, 4096, 4096, 65536};
  EmpiricalDistribution d = summarize(v);
  EXPECT_EQ(d.atoms, (std::vector<double>{4096, 65536}));
  EXPECT_EQ(d.weights, (std::vector<double>{0.75, 0.25}));
  EXPECT_DOUBLE_EQ(d.mean, 19456.0);
  EXPECT_DOUBLE_EQ(d.cdf(4095), 0.0);
  EXPECT_DOUBLE_EQ(d.cdf(4096), 0.75);
  EXPECT_DOUBLE_EQ(d.cdf(1e9), 1.0);
}

// R: quantile(1:100, c(0, .5, 1)) = 1, 50.5, 100 (type 7).
TEST(EmpiricalDistribution, QuantilesMatchRsType7) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  EmpiricalDistribution d = summarize(v, 32, 3);
  ASSERT_TRUE(d.atoms.empty());
  EXPECT_EQ(d.quantiles, (std::vector<double>{1, 50.5, 100}));
  EXPECT_DOUBLE_EQ(d.cdf(50.5), 0.5);
  EXPECT_DOUBLE_EQ(d.cdf(0), 0.0);
}

TEST(EmpiricalDistribution, DrawsFollowTheDistribution) {
  std::vector<double> v = {1, 1, 1, 2};
  EmpiricalDistribution d = summarize(v);
  std::mt19937_64 rng(1);
  int ones = 0;
  for (int i = 0; i < 10000; ++i) ones += d.draw(rng) == 1.0;
  EXPECT_NEAR(ones / 10000.0, 0.75, 0.02);
}

// Two-sample KS statistic; R: ks.test(c(1,2), c(1,1))$statistic = 0.5.
TEST(EmpiricalDistribution, KsDistance) {
  std::vector<double> a = {1, 2}, b = {1, 1};
  EXPECT_DOUBLE_EQ(ks_distance(summarize(a), summarize(b)), 0.5);
  EXPECT_DOUBLE_EQ(ks_distance(summarize(a), summarize(a)), 0.0);
  std::vector<double> lo, hi;
  for (int i = 0; i < 100; ++i) {
    lo.push_back(i);
    hi.push_back(i + 1000);
  }
  EXPECT_DOUBLE_EQ(ks_distance(summarize(lo), summarize(hi)), 1.0);
  EXPECT_DOUBLE_EQ(ks_distance(summarize(lo), EmpiricalDistribution{}), 1.0);
}

TEST(EmpiricalDistribution, JsonRoundTripAndErrors) {
  std::vector<double> v = {3, 1, 2, 2};
  EmpiricalDistribution d = summarize(v);
  EmpiricalDistribution back = distribution_from_json(to_json(d), "x");
  EXPECT_EQ(back.atoms, d.atoms);
  EXPECT_EQ(back.weights, d.weights);
  EXPECT_EQ(back.count, 4u);
  try {
    distribution_from_json({{"count", 2}, {"atoms", {2, 1}}, {"weights", {0.5, 0.5}}}, "m.json: read_size");
    FAIL() << "unsorted atoms accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("m.json: read_size"), std::string::npos) << e.what();
  }
  EXPECT_THROW(distribution_from_json({{"count", 2}}, "x"), Error);
  EXPECT_THROW(distribution_from_json({{"count", 2}, {"quantiles", {5}}}, "x"), Error);
}

TEST(EmpiricalDistribution, Variance) {
  std::vector<double> two = {1, 3};  // atoms 1 and 3, mean 2: variance 1
  EXPECT_DOUBLE_EQ(summarize(two).variance(), 1.0);
  std::vector<double> uniform;  // 0..9999: many values, quantile form; a uniform's variance is n^2/12
  for (int i = 0; i < 10000; ++i) uniform.push_back(i);
  EmpiricalDistribution d = summarize(uniform);
  ASSERT_TRUE(d.atoms.empty());
  EXPECT_NEAR(d.variance(), 1e8 / 12, 1e8 / 12 * 0.01);
  EXPECT_EQ(EmpiricalDistribution{}.variance(), 0.0);
}

}  // namespace
}  // namespace rastro::characterize
