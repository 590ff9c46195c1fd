// Whole numbers in given proportions that sum exactly to a total (Hamilton's largest-remainder
// rule): threads per class, percentages of a request-size mix, sessions of each kind in a cycle.
#pragma once

#include <cstdint>
#include <vector>

namespace rastro::characterize {

// shares[i] * total rounded down, then the units still missing given one each to the largest
// remainders (ties: the earlier share), round after round when the shares sum to less than 1.
// Empty shares give an empty result.
std::vector<uint64_t> largest_remainder(const std::vector<double>& shares, uint64_t total);

}  // namespace rastro::characterize
