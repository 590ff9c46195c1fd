#include "metrology/bias_significance.h"

#include <cmath>

namespace rastro::metrology {

BiasSignificance bias_significance(double mean, double reference_mean, double sd, size_t n,
                                   double u_cref) {
  BiasSignificance r;
  r.difference = std::fabs(mean - reference_mean);
  r.threshold = 2 * std::sqrt(sd * sd / static_cast<double>(n) + u_cref * u_cref);
  r.significant = r.difference > r.threshold;
  return r;
}

}  // namespace rastro::metrology
