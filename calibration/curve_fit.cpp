#include "calibration/curve_fit.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "metrology/descriptive.h"
#include "metrology/distributions.h"

namespace rastro::calibration {

std::string_view to_string(CurveKind k) {
  switch (k) {
    case CurveKind::kSinglePoint: return "single";
    case CurveKind::kTwoPoint: return "two";
    case CurveKind::kLinear: return "linear";
  }
  return "?";
}

Result<CurveKind> parse_curve_kind(std::string_view s) {
  if (s == "single") return CurveKind::kSinglePoint;
  if (s == "two") return CurveKind::kTwoPoint;
  if (s == "linear") return CurveKind::kLinear;
  return fail(fmt::format("unknown curve kind '{}' (single, two, linear)", s));
}

namespace {

size_t distinct_references(std::span<const CalibrationPoint> pts) {
  std::vector<double> xs;
  for (const auto& p : pts) xs.push_back(p.reference);
  std::sort(xs.begin(), xs.end());
  return static_cast<size_t>(std::unique(xs.begin(), xs.end()) - xs.begin());
}

// |b1| below this relative to the data's scale cannot be inverted meaningfully.
bool slope_too_small(double b1, double x_span, double y_scale) {
  return !(std::fabs(b1) * x_span > 1e-9 * std::max(y_scale, 1e-300));
}

}  // namespace

CurveKind default_kind(std::span<const CalibrationPoint> points) {
  return distinct_references(points) <= 1 ? CurveKind::kSinglePoint : CurveKind::kLinear;
}

Result<CalibrationCurve> fit_curve(std::span<const CalibrationPoint> pts, CurveKind kind) {
  CalibrationCurve c;
  c.kind = kind;
  c.n = pts.size();
  const size_t min_n = kind == CurveKind::kSinglePoint ? 1 : 2;
  if (c.n < min_n)
    return fail(fmt::format("{} calibration needs at least {} points, got {}", to_string(kind),
                            min_n, c.n));
  std::vector<double> xs, ys;
  for (size_t i = 0; i < pts.size(); ++i) {
    if (!std::isfinite(pts[i].reference) || !std::isfinite(pts[i].measured))
      return fail(fmt::format("calibration point {} has a non-finite value", i + 1));
    xs.push_back(pts[i].reference);
    ys.push_back(pts[i].measured);
  }
  const size_t levels = distinct_references(pts);
  c.x_mean = metrology::mean(xs).take();
  c.y_mean = metrology::mean(ys).take();
  c.sxx = metrology::sum_squared_deviations(xs, c.x_mean);
  const double syy = metrology::sum_squared_deviations(ys, c.y_mean);
  const auto [xmin, xmax] = std::minmax_element(xs.begin(), xs.end());
  c.domain.x_min = *xmin;
  c.domain.x_max = *xmax;
  double y_scale = 0;
  for (double y : ys) y_scale = std::max(y_scale, std::fabs(y));

  double sse = 0;
  if (kind == CurveKind::kSinglePoint) {
    if (levels != 1)
      return fail(fmt::format("single-point calibration needs one reference value, got {} "
                              "distinct values (use --kind linear)",
                              levels));
    c.b1 = 1;
    c.b0 = c.y_mean - c.x_mean;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double e = ys[i] - xs[i] - c.b0;
      sse += e * e;
    }
    c.df = static_cast<double>(c.n) - 1;
  } else {
    if (kind == CurveKind::kTwoPoint && levels != 2)
      return fail(fmt::format("two-point calibration needs exactly two reference values, got {}",
                              levels));
    if (levels < 2 || !(c.sxx > 0))
      return fail("all reference values are equal: the regression is singular (use --kind single)");
    double sxy = 0;
    for (size_t i = 0; i < xs.size(); ++i) sxy += (xs[i] - c.x_mean) * (ys[i] - c.y_mean);
    c.b1 = sxy / c.sxx;
    c.b0 = c.y_mean - c.b1 * c.x_mean;
    for (size_t i = 0; i < xs.size(); ++i) {
      const double e = ys[i] - (c.b0 + c.b1 * xs[i]);
      sse += e * e;
    }
    c.df = static_cast<double>(c.n) - 2;
    if (slope_too_small(c.b1, *xmax - *xmin, y_scale))
      return fail(fmt::format("slope b1 = {:.6g} is (nearly) zero: the measured value does not "
                              "depend on the reference, so the curve cannot be inverted",
                              c.b1));
    if (syy > 0) c.r2 = std::clamp(1 - sse / syy, 0.0, 1.0);
  }
  if (c.df > 0) {
    const double s = std::sqrt(sse / c.df);
    c.s_yx = s;
    const double n = static_cast<double>(c.n);
    if (kind == CurveKind::kSinglePoint) {
      c.se_b0 = s / std::sqrt(n);
      c.se_b1 = 0.0;
    } else {
      c.se_b1 = s / std::sqrt(c.sxx);
      c.se_b0 = s * std::sqrt(1 / n + c.x_mean * c.x_mean / c.sxx);
    }
  } else {
    c.note = fmt::format("{} points leave no residual degrees of freedom: s_y/x, standard errors "
                         "and intervals are undefined (add replicates)",
                         c.n);
  }
  if (kind == CurveKind::kSinglePoint && c.note.empty())
    c.note = "single-point curve: gain fixed at 1, R² undefined";
  else if (kind != CurveKind::kSinglePoint && !c.r2 && c.note.empty())
    c.note = "measured values are constant: R² undefined";
  return c;
}

