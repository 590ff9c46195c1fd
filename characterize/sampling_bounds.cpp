#include "characterize/sampling_bounds.h"

#include <cmath>

namespace rastro::characterize {

namespace {
constexpr double kKsCritical005 = 1.358;
}

double ks_critical_distance(double n, double m) {
  return n > 0 && m > 0 ? kKsCritical005 * std::sqrt((n + m) / (n * m)) : 0.0;
}

double two_proportion_bound(double p1, double n1, double p2, double n2) {
  if (!(n1 >= 1 && n2 >= 1)) return 0.0;
  const double p = (p1 * n1 + p2 * n2) / (n1 + n2);
  return kZ975 * std::sqrt(p * (1 - p) * (1 / n1 + 1 / n2));
}

double count_ratio_bound(double t1, double t2) {
  return t1 > 0 && t2 > 0 ? kZ975 * std::sqrt(1 / t1 + 1 / t2) : 0.0;
}

}  // namespace rastro::characterize
