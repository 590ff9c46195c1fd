#include "metrology/descriptive.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace rastro::metrology {

std::optional<std::string> check_finite(std::span<const double> xs, std::string_view what) {
  for (size_t i = 0; i < xs.size(); ++i) {
    if (!std::isfinite(xs[i])) return fmt::format("{}[{}] is {}", what, i, xs[i]);
  }
  return std::nullopt;
}

double sum_squared_deviations(std::span<const double> xs, double centre) {
  double s = 0, c = 0;
  for (double x : xs) {
    s += (x - centre) * (x - centre);
    c += x - centre;
  }
  // Corrected two-pass formula (Chan, Golub & LeVeque): removes the rounding left in `centre`.
  return s - c * c / static_cast<double>(xs.size());
}

Result<double> mean(std::span<const double> xs) {
  if (xs.empty()) return fail("mean of an empty sample");
  if (auto bad = check_finite(xs, "sample")) return fail(*bad);
  const auto n = static_cast<long double>(xs.size());
  long double s = 0;
  for (double x : xs) s += x;
  s /= n;
  // Second pass as R's mean does: add the mean residual to reduce rounding error.
  long double r = 0;
  for (double x : xs) r += x - s;
  return static_cast<double>(s + r / n);
}

Result<double> sample_variance(std::span<const double> xs) {
  if (xs.size() < 2) return fail(fmt::format("variance needs n >= 2 values, got {}", xs.size()));
  auto m = mean(xs);
  if (!m) return fail(m.error());
  return sum_squared_deviations(xs, *m) / static_cast<double>(xs.size() - 1);
}

Result<double> sample_sd(std::span<const double> xs) {
  auto v = sample_variance(xs);
  if (!v) return fail(v.error());
  return std::sqrt(std::max(0.0, *v));
}

Result<double> median(std::span<const double> xs) {
  if (xs.empty()) return fail("median of an empty sample");
  if (auto bad = check_finite(xs, "sample")) return fail(*bad);
  std::vector<double> v(xs.begin(), xs.end());
  std::sort(v.begin(), v.end());
  size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

Result<double> mad(std::span<const double> xs) {
  auto med = median(xs);
  if (!med) return fail(med.error());
  std::vector<double> dev;
  dev.reserve(xs.size());
  for (double x : xs) dev.push_back(std::fabs(x - *med));
  auto m = median(dev);
  if (!m) return fail(m.error());
  return 1.4826 * *m;
}

}  // namespace rastro::metrology
