// Inverse prediction (SPEC §6.2, thesis eq. 4.1–4.2): the calibrated value for the mean ȳ0 of m
// replicate measurements,
//   x̂0 = (ȳ0 − b0)/b1,   x̂0 ± t(1 − α/2, df) · s_x̂0,
//   s_x̂0 = (s_y/x/|b1|) · sqrt(1/m + 1/n + (x̂0 − x̄)²/Σ(x_i − x̄)²)
// (the thesis prints a square root over s_y/x/b1: a typo). For a single-point curve the slope is
// fixed, so the last term is absent and df = n − 1.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "calibration/curve_fit.h"
#include "common/error.h"

namespace rastro::calibration {

struct InversePrediction {
  double x_hat = 0;
  size_t m = 0;
  double y_mean = 0;
  double alpha = 0.05;
  // Undefined (nullopt) when the curve has no s_y/x; the reason is in `note`.
  std::optional<double> s_x_hat;
  std::optional<double> t;
  std::optional<double> ci_low;
  std::optional<double> ci_high;
  std::string note;
};

// Fails on an empty or non-finite `measured`, alpha outside (0, 1), or b1 = 0.
Result<InversePrediction> inverse_predict(const CalibrationCurve& curve,
                                          std::span<const double> measured, double alpha = 0.05);

}  // namespace rastro::calibration
