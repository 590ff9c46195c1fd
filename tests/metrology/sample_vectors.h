// Test helper: seeded random and edge-case samples shared by the R-oracle tests.
#pragma once

#include <cmath>
#include <random>
#include <vector>

namespace rastro::testing {

// `count` random samples (sizes from `min_n` up to `max_n`) from several shapes, followed by edge
// cases: tiny n, huge offsets with small spread, tiny scales, ties, heavy tails, one outlier.
inline std::vector<std::vector<double>> sample_vectors(uint64_t seed, size_t count, size_t min_n,
                                                       size_t max_n) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> size(min_n, max_n);
  std::vector<std::vector<double>> out;
  for (size_t k = 0; k < count; ++k) {
    const size_t n = size(rng);
    std::vector<double> v(n);
    const double loc = std::uniform_real_distribution<double>(-100, 1000)(rng);
    const double scale = std::exp(std::uniform_real_distribution<double>(-5, 5)(rng));
    std::normal_distribution<double> normal(loc, scale);
    std::exponential_distribution<double> expo(1 / scale);
    std::lognormal_distribution<double> lognormal(0, 1);
    std::uniform_real_distribution<double> uniform(loc, loc + scale);
    for (auto& x : v) {
      switch (k % 4) {
        case 0: x = normal(rng); break;
        case 1: x = loc + expo(rng); break;
        case 2: x = lognormal(rng) * scale; break;
        default: x = uniform(rng); break;
      }
    }
    out.push_back(v);
  }
  std::normal_distribution<double> z(0, 1);
  auto make = [&](size_t n, double loc, double scale) {
    std::vector<double> v(n);
    for (auto& x : v) x = loc + scale * z(rng);
    return v;
  };
  for (size_t n : {size_t{3}, size_t{4}, size_t{5}, size_t{6}, size_t{11}, size_t{12}})
    if (n >= min_n && n <= max_n) out.push_back(make(n, 10, 1));
  if (max_n >= 50) out.push_back(make(50, 1e6, 1e-3));   // large offset, small spread
  if (max_n >= 20) out.push_back(make(20, 1e-9, 1e-12)); // tiny scale
  if (max_n >= 30) {
    auto v = make(30, 100, 5);
    for (auto& x : v) x = std::round(x);  // ties
    out.push_back(v);
    auto w = make(30, 100, 5);
    w[7] = 400;  // one gross outlier
    out.push_back(w);
  }
  if (max_n >= 1000) {
    std::student_t_distribution<double> t(2);
    std::vector<double> v(1000);
    for (auto& x : v) x = t(rng);  // heavy tails
    out.push_back(v);
  }
  return out;
}

}  // namespace rastro::testing
