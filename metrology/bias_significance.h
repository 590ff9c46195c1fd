// Is the bias significant, i.e. should the instrument be calibrated? (SPEC §6.1, Eurachem)
//   significant when |x̄ − ref| > 2 · sqrt(u(R_w)² / n + u(C_ref)²)
#pragma once

#include <cstddef>

namespace rastro::metrology {

struct BiasSignificance {
  double difference = 0;  // |x̄ − ref|
  double threshold = 0;   // 2 · sqrt(sd²/n + u_cref²)
  bool significant = false;
};

// `sd` is u(R_w), `u_cref` the absolute reference uncertainty; n >= 1.
BiasSignificance bias_significance(double mean, double reference_mean, double sd, size_t n,
                                   double u_cref);

}  // namespace rastro::metrology
