#include "metrology/welch_t.h"

#include <cmath>

#include <fmt/format.h>

#include "metrology/descriptive.h"
#include "metrology/distributions.h"

namespace rastro::metrology {

Result<WelchTTest> welch_t_test(std::span<const double> x, std::span<const double> y,
                                double alpha) {
  if (!(alpha > 0 && alpha < 1)) return fail(fmt::format("alpha {} is not in (0, 1)", alpha));
  auto vx = sample_variance(x);
  if (!vx) return fail("first sample: " + vx.error());
  auto vy = sample_variance(y);
  if (!vy) return fail("second sample: " + vy.error());
  const double nx = static_cast<double>(x.size()), ny = static_cast<double>(y.size());
  const double sx = *vx / nx, sy = *vy / ny;
  const double se2 = sx + sy;
  WelchTTest r;
  r.alpha = alpha;
  r.difference = mean(x).take() - mean(y).take();
  // R's check: stderr < 10 · eps · max(|mx|, |my|) means the data are constant.
  const double se = std::sqrt(se2);
  if (se < 10 * 2.220446049250313e-16 * std::max(std::fabs(mean(x).take()), std::fabs(mean(y).take())))
    return fail("both samples are essentially constant: t undefined");
  r.t = r.difference / se;
  r.df = se2 * se2 / (sx * sx / (nx - 1) + sy * sy / (ny - 1));
  auto cdf = t_cdf(-std::fabs(r.t), r.df);
  if (!cdf) return fail(cdf.error());
  r.p_value = 2 * *cdf;
  auto q = t_quantile(1 - alpha / 2, r.df);
  if (!q) return fail(q.error());
  r.ci_low = r.difference - *q * se;
  r.ci_high = r.difference + *q * se;
  return r;
}

}  // namespace rastro::metrology
