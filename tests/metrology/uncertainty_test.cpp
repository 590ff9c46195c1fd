#include "metrology/uncertainty.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "metrology/bias_significance.h"
#include "tests/metrology/r_oracle.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(Uncertainty, ThesisTableB1Combination) {
  // Thesis Table B.1, strace RR level 1: precision 0.94 %, bias uncertainty 0.95 % → U = 2.67 %.
  const double uc = combine(0.94, 0.95);
  EXPECT_NEAR(expanded(uc, 2), 2.67, 0.005);
  EXPECT_NEAR(coverage_probability(1), 0.6827, 5e-5);
  EXPECT_NEAR(coverage_probability(2), 0.9545, 5e-5);
  EXPECT_NEAR(coverage_probability(3), 0.9973, 5e-5);
}

TEST(Uncertainty, BudgetFormulasBySpec) {
  // Two replicates, exact arithmetic: x = 11, 13; ref = 10, 10; u(ref) = 0.1, 0.3.
  std::vector<Replicate> r{{11, 10, 0.1}, {13, 10, 0.3}};
  auto b = uncertainty_budget(r).value();
  EXPECT_DOUBLE_EQ(b.mean, 12);
  EXPECT_DOUBLE_EQ(b.sd, std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(b.precision_rel, std::sqrt(2.0) / 12 * 100);
  EXPECT_DOUBLE_EQ(b.bias_rel, 20);
  EXPECT_DOUBLE_EQ(b.rms_bias_rel, std::sqrt((100.0 + 900.0) / 2));
  EXPECT_DOUBLE_EQ(b.u_cref_rel, std::sqrt((1.0 + 9.0) / 2));
  EXPECT_DOUBLE_EQ(b.u_bias_rel, std::sqrt(500.0 + 5.0));
  EXPECT_NEAR(b.uc_rel, std::sqrt(std::pow(std::sqrt(2.0) / 12 * 100, 2) + 505.0), 1e-12);
  EXPECT_DOUBLE_EQ(b.U_rel, 2 * b.uc_rel);
  EXPECT_DOUBLE_EQ(b.rms_bias, std::sqrt((1.0 + 9.0) / 2));
  EXPECT_DOUBLE_EQ(b.u_cref, std::sqrt((0.01 + 0.09) / 2));
}

TEST(Uncertainty, RelativeBudgetMatchesRArithmetic) {
  RASTRO_REQUIRE_R();
  std::mt19937_64 rng(81);
  std::vector<std::vector<double>> lines;  // x..., ref..., u... for n replicates
  std::vector<std::vector<Replicate>> cases;
  for (int c = 0; c < 40; ++c) {
    const size_t n = 2 + rng() % 60;
    std::normal_distribution<double> z(0, 1);
    const double ref = std::exp(std::uniform_real_distribution<double>(-2, 6)(rng));
    std::vector<Replicate> reps;
    std::vector<double> line;
    for (size_t i = 0; i < n; ++i) reps.push_back({ref * (1.1 + 0.05 * z(rng)), ref * (1 + 0.01 * z(rng)), ref * 0.002 * std::fabs(z(rng))});
    for (auto& r : reps) line.push_back(r.measured);
    for (auto& r : reps) line.push_back(r.reference);
    for (auto& r : reps) line.push_back(r.reference_u);
    cases.push_back(reps);
    lines.push_back(line);
  }
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  a <- as.numeric(strsplit(l, ' ')[[1]]); n <- length(a) / 3
  x <- a[1:n]; r <- a[(n + 1):(2 * n)]; u <- a[(2 * n + 1):(3 * n)]
  prec <- sd(x) / mean(x) * 100; bias <- (mean(x) - mean(r)) / mean(r) * 100
  rms <- sqrt(mean(((x - r) / r * 100)^2)); ucr <- sqrt(mean((u / r * 100)^2))
  ub <- sqrt(rms^2 + ucr^2); uc <- sqrt(prec^2 + ub^2)
  sig <- abs(mean(x) - mean(r)) > 2 * sqrt(var(x) / n + mean(u^2))
  cat(f17(c(prec, bias, rms, ucr, ub, uc, 2 * uc, sig)), '\n')
})", rastro::testing::vectors_text(lines));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), cases.size()) << out;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    auto b = uncertainty_budget(cases[i]).value();
    EXPECT_TRUE(close_rel(b.precision_rel, rows[i][0], 1e-9));
    EXPECT_TRUE(close_rel(b.bias_rel, rows[i][1], 1e-9));
    EXPECT_TRUE(close_rel(b.rms_bias_rel, rows[i][2], 1e-9));
    EXPECT_TRUE(close_rel(b.u_cref_rel, rows[i][3], 1e-9));
    EXPECT_TRUE(close_rel(b.u_bias_rel, rows[i][4], 1e-9));
    EXPECT_TRUE(close_rel(b.uc_rel, rows[i][5], 1e-9));
    EXPECT_TRUE(close_rel(b.U_rel, rows[i][6], 1e-9));
    auto s = bias_significance(b.mean, b.reference_mean, b.sd, b.n, b.u_cref);
    EXPECT_EQ(s.significant, rows[i][7] == 1);
  }
}

