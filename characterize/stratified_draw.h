// Draws from a distribution one stratum at a time: `strata` strata of equal probability taken in
// turn (SystematicChoice), each draw a uniform point inside its stratum. n draws then follow the
// distribution's quantiles within about one draw per stratum, where free draws of a heavy tail
// do not: git's 43 object writes (mean 2.4 KB, the largest tens of KB) drawn freely moved 0.55
// to 1.4 times the traced bytes on seeds 1-5.
#pragma once

#include <cstddef>
#include <random>

#include "characterize/empirical_distribution.h"
#include "characterize/systematic_choice.h"

namespace rastro::characterize {

class StratifiedDraw {
 public:
  StratifiedDraw() = default;
  // An empty distribution draws 0.
  StratifiedDraw(const EmpiricalDistribution& d, size_t strata, std::mt19937_64& rng);
  double next(std::mt19937_64& rng);

 private:
  const EmpiricalDistribution* d_ = nullptr;
  size_t strata_ = 0;
  SystematicChoice choice_;
};

}  // namespace rastro::characterize
