#include "metrology/outliers.h"

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"
#include "tests/metrology/sample_vectors.h"

namespace rastro::metrology {
namespace {

TEST(Outliers, FlagsButNeverRemoves) {
  std::vector<double> x{10.1, 9.9, 10.0, 10.2, 9.8, 10.05, 25.0, 9.95};
  const auto copy = x;
  auto r = flag_outliers(x).value();
  EXPECT_EQ(x, copy);
  ASSERT_EQ(r.flagged.size(), 1u);
  EXPECT_EQ(r.flagged[0], 6u);
  EXPECT_DOUBLE_EQ(r.median, 10.025);
  EXPECT_LT(r.high, 25.0);
}

TEST(Outliers, SameFlagsAsRRule) {
  RASTRO_REQUIRE_R();
  const auto vs = rastro::testing::sample_vectors(71, 40, 1, 60);
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  x <- as.numeric(strsplit(l, ' ')[[1]])
  f <- which(abs(x - median(x)) > 3 * mad(x))
  cat(if (mad(x) == 0) '' else f17(f - 1), '\n')
})", rastro::testing::vectors_text(vs));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), vs.size());
  size_t total = 0;
  for (size_t i = 0; i < vs.size(); ++i) {
    auto r = flag_outliers(vs[i]).value();
    std::vector<double> got(r.flagged.begin(), r.flagged.end());
    EXPECT_EQ(got, rows[i]) << i;
    total += got.size();
  }
  EXPECT_GT(total, 0u);  // the skewed shapes and the planted outlier must produce some flags
}

TEST(Outliers, DegenerateMadIsReported) {
  std::vector<double> x{5, 5, 5, 5, 9};
  auto r = flag_outliers(x).value();
  EXPECT_TRUE(r.flagged.empty());
  EXPECT_NE(r.note.find("MAD is 0"), std::string::npos);
  EXPECT_FALSE(flag_outliers(std::vector<double>{}).ok());
  EXPECT_FALSE(flag_outliers(x, 0).ok());
}

}  // namespace
}  // namespace rastro::metrology
