#include "calibration/inverse_prediction.h"

#include <cmath>

#include <fmt/format.h>

#include "metrology/descriptive.h"
#include "metrology/distributions.h"

namespace rastro::calibration {

Result<InversePrediction> inverse_predict(const CalibrationCurve& c,
                                          std::span<const double> measured, double alpha) {
  if (measured.empty()) return fail("inverse prediction needs at least one measured value");
  if (auto bad = metrology::check_finite(measured, "measured")) return fail(*bad);
  if (!(alpha > 0 && alpha < 1)) return fail(fmt::format("alpha {} is not in (0, 1)", alpha));
  if (c.b1 == 0 || !std::isfinite(c.b1)) return fail("curve slope b1 is 0: cannot invert");
  InversePrediction r;
  r.alpha = alpha;
  r.m = measured.size();
  r.y_mean = metrology::mean(measured).take();
  r.x_hat = (r.y_mean - c.b0) / c.b1;
  if (!c.s_yx || !(c.df > 0)) {
    r.note = "interval undefined: " + (c.note.empty() ? std::string("curve has no s_y/x") : c.note);
    return r;
  }
  auto t = metrology::t_quantile(1 - alpha / 2, c.df);
  if (!t) return fail(t.error());
  const double lever = c.kind == CurveKind::kSinglePoint || !(c.sxx > 0)
                           ? 0.0
                           : (r.x_hat - c.x_mean) * (r.x_hat - c.x_mean) / c.sxx;
  const double s = *c.s_yx / std::fabs(c.b1) *
                   std::sqrt(1 / static_cast<double>(r.m) + 1 / static_cast<double>(c.n) + lever);
  r.s_x_hat = s;
  r.t = *t;
  r.ci_low = r.x_hat - *t * s;
  r.ci_high = r.x_hat + *t * s;
  return r;
}

}  // namespace rastro::calibration
