#include "metrology/intermediate_precision.h"

#include <random>

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(IntermediatePrecision, GroupedFormMatchesRPooledWithinVariance) {
  RASTRO_REQUIRE_R();
  std::mt19937_64 rng(61);
  std::vector<std::vector<std::vector<double>>> cases;
  std::string text;
  for (int c = 0; c < 30; ++c) {
    const size_t t = 1 + rng() % 6, n = 2 + rng() % 10;
    std::vector<std::vector<double>> groups(t, std::vector<double>(n));
    std::normal_distribution<double> shift(0, 10), z(0, 1 + c);
    for (auto& g : groups) {
      const double s = shift(rng);
      for (auto& y : g) y = 50 + s + z(rng);
    }
    cases.push_back(groups);
    // One line per case: t, n, then the values group by group.
    text += std::to_string(t) + " " + std::to_string(n);
    for (auto& g : groups) text += " " + rastro::testing::vectors_text({g}).substr(0, rastro::testing::vectors_text({g}).size() - 1);
    text += "\n";
  }
  // Computed from its definition with R's own aov residual mean square (ISO 5725-3 s_I).
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  a <- as.numeric(strsplit(l, ' ')[[1]]); t <- a[1]; n <- a[2]; y <- a[-(1:2)]
  g <- factor(rep(seq_len(t), each = n))
  s <- if (t > 1) sqrt(deviance(lm(y ~ g)) / df.residual(lm(y ~ g))) else sd(y)
  cat(f17(s), '\n')
})", text);
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), cases.size()) << out;
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_TRUE(close_rel(intermediate_precision(cases[i]).value(), rows[i][0], 1e-9)) << i;
}

TEST(IntermediatePrecision, SingleSeriesIsTheSampleSd) {
  const std::vector<double> y{10, 12, 11, 13};
  EXPECT_NEAR(intermediate_precision(std::span<const double>(y)).value(), std::sqrt(5.0 / 3), 1e-15);
}

TEST(IntermediatePrecision, MismatchedReplicateCountsFail) {
  std::vector<std::vector<double>> g{{1, 2, 3}, {4, 5}};
  auto r = intermediate_precision(g);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("group 2 has 2"), std::string::npos);
  EXPECT_FALSE(intermediate_precision(std::vector<std::vector<double>>{{1}}).ok());
  EXPECT_FALSE(intermediate_precision(std::vector<std::vector<double>>{}).ok());
}

}  // namespace
}  // namespace rastro::metrology
