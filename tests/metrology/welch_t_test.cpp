#include "metrology/welch_t.h"

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"
#include "tests/metrology/sample_vectors.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(WelchTTest, MatchesRTTest) {
  RASTRO_REQUIRE_R();
  auto vs = rastro::testing::sample_vectors(41, 80, 2, 150);
  if (vs.size() % 2) vs.pop_back();
  const auto out = rastro::testing::run_r(R"(
l <- readLines(DATA)
for (i in seq(1, length(l), by = 2)) {
  x <- as.numeric(strsplit(l[i], ' ')[[1]]); y <- as.numeric(strsplit(l[i + 1], ' ')[[1]])
  t <- t.test(x, y, var.equal = FALSE)
  cat(f17(c(t$statistic, t$parameter, t$p.value, t$conf.int)), '\n')
})", rastro::testing::vectors_text(vs));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), vs.size() / 2) << out;
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(i);
    auto t = welch_t_test(vs[2 * i], vs[2 * i + 1]).value();
    EXPECT_TRUE(close_rel(t.t, rows[i][0], 1e-9));
    EXPECT_TRUE(close_rel(t.df, rows[i][1], 1e-9));
    EXPECT_TRUE(close_rel(t.p_value, rows[i][2], 1e-9, 1e-15));
    EXPECT_TRUE(close_rel(t.ci_low, rows[i][3], 1e-9, 1e-12 * std::fabs(t.difference)));
    EXPECT_TRUE(close_rel(t.ci_high, rows[i][4], 1e-9, 1e-12 * std::fabs(t.difference)));
  }
}

TEST(WelchTTest, ConstantDataIsRefused) {
  const std::vector<double> a{5, 5, 5}, b{5, 5};
  EXPECT_FALSE(welch_t_test(a, b).ok());
  const std::vector<double> one{1};
  EXPECT_FALSE(welch_t_test(one, a).ok());
}

}  // namespace
}  // namespace rastro::metrology
