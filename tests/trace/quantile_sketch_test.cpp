// QuantileSketch against exact R type-7 quantiles (quantile_type7): identical while exact, within
// the stated relative error beyond, and merging equals adding everything to one sketch.
#include "trace/analysis/quantile_sketch.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "trace/analysis/condenser.h"

namespace rastro::trace {
namespace {

// The sketch's bound: within a of the order statistics the exact quantile interpolates between.
void expect_within_bound(const QuantileSketch& s, std::vector<int64_t> values, double p) {
  std::sort(values.begin(), values.end());
  double h = static_cast<double>(values.size() - 1) * p;
  auto lo = static_cast<double>(values[static_cast<size_t>(std::floor(h))]);
  auto hi = static_cast<double>(values[std::min(values.size() - 1, static_cast<size_t>(std::floor(h)) + 1)]);
  const double a = QuantileSketch::kRelativeError;
  double q = s.quantile(p);
  EXPECT_GE(q, std::min(lo * (1 - a), lo * (1 + a)) - 1e-9) << "p " << p;
  EXPECT_LE(q, std::max(hi * (1 + a), hi * (1 - a)) + 1e-9) << "p " << p;
  // And within a of the exact type-7 value for positive samples.
  double exact = quantile_type7(values, p);
  if (lo > 0) {
    EXPECT_NEAR(q, exact, exact * a) << "p " << p;
  }
}

TEST(QuantileSketch, ExactUpToTheLimit) {
  std::mt19937_64 rng(1);
  QuantileSketch s;
  std::vector<int64_t> v;
  for (size_t i = 0; i < QuantileSketch::kExactValues; ++i) {
    v.push_back(static_cast<int64_t>(rng() % 100000));
    s.add(v.back());
  }
  EXPECT_TRUE(s.exact());
  std::sort(v.begin(), v.end());
  for (double p : {0.0, 0.01, 0.5, 0.99, 1.0}) EXPECT_EQ(s.quantile(p), quantile_type7(v, p));
  s.add(5);
  EXPECT_FALSE(s.exact());
}

TEST(QuantileSketch, LogNormalLatenciesWithinTheRelativeError) {
  std::mt19937_64 rng(2);
  std::lognormal_distribution<double> d(8.0, 2.5);  // ~3 us median, heavy tail
  QuantileSketch s;
  std::vector<int64_t> v;
  for (int i = 0; i < 200000; ++i) {
    v.push_back(1 + static_cast<int64_t>(d(rng)));
    s.add(v.back());
  }
  EXPECT_EQ(s.count(), v.size());
  for (double p : {0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1.0}) expect_within_bound(s, v, p);
}

TEST(QuantileSketch, ZerosAndNegativesKeepTheirOrder) {
  QuantileSketch s;
  std::vector<int64_t> v;
  for (int i = 0; i < 3000; ++i) {
    int64_t x = i % 3 == 0 ? 0 : i % 3 == 1 ? -(i + 10) : i + 10;
    v.push_back(x);
    s.add(x);
  }
  std::sort(v.begin(), v.end());
  EXPECT_LT(s.quantile(0.1), 0);
  EXPECT_EQ(s.quantile(0.5), 0);  // the middle third is zeros, exactly
  EXPECT_GT(s.quantile(0.9), 0);
  for (double p : {0.05, 0.3, 0.8, 0.95}) expect_within_bound(s, v, p);
}

TEST(QuantileSketch, MergeEqualsAddingEverything) {
  std::mt19937_64 rng(3);
  QuantileSketch all, a, b, small;
  for (int i = 0; i < 50000; ++i) {
    int64_t x = static_cast<int64_t>(rng() % 1000000);
    all.add(x);
    (i % 3 ? a : b).add(x);
  }
  small.add(7);
  a.merge(b);
  a.merge(small);
  all.add(7);
  EXPECT_EQ(a.count(), all.count());
  for (double p : {0.0, 0.25, 0.5, 0.99, 1.0}) EXPECT_DOUBLE_EQ(a.quantile(p), all.quantile(p));
  QuantileSketch e1, e2;  // two exact ones stay exact while small
  e1.add(3);
  e2.add(1);
  e1.merge(e2);
  EXPECT_TRUE(e1.exact());
  EXPECT_EQ(e1.quantile(0.0), 1);
  EXPECT_EQ(QuantileSketch().quantile(0.5), 0);
}

}  // namespace
}  // namespace rastro::trace
