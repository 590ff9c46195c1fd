#include "calibration/inverse_prediction.h"

#include <cmath>
#include <functional>
#include <random>

#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"

namespace rastro::calibration {
namespace {

using rastro::testing::close_rel;

TEST(InversePrediction, MatchesSpecFormulaEvaluatedInR) {
  RASTRO_REQUIRE_R();
  std::mt19937_64 rng(101);
  std::vector<std::vector<double>> lines;
  std::vector<std::pair<CalibrationCurve, std::vector<double>>> cases;
  for (int c = 0; c < 40; ++c) {
    std::normal_distribution<double> z(0, 0.5 + c % 5);
    const size_t levels = 3 + rng() % 5, reps = 1 + rng() % 4, m = 1 + rng() % 5;
    std::vector<CalibrationPoint> pts;
    for (size_t l = 0; l < levels; ++l)
      for (size_t r = 0; r < reps; ++r) pts.push_back({10.0 * (l + 1), 3 + 1.3 * 10.0 * (l + 1) + z(rng)});
    std::vector<double> y0(m);
    for (auto& y : y0) y = 3 + 1.3 * 27 + z(rng);
    std::vector<double> line{static_cast<double>(pts.size()), static_cast<double>(m)};
    for (auto& p : pts) line.push_back(p.reference);
    for (auto& p : pts) line.push_back(p.measured);
    line.insert(line.end(), y0.begin(), y0.end());
    lines.push_back(line);
    cases.push_back({fit_curve(pts, CurveKind::kLinear).value(), y0});
  }
  const auto out = rastro::testing::run_r(R"(
for (l in readLines(DATA)) {
  a <- as.numeric(strsplit(l, ' ')[[1]]); n <- a[1]; m <- a[2]
  x <- a[3:(2 + n)]; y <- a[(3 + n):(2 + 2 * n)]; y0 <- a[(3 + 2 * n):length(a)]
  fit <- lm(y ~ x); b <- coef(fit); s <- summary(fit)$sigma
  xh <- (mean(y0) - b[1]) / b[2]
  sx <- s / abs(b[2]) * sqrt(1 / m + 1 / n + (xh - mean(x))^2 / sum((x - mean(x))^2))
  t <- qt(0.975, n - 2)
  cat(f17(c(xh, sx, xh - t * sx, xh + t * sx)), '\n')
})", rastro::testing::vectors_text(lines));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), cases.size()) << out;
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(i);
    auto p = inverse_predict(cases[i].first, cases[i].second).value();
    EXPECT_TRUE(close_rel(p.x_hat, rows[i][0], 1e-9));
    EXPECT_TRUE(close_rel(*p.s_x_hat, rows[i][1], 1e-9));
    EXPECT_TRUE(close_rel(*p.ci_low, rows[i][2], 1e-9));
    EXPECT_TRUE(close_rel(*p.ci_high, rows[i][3], 1e-9));
  }
}

// A synthetic instrument: measured = f(reference) + N(0, sigma).
struct Instrument {
  const char* name;
  std::function<double(double)> f;
  CurveKind kind;
  std::vector<double> levels;
  double lo, hi;  // nominal coverage bounds checked over the trials
};

// Calibrated values must contain the true reference at about the stated rate (1 − α = 0.95).
// 3000 trials: the binomial sd of the rate is 0.004, so the bounds below can fail.
TEST(InversePrediction, RoundTripCoverageOverManySeeds) {
  const std::vector<Instrument> instruments = {
      {"zero error", [](double x) { return x + 7.5; }, CurveKind::kSinglePoint, {40}, 0.935, 0.965},
      {"gain error", [](double x) { return 2 + 1.25 * x; }, CurveKind::kLinear, {10, 30, 50, 70, 90}, 0.935, 0.965},
      {"two-point gain", [](double x) { return 0.8 * x - 1; }, CurveKind::kTwoPoint, {20, 80}, 0.935, 0.965},
      // Mild curvature: the straight line's lack of fit is absorbed by s_y/x, coverage stays near.
      {"non-linear", [](double x) { return 1 + x + 0.0004 * x * x; }, CurveKind::kLinear, {10, 30, 50, 70, 90}, 0.90, 0.985},
  };
  for (const auto& ins : instruments) {
    SCOPED_TRACE(ins.name);
    size_t covered = 0, trials = 0;
    double worst_err = 0;
    for (uint64_t seed = 0; seed < 3000; ++seed) {
      std::mt19937_64 rng(seed * 7919 + 13);
      std::normal_distribution<double> noise(0, 1.0);
      std::vector<CalibrationPoint> pts;
      for (double x : ins.levels)
        for (int r = 0; r < 4; ++r) pts.push_back({x, ins.f(x) + noise(rng)});
      auto curve = fit_curve(pts, ins.kind).value();
      const double x0 = ins.kind == CurveKind::kSinglePoint
                            ? ins.levels[0]
                            : std::uniform_real_distribution<double>(ins.levels.front(), ins.levels.back())(rng);
      std::vector<double> y0(3);
      for (auto& y : y0) y = ins.f(x0) + noise(rng);
      auto p = inverse_predict(curve, y0).value();
      ASSERT_TRUE(p.ci_low && p.ci_high);
      ++trials;
      if (*p.ci_low <= x0 && x0 <= *p.ci_high) ++covered;
      worst_err = std::max(worst_err, std::fabs(p.x_hat - x0));
    }
    const double rate = static_cast<double>(covered) / static_cast<double>(trials);
    std::printf("%s: coverage %.4f over %zu trials, worst |x_hat - x0| %.3f\n", ins.name, rate, trials, worst_err);
    EXPECT_GE(rate, ins.lo) << ins.name;
    EXPECT_LE(rate, ins.hi) << ins.name;
    EXPECT_LT(worst_err, 10.0);  // the correction really removes the error (raw error up to 40)
  }
}

TEST(InversePrediction, UndefinedIntervalIsExplained) {
  auto curve = fit_curve(std::vector<CalibrationPoint>{{10, 22}, {100, 202}}, CurveKind::kTwoPoint).value();
  auto p = inverse_predict(curve, std::vector<double>{102}).value();
  EXPECT_NEAR(p.x_hat, 50, 1e-9);
  EXPECT_FALSE(p.ci_low.has_value());
  EXPECT_NE(p.note.find("undefined"), std::string::npos);
  EXPECT_FALSE(inverse_predict(curve, std::vector<double>{}).ok());
  EXPECT_FALSE(inverse_predict(curve, std::vector<double>{NAN}).ok());
  EXPECT_FALSE(inverse_predict(curve, std::vector<double>{1}, 1.5).ok());
  curve.b1 = 0;
  EXPECT_FALSE(inverse_predict(curve, std::vector<double>{1}).ok());
}

}  // namespace
}  // namespace rastro::calibration
