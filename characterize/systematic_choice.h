// Choices among options in given shares, made in turn rather than drawn one by one (smooth
// weighted round robin: each choice adds every option's share to its credit and takes the
// option with the most, which then pays 1). After n choices each option was taken within one of
// share * n times, so a short synthetic thread makes its session kinds and reads its files as
// often as the model says: drawn freely, git's 24 writing sessions came out 16 to 31 and its
// whole reads 1.3 to 1.6 times the traced bytes. Random starting credits make the order random.
#pragma once

#include <cstddef>
#include <random>
#include <vector>

namespace rastro::characterize {

class SystematicChoice {
 public:
  SystematicChoice() = default;
  // Shares need not sum to 1 (they are normalised); options with share 0 are never taken.
  // All-zero or empty shares: empty() and next() must not be called.
  SystematicChoice(const std::vector<double>& shares, std::mt19937_64& rng);
  bool empty() const { return share_.empty(); }
  size_t next();

 private:
  std::vector<double> share_, credit_;
};

}  // namespace rastro::characterize