Result<BandPoint> prediction_band(const CalibrationCurve& c, double x, double alpha) {
  if (!c.s_yx) return fail("curve has no s_y/x: " + c.note);
  if (!(alpha > 0 && alpha < 1)) return fail(fmt::format("alpha {} is not in (0, 1)", alpha));
  auto t = metrology::t_quantile(1 - alpha / 2, c.df);
  if (!t) return fail(t.error());
  const double n = static_cast<double>(c.n);
  const double lever =
      1 / n + (c.kind == CurveKind::kSinglePoint ? 0.0 : (x - c.x_mean) * (x - c.x_mean) / c.sxx);
  BandPoint b;
  b.fit = predict_measured(c, x);
  const double se_fit = *c.s_yx * std::sqrt(lever);
  const double se_pred = *c.s_yx * std::sqrt(1 + lever);
  b.conf_low = b.fit - *t * se_fit;
  b.conf_high = b.fit + *t * se_fit;
  b.pred_low = b.fit - *t * se_pred;
  b.pred_high = b.fit + *t * se_pred;
  return b;
}

std::optional<std::string> calibration_obstacle(const CalibrationCurve& c, double alpha) {
  if (c.kind == CurveKind::kSinglePoint) return std::nullopt;
  const std::string range = fmt::format("references {:.4g}–{:.4g} {}", c.domain.x_min, c.domain.x_max, c.unit);
  if (!(c.b1 > 0))
    return fmt::format("the curve cannot calibrate: its gain b1 = {:.3g} is not positive over {} (fit it over a wider "
                       "range of load levels)", c.b1, range);
  if (c.kind == CurveKind::kLinear && c.se_b1 && *c.se_b1 > 0 && c.df > 0) {
    auto t = metrology::t_quantile(1 - alpha / 2, c.df);
    if (t && c.b1 / *c.se_b1 < *t)
      return fmt::format("the curve cannot calibrate: its gain b1 = {:.3g} ± {:.3g} ({:g} % confidence) is not "
                         "significantly positive over {} (fit it over a wider range of load levels)",
                         c.b1, *t * *c.se_b1, 100 * (1 - alpha), range);
  }
  return std::nullopt;
}

}  // namespace rastro::calibration
