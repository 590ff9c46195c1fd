#include "metrology/error_decomposition.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"

namespace rastro::metrology {
namespace {

using rastro::testing::close_rel;

TEST(ErrorDecomposition, HandComputedCase) {
  // Application 150 and 170 µs under the instrument, reference 100 µs (u 2 µs): mean 160, so the
  // application ran 60 % slower; u(mean) = sd/√2 = 14.142/1.414 = 10; u = 160 · √((10/160)² +
  // (2/100)²) = √(100 + 10.24) = 10.4995 pp. Recording 15/150 = 10 %, 17/170 = 10 %: 10 % ± 0.
  const std::vector<double> app = {150, 170}, rec = {15, 17};
  auto p = perturbation(app, 100, 2).value();
  EXPECT_NEAR(p.rel, 60, 1e-12);
  EXPECT_NEAR(p.u_rel, std::sqrt(110.24), 1e-9);
  auto r = recording_error(app, rec).value();
  EXPECT_NEAR(r.rel, 10, 1e-12);
  EXPECT_NEAR(r.u_rel, 0, 1e-12);
}

TEST(ErrorDecomposition, BadInputIsAReasonNotANan) {
  const std::vector<double> one = {1}, two = {1, 2}, three = {1, 2, 3}, bad = {1, NAN}, zero = {0, 1};
  EXPECT_NE(perturbation(one, 1, 0).error().find("n >= 2"), std::string::npos);
  EXPECT_NE(recording_error(two, three).error().find("2 application timings but 3"), std::string::npos);
  EXPECT_NE(perturbation(bad, 1, 0).error().find("application[1] is nan"), std::string::npos);
  EXPECT_NE(recording_error(two, bad).error().find("recording[1] is nan"), std::string::npos);
  EXPECT_NE(perturbation(two, 0, 0).error().find("not positive"), std::string::npos);
  EXPECT_NE(recording_error(zero, two).error().find("run 1 is not positive"), std::string::npos);
}

TEST(ErrorDecomposition, MatchesRArithmetic) {
  RASTRO_REQUIRE_R();
  std::mt19937_64 rng(13);
  std::normal_distribution<double> z(0, 1);
  std::vector<std::vector<double>> lines;
  std::vector<std::pair<ErrorComponent, ErrorComponent>> ours;
  for (int c = 0; c < 20; ++c) {
    const size_t n = 2 + rng() % 30;
    const double ref = 50 + 40 * std::fabs(z(rng)), u = ref * 0.01 * std::fabs(z(rng));
    std::vector<double> app, rec, line = {ref, u};
    for (size_t i = 0; i < n; ++i) app.push_back(ref * (2 + 0.1 * z(rng)));
    for (size_t i = 0; i < n; ++i) rec.push_back(app[i] * (0.3 + 0.02 * z(rng)));
    line.insert(line.end(), app.begin(), app.end());
    line.insert(line.end(), rec.begin(), rec.end());
    lines.push_back(line);
    ours.push_back({perturbation(app, ref, u).value(), recording_error(app, rec).value()});
  }
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  v <- as.numeric(strsplit(l, ' ')[[1]]); ref <- v[1]; u <- v[2]; n <- (length(v) - 2) / 2
  a <- v[3:(2 + n)]; d <- v[(3 + n):(2 + 2 * n)]
  p <- mean(a) / ref; r <- d / a * 100
  cat(f17(c((p - 1) * 100, 100 * p * sqrt((sd(a) / sqrt(n) / mean(a))^2 + (u / ref)^2), mean(r), sd(r) / sqrt(n))), '\n')
})", rastro::testing::vectors_text(lines));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), ours.size()) << out;
  for (size_t i = 0; i < ours.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(close_rel(ours[i].first.rel, rows[i][0], 1e-9));
    EXPECT_TRUE(close_rel(ours[i].first.u_rel, rows[i][1], 1e-9));
    EXPECT_TRUE(close_rel(ours[i].second.rel, rows[i][2], 1e-9));
    EXPECT_TRUE(close_rel(ours[i].second.u_rel, rows[i][3], 1e-9));
  }
}

}  // namespace
}  // namespace rastro::metrology
