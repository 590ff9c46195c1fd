#include "metrology/qq_plot.h"

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"
#include "tests/metrology/sample_vectors.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(QqPlot, MatchesRQqnorm) {
  RASTRO_REQUIRE_R();
  const auto vs = rastro::testing::sample_vectors(51, 20, 1, 40);
  // R prints the theoretical quantiles in sorted-sample order.
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  x <- as.numeric(strsplit(l, ' ')[[1]])
  q <- qqnorm(x, plot.it = FALSE); o <- order(q$y)
  cat(f17(q$x[o]), '\n')
})", rastro::testing::vectors_text(vs));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), vs.size()) << out;
  for (size_t i = 0; i < vs.size(); ++i) {
    auto q = qq_normal(vs[i]).value();
    ASSERT_EQ(q.size(), rows[i].size());
    for (size_t k = 0; k < q.size(); ++k) {
      EXPECT_TRUE(close_rel(q[k].theoretical, rows[i][k], 1e-9, 1e-14)) << i << "/" << k;
      if (k) {
        EXPECT_LE(q[k - 1].sample, q[k].sample);
      }
    }
  }
}

TEST(QqPlot, BadInput) {
  EXPECT_FALSE(qq_normal(std::vector<double>{}).ok());
  EXPECT_FALSE(qq_normal(std::vector<double>{1, NAN}).ok());
}

}  // namespace
}  // namespace rastro::metrology
