#include "characterize/largest_remainder.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace rastro::characterize {

std::vector<uint64_t> largest_remainder(const std::vector<double>& shares, uint64_t total) {
  std::vector<uint64_t> out(shares.size());
  if (shares.empty()) return out;
  std::vector<std::pair<double, size_t>> rest;
  uint64_t given = 0;
  for (size_t i = 0; i < shares.size(); ++i) {
    double exact = std::max(0.0, shares[i]) * static_cast<double>(total);
    out[i] = static_cast<uint64_t>(std::floor(exact));
    given += out[i];
    rest.push_back({exact - std::floor(exact), i});
  }
  std::stable_sort(rest.begin(), rest.end(), [](auto a, auto b) { return a.first > b.first; });
  for (size_t r = 0; given < total; ++given, r = (r + 1) % rest.size()) ++out[rest[r].second];
  return out;
}

}  // namespace rastro::characterize
