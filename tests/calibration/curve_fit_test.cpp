#include "calibration/curve_fit.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"

namespace rastro::calibration {
namespace {

using rastro::testing::close_rel;

// Synthetic calibration data: `levels` reference values, `reps` replicates each.
std::vector<CalibrationPoint> synthetic(std::mt19937_64& rng, size_t levels, size_t reps,
                                        double b0, double b1, double noise) {
  std::normal_distribution<double> z(0, noise);
  std::uniform_real_distribution<double> ref(1, 500);
  std::vector<CalibrationPoint> pts;
  for (size_t l = 0; l < levels; ++l) {
    const double x = ref(rng);
    for (size_t r = 0; r < reps; ++r) pts.push_back({x, b0 + b1 * x + z(rng)});
  }
  return pts;
}

TEST(CurveFit, LinearMatchesRLmAndPredict) {
  RASTRO_REQUIRE_R();
  std::mt19937_64 rng(91);
  std::vector<std::vector<CalibrationPoint>> cases;
  std::vector<std::vector<double>> lines;
  for (int c = 0; c < 40; ++c) {
    const size_t levels = 2 + rng() % 8, reps = 1 + rng() % 6;
    if (levels * reps < 3) continue;
    auto pts = synthetic(rng, levels, reps, std::uniform_real_distribution<double>(-5, 20)(rng),
                         std::uniform_real_distribution<double>(0.5, 3)(rng),
                         std::exp(std::uniform_real_distribution<double>(-4, 3)(rng)));
    std::vector<double> line;
    for (auto& p : pts) line.push_back(p.reference);
    for (auto& p : pts) line.push_back(p.measured);
    line.push_back(pts[0].reference * 0.7 + 3);  // a new x for predict()
    cases.push_back(pts);
    lines.push_back(line);
  }
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  a <- as.numeric(strsplit(l, ' ')[[1]]); n <- (length(a) - 1) / 2
  x <- a[1:n]; y <- a[(n + 1):(2 * n)]; x0 <- a[length(a)]
  m <- lm(y ~ x); s <- summary(m)
  pc <- predict(m, data.frame(x = x0), interval = 'confidence')
  pp <- predict(m, data.frame(x = x0), interval = 'prediction')
  cat(f17(c(coef(m), s$sigma, s$coefficients[, 2], s$r.squared, pc, pp[2:3])), '\n')
})", rastro::testing::vectors_text(lines));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), cases.size()) << out;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    auto c = fit_curve(cases[i], CurveKind::kLinear).value();
    const auto& r = rows[i];
    EXPECT_TRUE(close_rel(c.b0, r[0], 1e-9, 1e-9 * std::fabs(c.y_mean)));
    EXPECT_TRUE(close_rel(c.b1, r[1], 1e-9));
    EXPECT_TRUE(close_rel(*c.s_yx, r[2], 1e-9));
    EXPECT_TRUE(close_rel(*c.se_b0, r[3], 1e-9));
    EXPECT_TRUE(close_rel(*c.se_b1, r[4], 1e-9));
    EXPECT_TRUE(close_rel(*c.r2, r[5], 1e-9));
    auto b = prediction_band(c, lines[i].back()).value();
    EXPECT_TRUE(close_rel(b.fit, r[6], 1e-9));
    EXPECT_TRUE(close_rel(b.conf_low, r[7], 1e-9));
    EXPECT_TRUE(close_rel(b.conf_high, r[8], 1e-9));
    EXPECT_TRUE(close_rel(b.pred_low, r[9], 1e-9));
    EXPECT_TRUE(close_rel(b.pred_high, r[10], 1e-9));
  }
}

TEST(CurveFit, SinglePointIsAnOffset) {
  std::vector<CalibrationPoint> pts{{10, 12.1}, {10, 11.9}, {10, 12.3}, {10, 11.7}};
  auto c = fit_curve(pts, default_kind(pts)).value();
  EXPECT_EQ(c.kind, CurveKind::kSinglePoint);
  EXPECT_DOUBLE_EQ(c.b1, 1);
  EXPECT_NEAR(c.b0, 2.0, 1e-12);
  EXPECT_NEAR(*c.s_yx, std::sqrt((0.01 + 0.01 + 0.09 + 0.09) / 3), 1e-12);
  EXPECT_FALSE(c.r2.has_value());
  EXPECT_NEAR(correct(c, 15), 13, 1e-12);
}

TEST(CurveFit, TwoPointIsTheLineThroughTheMeans) {
  std::vector<CalibrationPoint> pts{{10, 21}, {10, 23}, {100, 201}, {100, 203}};
  auto c = fit_curve(pts, CurveKind::kTwoPoint).value();
  EXPECT_NEAR(c.b1, 2, 1e-12);
  EXPECT_NEAR(c.b0, 2, 1e-10);
  // Without replicates there are no residual degrees of freedom: s_y/x is undefined, not NaN.
  std::vector<CalibrationPoint> bare{{10, 22}, {100, 202}};
  auto b = fit_curve(bare, CurveKind::kTwoPoint).value();
  EXPECT_FALSE(b.s_yx.has_value());
  EXPECT_NE(b.note.find("degrees of freedom"), std::string::npos);
  EXPECT_FALSE(prediction_band(b, 50).ok());
  EXPECT_FALSE(fit_curve(std::vector<CalibrationPoint>{{1, 1}, {2, 2}, {3, 3}}, CurveKind::kTwoPoint).ok());
}

TEST(CurveFit, BadInputFailsWithAReason) {
  auto singular = fit_curve(std::vector<CalibrationPoint>{{5, 1}, {5, 2}, {5, 3}}, CurveKind::kLinear);
  ASSERT_FALSE(singular.ok());
  EXPECT_NE(singular.error().find("singular"), std::string::npos);
  auto flat = fit_curve(std::vector<CalibrationPoint>{{1, 7}, {2, 7}, {3, 7}}, CurveKind::kLinear);
  ASSERT_FALSE(flat.ok());
  EXPECT_NE(flat.error().find("cannot be inverted"), std::string::npos);
  EXPECT_FALSE(fit_curve(std::vector<CalibrationPoint>{{1, 1}}, CurveKind::kLinear).ok());
  EXPECT_FALSE(fit_curve(std::vector<CalibrationPoint>{}, CurveKind::kSinglePoint).ok());
  EXPECT_FALSE(fit_curve(std::vector<CalibrationPoint>{{1, NAN}, {2, 2}}, CurveKind::kLinear).ok());
  EXPECT_FALSE(fit_curve(std::vector<CalibrationPoint>{{1, 1}, {2, 2}}, CurveKind::kSinglePoint).ok());
  EXPECT_FALSE(parse_curve_kind("quadratic").ok());
}

}  // namespace
}  // namespace rastro::calibration
