#include "characterize/empirical_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "common/error.h"

namespace rastro::characterize {

double EmpiricalDistribution::cdf(double x) const {
  if (empty()) return 0.0;
  if (!atoms.empty()) {
    double p = 0.0;
    for (size_t i = 0; i < atoms.size() && atoms[i] <= x; ++i) p += weights[i];
    return std::min(1.0, p);
  }
  if (quantiles.empty() || x < quantiles.front()) return 0.0;
  if (x >= quantiles.back()) return 1.0;
  // Last quantile point <= x; ties (a flat CDF step) resolve to the highest probability.
  size_t i = static_cast<size_t>(std::upper_bound(quantiles.begin(), quantiles.end(), x) - quantiles.begin()) - 1;
  double span = quantiles[i + 1] - quantiles[i];
  double frac = span > 0 ? (x - quantiles[i]) / span : 0.0;
  return (static_cast<double>(i) + frac) / static_cast<double>(quantiles.size() - 1);
}

double EmpiricalDistribution::quantile(double p) const {
  if (empty()) return 0.0;
  if (!atoms.empty()) {
    double cumulative = 0.0;
    for (size_t i = 0; i < atoms.size(); ++i) {
      cumulative += weights[i];
      if (cumulative >= p - 1e-12) return atoms[i];
    }
    return atoms.back();
  }
  if (quantiles.size() == 1) return quantiles.front();
  double pos = std::clamp(p, 0.0, 1.0) * static_cast<double>(quantiles.size() - 1);
  size_t i = std::min(static_cast<size_t>(pos), quantiles.size() - 2);
  return quantiles[i] + (pos - static_cast<double>(i)) * (quantiles[i + 1] - quantiles[i]);
}

double EmpiricalDistribution::draw(std::mt19937_64& rng) const {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  return quantile(u(rng));
}

double EmpiricalDistribution::variance() const {
  if (empty()) return 0.0;
  double m = 0.0, m2 = 0.0;
  if (!atoms.empty()) {
    for (size_t i = 0; i < atoms.size(); ++i) {
      m += weights[i] * atoms[i];
      m2 += weights[i] * atoms[i] * atoms[i];
    }
  } else if (quantiles.size() == 1) {
    return 0.0;
  } else {
    const double step = 1.0 / static_cast<double>(quantiles.size() - 1);
    for (size_t i = 0; i + 1 < quantiles.size(); ++i) {
      double a = quantiles[i], b = quantiles[i + 1];
      m += step * (a + b) / 2;
      m2 += step * (a * a + a * b + b * b) / 3;  // E[X^2] of a uniform on [a, b]
    }
  }
  return std::max(0.0, m2 - m * m);
}

EmpiricalDistribution summarize(std::span<const double> sample, size_t max_atoms,
                                size_t quantile_points) {
  EmpiricalDistribution d;
  d.count = sample.size();
  if (sample.empty()) return d;
  std::vector<double> v(sample.begin(), sample.end());
  std::sort(v.begin(), v.end());
  d.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  std::vector<double> distinct;
  std::vector<double> counts;
  for (double x : v) {
    if (distinct.empty() || distinct.back() != x) {
      if (distinct.size() == max_atoms) {
        distinct.clear();
        break;
      }
      distinct.push_back(x);
      counts.push_back(0);
    }
    counts.back() += 1;
  }
  if (!distinct.empty()) {
    d.atoms = std::move(distinct);
    for (double c : counts) d.weights.push_back(c / static_cast<double>(v.size()));
    return d;
  }
  // Type-7 quantiles (R's default): linear interpolation between order statistics.
  size_t q = std::max<size_t>(2, quantile_points);
  for (size_t k = 0; k < q; ++k) {
    double h = static_cast<double>(v.size() - 1) * static_cast<double>(k) / static_cast<double>(q - 1);
    size_t lo = static_cast<size_t>(std::floor(h));
    size_t hi = std::min(lo + 1, v.size() - 1);
    d.quantiles.push_back(v[lo] + (h - static_cast<double>(lo)) * (v[hi] - v[lo]));
  }
  return d;
}

double ks_distance(const EmpiricalDistribution& a, const EmpiricalDistribution& b) {
  if (a.empty() && b.empty()) return 0.0;
  if (a.empty() || b.empty()) return 1.0;
  std::vector<double> points;
  for (const auto* d : {&a, &b}) {
    points.insert(points.end(), d->atoms.begin(), d->atoms.end());
    points.insert(points.end(), d->quantiles.begin(), d->quantiles.end());
  }
  double sup = 0.0;
  for (double x : points) {
    // Both the value at x and the left limit just below it: a step may jump at x.
    double below = std::nextafter(x, -std::numeric_limits<double>::infinity());
    sup = std::max({sup, std::abs(a.cdf(x) - b.cdf(x)), std::abs(a.cdf(below) - b.cdf(below))});
  }
  return sup;
}

nlohmann::json to_json(const EmpiricalDistribution& d) {
  nlohmann::json j = {{"count", d.count}, {"mean", d.mean}};
  if (!d.atoms.empty()) {
    j["atoms"] = d.atoms;
    j["weights"] = d.weights;
  } else if (!d.quantiles.empty()) {
    j["quantiles"] = d.quantiles;
  }
  return j;
}

EmpiricalDistribution distribution_from_json(const nlohmann::json& j, const std::string& where) {
  EmpiricalDistribution d;
  try {
    if (!j.is_object()) throw Error(fmt::format("{}: a distribution must be a JSON object", where));
    d.count = j.at("count").get<uint64_t>();
    d.mean = j.value("mean", 0.0);
    if (j.contains("atoms")) {
      d.atoms = j.at("atoms").get<std::vector<double>>();
      d.weights = j.at("weights").get<std::vector<double>>();
      if (d.atoms.size() != d.weights.size())
        throw Error(fmt::format("{}: \"atoms\" and \"weights\" differ in length", where));
      if (!std::is_sorted(d.atoms.begin(), d.atoms.end()))
        throw Error(fmt::format("{}: \"atoms\" must be ascending", where));
      for (double w : d.weights)
        if (!(w >= 0.0 && w <= 1.0)) throw Error(fmt::format("{}: a weight is outside [0, 1]", where));
    } else if (j.contains("quantiles")) {
      d.quantiles = j.at("quantiles").get<std::vector<double>>();
      if (d.quantiles.size() < 2 || !std::is_sorted(d.quantiles.begin(), d.quantiles.end()))
        throw Error(fmt::format("{}: \"quantiles\" must hold at least 2 ascending values", where));
    } else if (d.count > 0) {
      throw Error(fmt::format("{}: needs \"atoms\" + \"weights\" or \"quantiles\"", where));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: {}", where, e.what()));
  }
  return d;
}

}  // namespace rastro::characterize
