#include "characterize/systematic_choice.h"

#include <algorithm>
#include <numeric>

namespace rastro::characterize {

SystematicChoice::SystematicChoice(const std::vector<double>& shares, std::mt19937_64& rng) {
  const double total = std::accumulate(shares.begin(), shares.end(), 0.0);
  if (!(total > 0)) return;
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double s : shares) {
    share_.push_back(s > 0 ? s / total : 0.0);
    // Credits of the options taken stay above -1 (their sum stays in [0, k)), so an option
    // starting at -2 with share 0 is never the largest.
    credit_.push_back(s > 0 ? u(rng) : -2.0);
  }
}

size_t SystematicChoice::next() {
  for (size_t k = 0; k < share_.size(); ++k) credit_[k] += share_[k];
  const size_t k = static_cast<size_t>(std::max_element(credit_.begin(), credit_.end()) - credit_.begin());
  credit_[k] -= 1.0;
  return k;
}

}  // namespace rastro::characterize
