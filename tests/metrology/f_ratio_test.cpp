#include "metrology/f_ratio.h"

#include <random>

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"
#include "tests/metrology/sample_vectors.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(FTest, MatchesRVarTest) {
  RASTRO_REQUIRE_R();
  auto vs = rastro::testing::sample_vectors(21, 80, 2, 120);
  if (vs.size() % 2) vs.pop_back();
  // Pairs (B, A) on consecutive lines; R's var.test(B, A) and qf for the critical values.
  const auto out = rastro::testing::run_r(R"(
l <- readLines(DATA)
for (i in seq(1, length(l), by = 2)) {
  b <- as.numeric(strsplit(l[i], ' ')[[1]]); a <- as.numeric(strsplit(l[i + 1], ' ')[[1]])
  t <- var.test(b, a)
  d1 <- length(b) - 1; d2 <- length(a) - 1
  cat(f17(c(t$statistic, t$p.value, qf(0.025, d1, d2), qf(0.975, d1, d2), qf(0.95, d1, d2))), '\n')
})", rastro::testing::vectors_text(vs));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), vs.size() / 2) << out;
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    auto t = f_test(vs[2 * i], vs[2 * i + 1]).value();
    EXPECT_TRUE(close_rel(t.F, rows[i][0], 1e-9));
    EXPECT_TRUE(close_rel(t.p_value, rows[i][1], 1e-9, 1e-14));
    EXPECT_TRUE(close_rel(t.crit_low, rows[i][2], 1e-9));
    EXPECT_TRUE(close_rel(t.crit_high, rows[i][3], 1e-9));
    EXPECT_TRUE(close_rel(t.crit_one_sided, rows[i][4], 1e-9));
  }
}

TEST(FTest, VerdictFollowsCriticalValues) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> a(50), wide(50), same(50), narrow(50);
  for (size_t i = 0; i < 50; ++i) {
    a[i] = 100 + z(rng);
    wide[i] = 100 + 3 * z(rng);
    narrow[i] = 100 + 0.3 * z(rng);
  }
  same = a;
  std::reverse(same.begin(), same.end());
  EXPECT_EQ(f_test(wide, a).value().verdict, FVerdict::kLessPrecise);
  EXPECT_EQ(f_test(narrow, a).value().verdict, FVerdict::kMorePrecise);
  auto eq = f_test(same, a).value();
  EXPECT_EQ(eq.verdict, FVerdict::kEquivalent);
  EXPECT_DOUBLE_EQ(eq.F, 1.0);
  // n = 50 critical values quoted in SPEC §6.1.
  EXPECT_NEAR(eq.crit_low, 0.56, 0.01);
  EXPECT_NEAR(eq.crit_high, 1.76, 0.01);
  EXPECT_NEAR(eq.crit_one_sided, 1.607, 0.001);
}

TEST(FTest, BadInput) {
  const std::vector<double> one{1}, c{2, 2, 2}, x{1, 2, 3};
  EXPECT_FALSE(f_test(one, x).ok());
  EXPECT_FALSE(f_test(x, one).ok());
  auto r = f_test(x, c);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("zero variance"), std::string::npos);
  EXPECT_FALSE(f_test(x, x, 0).ok());
}

}  // namespace
}  // namespace rastro::metrology