TEST(Uncertainty, BadInputIsAReasonNotANaN) {
  EXPECT_FALSE(uncertainty_budget(std::vector<Replicate>{{1, 1, 0}}).ok());
  auto zero = uncertainty_budget(std::vector<Replicate>{{1, 0, 0}, {2, 1, 0}});
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().find("not positive"), std::string::npos);
  EXPECT_FALSE(uncertainty_budget(std::vector<Replicate>{{1, -2, 0}, {2, 1, 0}}).ok());
  EXPECT_FALSE(uncertainty_budget(std::vector<Replicate>{{NAN, 1, 0}, {2, 1, 0}}).ok());
  EXPECT_FALSE(uncertainty_budget(std::vector<Replicate>{{1, 1, -0.1}, {2, 1, 0}}).ok());
  EXPECT_FALSE(uncertainty_budget(std::vector<Replicate>{{-1, 1, 0}, {1, 1, 0}}).ok());  // mean 0
  // Constant data: sd = 0 is a valid (if suspicious) precision, not a NaN.
  auto c = uncertainty_budget(std::vector<Replicate>{{2, 1, 0}, {2, 1, 0}}).value();
  EXPECT_EQ(c.precision_rel, 0);
  EXPECT_DOUBLE_EQ(c.bias_rel, 100);
}

TEST(BiasSignificance, Rule) {
  // |12 − 10| = 2 > 2·sqrt(1/4 + 0.25) = 1.414 → significant.
  auto s = bias_significance(12, 10, 1, 4, 0.5);
  EXPECT_TRUE(s.significant);
  EXPECT_DOUBLE_EQ(s.threshold, 2 * std::sqrt(0.5));
  EXPECT_FALSE(bias_significance(10.5, 10, 1, 4, 0.5).significant);
}

TEST(Uncertainty, ClockOffsetsOfACrossHostIntervalAreATypeBComponent) {
  // Two replicates 10 and 12 against 10: sd = √2, rms bias = √2, u(C_ref) = 0. Their ends lie on
  // two hosts whose offsets are known to ± 0.3·√3 and ± 0.4·√3: clock_u = 0.3, 0.4 (uniform: b/√3).
  EXPECT_DOUBLE_EQ(uniform_type_b(0.3 * std::sqrt(3.0)), 0.3);
  auto b = uncertainty_budget(std::vector<Replicate>{{10, 10, 0, 0.3}, {12, 10, 0, 0.4}}).value();
  EXPECT_DOUBLE_EQ(b.u_clock, std::sqrt((0.09 + 0.16) / 2));
  EXPECT_NEAR(b.uc, std::sqrt(2.0 + 2.0 + 0.125), 1e-12);
  EXPECT_NEAR(b.u_clock_rel, std::sqrt((3.0 * 3.0 + (40.0 / 12) * (40.0 / 12)) / 2), 1e-12);
  // The same replicates on one host: the budget without it.
  auto one_host = uncertainty_budget(std::vector<Replicate>{{10, 10, 0}, {12, 10, 0}}).value();
  EXPECT_NEAR(one_host.uc, 2.0, 1e-12);
  EXPECT_EQ(one_host.u_clock, 0);
  EXPECT_NEAR(b.uc_rel, std::hypot(one_host.uc_rel, b.u_clock_rel), 1e-12);
  EXPECT_FALSE(uncertainty_budget(std::vector<Replicate>{{10, 10, 0, -1}, {12, 10, 0, 0}}).ok());
}

TEST(Uncertainty, DominantComponent) {
  UncertaintyBudget b;
  b.precision_rel = 3, b.rms_bias_rel = 2, b.u_cref_rel = 1;
  EXPECT_STREQ(dominant_component(b), "precision");
  b.rms_bias_rel = 4;
  EXPECT_STREQ(dominant_component(b), "bias");
  b.u_cref_rel = 5;
  EXPECT_STREQ(dominant_component(b), "reference");
  b.u_clock_rel = 6;
  EXPECT_STREQ(dominant_component(b), "clock");
}

}  // namespace
}  // namespace rastro::metrology
