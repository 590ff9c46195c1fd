#include "metrology/descriptive.h"

#include <cmath>

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"
#include "tests/metrology/sample_vectors.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(Descriptive, MatchesR) {
  RASTRO_REQUIRE_R();
  const auto vs = rastro::testing::sample_vectors(11, 60, 2, 300);
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  x <- as.numeric(strsplit(l, ' ')[[1]])
  cat(f17(c(mean(x), sd(x), var(x), median(x), mad(x))), '\n')
})", rastro::testing::vectors_text(vs));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), vs.size()) << out;
  for (size_t i = 0; i < vs.size(); ++i) {
    SCOPED_TRACE(i);
    ASSERT_EQ(rows[i].size(), 5u);
    EXPECT_TRUE(close_rel(mean(vs[i]).value(), rows[i][0], 1e-9, 1e-300));
    EXPECT_TRUE(close_rel(sample_sd(vs[i]).value(), rows[i][1], 1e-9));
    EXPECT_TRUE(close_rel(sample_variance(vs[i]).value(), rows[i][2], 1e-9));
    EXPECT_TRUE(close_rel(median(vs[i]).value(), rows[i][3], 1e-12));
    EXPECT_TRUE(close_rel(mad(vs[i]).value(), rows[i][4], 1e-12, 1e-300));
  }
}

TEST(Descriptive, KnownValues) {
  const std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(mean(x).value(), 5);
  EXPECT_DOUBLE_EQ(sample_variance(x).value(), 32.0 / 7);
  EXPECT_DOUBLE_EQ(median(x).value(), 4.5);
  const std::vector<double> c{3, 3, 3};
  EXPECT_EQ(sample_sd(c).value(), 0);
}

TEST(Descriptive, RejectsBadInput) {
  const std::vector<double> one{1.0}, none{};
  EXPECT_FALSE(sample_sd(one).ok());
  EXPECT_NE(sample_sd(one).error().find("n >= 2"), std::string::npos);
  EXPECT_FALSE(mean(none).ok());
  const std::vector<double> nan{1, NAN, 3}, inf{1, INFINITY};
  EXPECT_FALSE(mean(nan).ok());
  EXPECT_NE(mean(nan).error().find("[1]"), std::string::npos);
  EXPECT_FALSE(sample_variance(inf).ok());
  EXPECT_FALSE(median(nan).ok());
}

}  // namespace
}  // namespace rastro::metrology
