#include "metrology/shapiro_wilk.h"

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"
#include "tests/metrology/sample_vectors.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(ShapiroWilk, MatchesRShapiroTest) {
  RASTRO_REQUIRE_R();
  auto vs = rastro::testing::sample_vectors(31, 120, 3, 400);
  for (size_t n : {3, 4, 5, 7, 11, 12, 13, 100, 5000}) {
    auto more = rastro::testing::sample_vectors(1000 + n, 4, n, n);
    vs.insert(vs.end(), more.begin(), more.begin() + 4);
  }
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  x <- as.numeric(strsplit(l, ' ')[[1]])
  t <- shapiro.test(x)
  cat(f17(c(t$statistic, t$p.value)), '\n')
})", rastro::testing::vectors_text(vs));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), vs.size()) << out;
  for (size_t i = 0; i < vs.size(); ++i) {
    SCOPED_TRACE(::testing::Message() << "vector " << i << " n=" << vs[i].size());
    auto r = shapiro_wilk(vs[i]).value();
    EXPECT_TRUE(close_rel(r.W, rows[i][0], 1e-6));
    EXPECT_TRUE(close_rel(r.p_value, rows[i][1], 1e-6, 1e-15));
  }
}

TEST(ShapiroWilk, RejectsWhatRRejects) {
  const std::vector<double> two{1, 2}, same{4, 4, 4, 4}, nan{1, 2, NAN, 4};
  EXPECT_FALSE(shapiro_wilk(two).ok());
  EXPECT_FALSE(shapiro_wilk(std::vector<double>(5001, 1.0)).ok());
  auto r = shapiro_wilk(same);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("identical"), std::string::npos);
  EXPECT_FALSE(shapiro_wilk(nan).ok());
}

TEST(ShapiroWilk, NormalDataLooksNormalSkewedDoesNot) {
  auto normal = rastro::testing::sample_vectors(7, 1, 200, 200)[0];  // k = 0: normal shape
  EXPECT_GT(shapiro_wilk(normal).value().p_value, 0.001);
  std::vector<double> skewed;
  for (int i = 1; i <= 200; ++i) skewed.push_back(std::exp(i / 20.0));
  EXPECT_LT(shapiro_wilk(skewed).value().p_value, 1e-6);
}

}  // namespace
}  // namespace rastro::metrology
