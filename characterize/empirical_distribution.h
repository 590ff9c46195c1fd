// A compact empirical distribution: the exact atoms when a sample has few distinct values
// (request sizes are mostly 4096, 65536, ...), else quantiles (piecewise-linear inverse CDF).
// It is what the model stores for every distribution feature, what the synthesizer draws from,
// and what the validation compares (two-sample Kolmogorov-Smirnov distance).
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace rastro::characterize {

struct EmpiricalDistribution {
  uint64_t count = 0;           // sample size it was built from
  std::vector<double> atoms;    // distinct values, ascending (discrete form) ...
  std::vector<double> weights;  // ... and their probabilities
  std::vector<double> quantiles;  // or: values at probabilities 0, 1/(q-1), ..., 1
  double mean = 0.0;

  bool empty() const { return count == 0; }
  // P(X <= x).
  double cdf(double x) const;
  // The inverse CDF at p in [0, 1] (atoms: the smallest with P(X <= atom) >= p).
  double quantile(double p) const;
  double draw(std::mt19937_64& rng) const;
  // The variance of a draw: exact for atoms; for quantiles, of the piecewise-linear inverse CDF
  // (midpoints of the quantile steps, each with its probability).
  double variance() const;
};

// At most `max_atoms` distinct values are kept exactly; otherwise `quantile_points` quantiles.
EmpiricalDistribution summarize(std::span<const double> sample, size_t max_atoms = 32,
                                size_t quantile_points = 65);

// sup_x |F(x) - G(x)|, evaluated at every atom/quantile of both (exact for two discrete forms).
double ks_distance(const EmpiricalDistribution& a, const EmpiricalDistribution& b);

nlohmann::json to_json(const EmpiricalDistribution& d);
// Throws rastro::Error naming `where` and the bad key.
EmpiricalDistribution distribution_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace rastro::characterize
