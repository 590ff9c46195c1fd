// Normal QQ-plot coordinates (thesis App. D–F), as R's qqnorm: the sorted sample against
// Φ⁻¹(p_i) with R's ppoints: p_i = (i − a)/(n + 1 − 2a), a = 3/8 for n <= 10, else 1/2.
#pragma once

#include <span>
#include <vector>

#include "common/error.h"

namespace rastro::metrology {

struct QqPoint {
  double theoretical = 0;  // standard normal quantile
  double sample = 0;       // i-th smallest value
};

// Fails on an empty sample or a NaN/inf value.
Result<std::vector<QqPoint>> qq_normal(std::span<const double> xs);

// R's ppoints(n).
std::vector<double> plotting_positions(size_t n);

}  // namespace rastro::metrology
