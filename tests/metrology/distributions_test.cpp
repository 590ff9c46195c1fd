#include "metrology/distributions.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(Distributions, QuantilesAndCdfsMatchR) {
  RASTRO_REQUIRE_R();
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> p01(0.001, 0.999);
  std::uniform_int_distribution<int> df(1, 200);
  std::vector<std::vector<double>> args;  // p, df1, df2, x
  for (int i = 0; i < 200; ++i)
    args.push_back({p01(rng), static_cast<double>(df(rng)), static_cast<double>(df(rng)),
                    std::exp(std::uniform_real_distribution<double>(-3, 3)(rng))});
  for (double p : {0.025, 0.05, 0.5, 0.95, 0.975}) args.push_back({p, 49, 49, 1.0});
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  a <- as.numeric(strsplit(l, ' ')[[1]])
  cat(f17(c(qf(a[1], a[2], a[3]), pf(a[4], a[2], a[3]), qt(a[1], a[2]), pt(a[4] - 2, a[3]),
            qnorm(a[1]), pnorm(a[4] - 2))), '\n')
})", rastro::testing::vectors_text(args));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), args.size()) << out;
  for (size_t i = 0; i < args.size(); ++i) {
    SCOPED_TRACE(i);
    const auto& a = args[i];
    EXPECT_TRUE(close_rel(f_quantile(a[0], a[1], a[2]).value(), rows[i][0], 1e-9));
    EXPECT_TRUE(close_rel(f_cdf(a[3], a[1], a[2]).value(), rows[i][1], 1e-9, 1e-15));
    EXPECT_TRUE(close_rel(t_quantile(a[0], a[1]).value(), rows[i][2], 1e-9, 1e-14));
    EXPECT_TRUE(close_rel(t_cdf(a[3] - 2, a[2]).value(), rows[i][3], 1e-9, 1e-15));
    EXPECT_TRUE(close_rel(normal_quantile(a[0]), rows[i][4], 1e-9, 1e-14));
    EXPECT_TRUE(close_rel(normal_cdf(a[3] - 2), rows[i][5], 1e-9, 1e-15));
  }
}

TEST(Distributions, ThesisFCriticalValuesForN50) {
  // SPEC §6.1: n = 50, two-sided 0.56 and 1.76, one-sided 0.95: 1.607.
  EXPECT_NEAR(f_quantile(0.025, 49, 49).value(), 0.567, 0.0005);
  EXPECT_NEAR(f_quantile(0.975, 49, 49).value(), 1.762, 0.0005);
  EXPECT_NEAR(f_quantile(0.95, 49, 49).value(), 1.607, 0.0005);
}

TEST(Distributions, OutOfDomainIsAFailureNotNaN) {
  EXPECT_FALSE(f_quantile(0.5, 0, 3).ok());
  EXPECT_FALSE(f_quantile(1.5, 2, 3).ok());
  EXPECT_FALSE(t_quantile(0.5, -1).ok());
  EXPECT_FALSE(t_quantile(NAN, 3).ok());
  EXPECT_FALSE(t_cdf(NAN, 3).ok());
  EXPECT_EQ(f_cdf(-1, 2, 3).value(), 0.0);
}

}  // namespace
}  // namespace rastro::metrology
