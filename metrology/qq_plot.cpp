#include "metrology/qq_plot.h"

#include <algorithm>

#include "metrology/descriptive.h"
#include "metrology/distributions.h"

namespace rastro::metrology {

std::vector<double> plotting_positions(size_t n) {
  const double a = n <= 10 ? 3.0 / 8 : 0.5;
  std::vector<double> p(n);
  for (size_t i = 0; i < n; ++i)
    p[i] = (static_cast<double>(i + 1) - a) / (static_cast<double>(n) + 1 - 2 * a);
  return p;
}

Result<std::vector<QqPoint>> qq_normal(std::span<const double> xs) {
  if (xs.empty()) return fail("QQ-plot of an empty sample");
  if (auto bad = check_finite(xs, "sample")) return fail(*bad);
  std::vector<double> sorted(xs.begin(), xs.end());
  std::sort(sorted.begin(), sorted.end());
  const std::vector<double> p = plotting_positions(sorted.size());
  std::vector<QqPoint> out(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) out[i] = {normal_quantile(p[i]), sorted[i]};
  return out;
}

}  // namespace rastro::metrology
