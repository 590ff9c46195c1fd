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

// calibration_obstacle against R: a fitted line can calibrate exactly when R's summary(lm)
// gives a positive slope whose t value exceeds qt(1 - alpha/2, df). Cases mix gains that are
// clearly positive, flat and negative, over narrow reference ranges (two close levels, as a
// replay campaign's levels 1-2 give) and wide ones.
TEST(CalibrationObstacle, AgreesWithRsSlopeTest) {
  RASTRO_REQUIRE_R();
  std::mt19937_64 rng(7);
  std::vector<std::vector<CalibrationPoint>> cases;
  std::vector<std::vector<double>> lines;
  for (int c = 0; c < 60; ++c) {
    const double b1 = std::vector<double>{-0.6, 0.0, 0.2, 1.0, 1.4}[rng() % 5];
    const double x0 = std::uniform_real_distribution<double>(2, 100)(rng);
    const double width = (rng() % 2) ? 0.06 * x0 : 3 * x0;  // two close levels, or a wide range
    const double noise = std::exp(std::uniform_real_distribution<double>(-3, 1)(rng)) * x0 / 10;
    std::normal_distribution<double> z(0, noise);
    std::vector<CalibrationPoint> pts;
    for (int level = 0; level < 2 + static_cast<int>(rng() % 3); ++level)
      for (int rep = 0; rep < 10; ++rep) {
        const double x = x0 + width * level;
        pts.push_back({x, 1 + b1 * x + z(rng)});
      }
    std::vector<double> line;
    for (auto& p : pts) line.push_back(p.reference);
    for (auto& p : pts) line.push_back(p.measured);
    cases.push_back(pts);
    lines.push_back(line);
  }
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  a <- as.numeric(strsplit(l, ' ')[[1]]); n <- length(a) / 2
  x <- a[1:n]; y <- a[(n + 1):(2 * n)]
  s <- summary(lm(y ~ x))
  cat(as.integer(s$coefficients[2, 1] > 0 && s$coefficients[2, 3] > qt(0.975, s$df[2])), '
')
})", rastro::testing::vectors_text(lines));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), cases.size()) << out;
  int usable = 0, not_usable = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    auto c = fit_curve(cases[i], CurveKind::kLinear);
    ASSERT_TRUE(c.ok()) << c.error();
    const bool r_usable = rows[i].at(0) == 1;
    const auto why = calibration_obstacle(*c);
    EXPECT_EQ(!why.has_value(), r_usable) << (why ? *why : "no obstacle") << " b1=" << c->b1;
    (r_usable ? usable : not_usable)++;
  }
  EXPECT_GT(usable, 10);  // both verdicts are exercised
  EXPECT_GT(not_usable, 10);
}

TEST(CalibrationObstacle, NegativeOrFlatGainIsRefusedWithTheReason) {
  // Two levels 6 % apart, measured values falling: the replay campaign's situation in the demo.
  std::vector<CalibrationPoint> pts;
  for (int r = 0; r < 10; ++r) {
    pts.push_back({3.399, 4.9 + 0.05 * (r % 3)});
    pts.push_back({3.607, 3.6 + 0.05 * (r % 3)});
  }
  auto c = fit_curve(pts, CurveKind::kLinear).value();
  ASSERT_LT(c.b1, 0);
  auto why = calibration_obstacle(c);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("not positive"), std::string::npos) << *why;
  EXPECT_NE(why->find("3.399"), std::string::npos) << *why;  // names the range fitted on
  auto single = fit_curve({{{5, 6}, {5, 6.2}}}, CurveKind::kSinglePoint).value();
  EXPECT_FALSE(calibration_obstacle(single));  // gain fixed at 1
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
