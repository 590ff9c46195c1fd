// Calibration curves (SPEC §6.2, thesis §4.2, §5.1.5): y measured = b0 + b1 · x reference.
//
//   single-point (zero error):  b1 = 1, b0 = ȳ − x̄ over replicates at one reference value;
//                               s = sqrt(Σ(y_i − x_i − b0)²/(n − 1)), df = n − 1
//   two-point (gain error):     the line through the replicate means at exactly two reference
//                               values (identical to least squares on those data)
//   linear (multi-point):       ordinary least squares over every (x_i, y_i), df = n − 2
//   s_y/x = sqrt(Σ(y_i − ŷ_i)²/df); se(b1) = s_y/x/sqrt(Sxx); se(b0) = s_y/x·sqrt(1/n + x̄²/Sxx);
//   R² = 1 − SSE/SST (undefined for single-point or constant y).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "calibration/validity_domain.h"
#include "common/error.h"

namespace rastro::calibration {

enum class CurveKind { kSinglePoint, kTwoPoint, kLinear };
std::string_view to_string(CurveKind k);
Result<CurveKind> parse_curve_kind(std::string_view s);  // "single", "two", "linear"

struct CalibrationPoint {
  double reference = 0;  // x
  double measured = 0;   // y
};

struct CalibrationCurve {
  CurveKind kind = CurveKind::kLinear;
  double b0 = 0;
  double b1 = 1;
  size_t n = 0;
  double df = 0;         // residual degrees of freedom (n − 1 single-point, else n − 2)
  double x_mean = 0;
  double y_mean = 0;
  double sxx = 0;        // Σ(x_i − x̄)²
  // Undefined (nullopt) when df = 0 (e.g. two points without replicates); reason in `note`.
  std::optional<double> s_yx;
  std::optional<double> se_b0;
  std::optional<double> se_b1;  // 0 for single-point (b1 fixed)
  std::optional<double> r2;
  std::string note;
  std::string unit = "us";  // unit of x and y
  ValidityDomain domain;    // range fitted on + environment + background level
};

// Fails with the reason on: n < 1 (single) / n < 2, NaN/inf, a single-point fit with more than
// one reference value, a two-point fit without exactly two reference values, a linear fit with
// all x equal (singular), or a slope |b1| so small the curve cannot be inverted.
Result<CalibrationCurve> fit_curve(std::span<const CalibrationPoint> points, CurveKind kind);

// The kind `fit_curve` would pick: one distinct reference value → single, else linear.
CurveKind default_kind(std::span<const CalibrationPoint> points);

// ŷ = b0 + b1·x.
inline double predict_measured(const CalibrationCurve& c, double x) { return c.b0 + c.b1 * x; }
// x = (y − b0)/b1 for one measured value (no interval; see inverse_prediction.h).
inline double correct(const CalibrationCurve& c, double y) { return (y - c.b0) / c.b1; }

// Why the curve cannot calibrate, or nullopt when it can. A curve corrects by inverting the gain
// b1, so the gain must be positive and, for a fitted line, significantly so:
// b1 / se(b1) > t(1 − α/2, df). Over a reference range too narrow for the scatter of the
// measurements (two load levels a few percent apart) a least-squares line can come out flat or
// even falling; its inverse then amplifies noise or reverses the order of the values, and the
// "uncertainty after calibration" it yields means nothing. Single-point curves (b1 fixed at 1)
// always can.
std::optional<std::string> calibration_obstacle(const CalibrationCurve& c, double alpha = 0.05);

// Confidence and prediction intervals of ŷ at x, as R's predict.lm(interval = ...).
struct BandPoint {
  double fit = 0;
  double conf_low = 0, conf_high = 0;  // mean response
  double pred_low = 0, pred_high = 0;  // a new observation
};
Result<BandPoint> prediction_band(const CalibrationCurve& c, double x, double alpha = 0.05);

}  // namespace rastro::calibration
