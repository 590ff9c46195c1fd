#include "characterize/stratified_draw.h"

#include <algorithm>
#include <vector>

namespace rastro::characterize {

StratifiedDraw::StratifiedDraw(const EmpiricalDistribution& d, size_t strata, std::mt19937_64& rng)
    : d_(&d), strata_(std::max<size_t>(1, strata)), choice_(std::vector<double>(strata_, 1.0), rng) {}

double StratifiedDraw::next(std::mt19937_64& rng) {
  if (!d_ || d_->empty()) return 0.0;
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  return d_->quantile((static_cast<double>(choice_.next()) + u) / static_cast<double>(strata_));
}

}  // namespace rastro::characterize
