#include "metrology/ratio_equivalence.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

// Ratios as a replay's class latency against its original's gives them: lognormal around a bias,
// 2 to 40 rounds, spreads from 1 % to 60 %.
std::vector<std::vector<double>> ratio_samples() {
  std::mt19937_64 rng(15);
  std::vector<std::vector<double>> out;
  for (int k = 0; k < 60; ++k) {
    const size_t n = 2 + static_cast<size_t>(k % 39);
    const double bias = std::uniform_real_distribution<double>(0.5, 2.0)(rng);
    const double sd = std::uniform_real_distribution<double>(0.01, 0.6)(rng);
    std::lognormal_distribution<double> d(std::log(bias), sd);
    std::vector<double> v(n);
    for (auto& x : v) x = d(rng);
    out.push_back(v);
  }
  return out;
}

TEST(RatioEquivalence, MatchesRTTestOnTheLogarithms) {
  RASTRO_REQUIRE_R();
  const auto vs = ratio_samples();
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  x <- log(as.numeric(strsplit(l, ' ')[[1]]))
  for (c in c(0.90, 0.95)) cat(f17(c(exp(mean(x)), sd(x), exp(t.test(x, conf.level = c)$conf.int))), '')
  cat('\n')
})", rastro::testing::vectors_text(vs));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), vs.size()) << out;
  for (size_t i = 0; i < vs.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(rows[i].size(), 8u) << out;
    for (int c = 0; c < 2; ++c) {
      const auto e = estimate_ratio(vs[i], c == 0 ? 0.90 : 0.95).value();
      EXPECT_EQ(e.rounds, vs[i].size());
      EXPECT_TRUE(close_rel(e.geometric_mean, rows[i][4 * c], 1e-9));
      EXPECT_TRUE(close_rel(e.log_sd, rows[i][4 * c + 1], 1e-9));
      EXPECT_TRUE(close_rel(e.ci_low, rows[i][4 * c + 2], 1e-9));
      EXPECT_TRUE(close_rel(e.ci_high, rows[i][4 * c + 3], 1e-9));
    }
  }
}

RatioEstimate interval(double low, double high) {
  RatioEstimate e;
  e.rounds = 5;
  e.ci_low = low;
  e.ci_high = high;
  e.geometric_mean = std::sqrt(low * high);
  return e;
}

TEST(RatioEquivalence, WithinOnlyWhenTheWholeIntervalIsInsideTheBounds) {
  EXPECT_EQ(judge_equivalence(interval(0.90, 1.10), 0.15), Equivalence::kWithin);
  EXPECT_EQ(judge_equivalence(interval(0.85, 1.15), 0.15), Equivalence::kWithin);  // bounds included
  EXPECT_EQ(judge_equivalence(interval(0.84, 1.10), 0.15), Equivalence::kUndecided);
  EXPECT_EQ(judge_equivalence(interval(0.90, 1.16), 0.15), Equivalence::kUndecided);
  EXPECT_EQ(judge_equivalence(interval(0.70, 1.40), 0.15), Equivalence::kUndecided);  // spans both
}

TEST(RatioEquivalence, BeyondOnlyWhenTheWholeIntervalIsOutside) {
  EXPECT_EQ(judge_equivalence(interval(1.16, 1.40), 0.15), Equivalence::kBeyond);
  EXPECT_EQ(judge_equivalence(interval(0.50, 0.84), 0.15), Equivalence::kBeyond);
  EXPECT_EQ(judge_equivalence(interval(1.10, 1.40), 0.15), Equivalence::kUndecided);
  EXPECT_EQ(judge_equivalence(interval(1.16, 1.60), 0.50), Equivalence::kUndecided);
}

TEST(RatioEquivalence, MoreRoundsDecideWhatFewLeaveOpen) {
  // The same bias (1.05) and spread (20 %) per round: 3 rounds cannot show it within 15 %, 40 can.
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> d(std::log(1.05), 0.20);
  std::vector<double> v(40);
  for (auto& x : v) x = d(rng);
  const auto few = estimate_ratio(std::span(v).first(3)).value();
  const auto many = estimate_ratio(v).value();
  EXPECT_EQ(judge_equivalence(few, 0.15), Equivalence::kUndecided);
  EXPECT_EQ(judge_equivalence(many, 0.15), Equivalence::kWithin);
  EXPECT_LT(many.ci_high - many.ci_low, few.ci_high - few.ci_low);
}

TEST(RatioEquivalence, EqualRatiosGiveAPointInterval) {
  const std::vector<double> v{1.2, 1.2, 1.2};
  const auto e = estimate_ratio(v).value();
  EXPECT_DOUBLE_EQ(e.ci_low, 1.2);
  EXPECT_DOUBLE_EQ(e.ci_high, 1.2);
  EXPECT_EQ(judge_equivalence(e, 0.15), Equivalence::kBeyond);
}

TEST(RatioEquivalence, RefusesWhatIsNoRatioSample) {
  EXPECT_FALSE(estimate_ratio(std::vector<double>{1.1}).ok());
  EXPECT_FALSE(estimate_ratio(std::vector<double>{}).ok());
  EXPECT_FALSE(estimate_ratio(std::vector<double>{1.0, 0.0}).ok());
  EXPECT_FALSE(estimate_ratio(std::vector<double>{1.0, -2.0}).ok());
  EXPECT_FALSE(estimate_ratio(std::vector<double>{1.0, NAN}).ok());
  EXPECT_FALSE(estimate_ratio(std::vector<double>{1.0, INFINITY}).ok());
  EXPECT_FALSE(estimate_ratio(std::vector<double>{1.0, 1.1}, 1.0).ok());
  EXPECT_FALSE(estimate_ratio(std::vector<double>{1.0, 1.1}, 0.0).ok());
  EXPECT_EQ(equivalence_name(Equivalence::kUndecided), "undecided");
}

}  // namespace
}  // namespace rastro::metrology
