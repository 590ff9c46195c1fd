#include "metrology/uncertainty.h"

#include <cmath>
#include <utility>
#include <vector>

#include <boost/math/distributions/normal.hpp>
#include <fmt/format.h>

#include "metrology/descriptive.h"

namespace rastro::metrology {

const char* dominant_component(const UncertaintyBudget& b) {
  const std::pair<double, const char*> parts[] = {
      {b.precision_rel, "precision"}, {b.rms_bias_rel, "bias"}, {b.u_cref_rel, "reference"}, {b.u_clock_rel, "clock"}};
  const auto* best = &parts[0];
  for (const auto& p : parts)
    if (p.first > best->first) best = &p;
  return best->second;
}

double combine(double a, double b) { return std::hypot(a, b); }

double uniform_type_b(double half_width) { return half_width / std::sqrt(3.0); }

double coverage_probability(int k) {
  boost::math::normal n;
  return 1 - 2 * boost::math::cdf(n, -static_cast<double>(k));
}

Result<UncertaintyBudget> uncertainty_budget(std::span<const Replicate> reps) {
  UncertaintyBudget b;
  b.n = reps.size();
  if (b.n < 2) return fail(fmt::format("uncertainty needs n >= 2 replicates, got {}", b.n));
  std::vector<double> x, ref;
  double sum_bias2 = 0, sum_rbias2 = 0, sum_u2 = 0, sum_ru2 = 0, sum_clock2 = 0, sum_rclock2 = 0;
  for (size_t i = 0; i < reps.size(); ++i) {
    const Replicate& r = reps[i];
    if (!std::isfinite(r.measured) || !std::isfinite(r.reference) || !std::isfinite(r.reference_u) ||
        !std::isfinite(r.clock_u))
      return fail(fmt::format("replicate {} has a non-finite value", i + 1));
    if (r.reference <= 0)
      return fail(fmt::format("replicate {}: reference {} is not positive (relative bias undefined)",
                              i + 1, r.reference));
    if (r.reference_u < 0)
      return fail(fmt::format("replicate {}: reference uncertainty {} is negative", i + 1,
                              r.reference_u));
    if (r.clock_u < 0) return fail(fmt::format("replicate {}: clock uncertainty {} is negative", i + 1, r.clock_u));
    x.push_back(r.measured);
    ref.push_back(r.reference);
    const double d = r.measured - r.reference;
    const double rel = d / r.reference * 100;
    const double urel = r.reference_u / r.reference * 100;
    sum_bias2 += d * d;
    sum_rbias2 += rel * rel;
    sum_u2 += r.reference_u * r.reference_u;
    sum_ru2 += urel * urel;
    sum_clock2 += r.clock_u * r.clock_u;
    if (r.measured != 0) sum_rclock2 += std::pow(r.clock_u / r.measured * 100, 2);
  }
  const double n = static_cast<double>(b.n);
  b.mean = mean(x).take();
  b.reference_mean = mean(ref).take();
  b.sd = sample_sd(x).take();
  if (b.mean == 0) return fail("measured mean is 0: relative precision undefined");
  b.bias = b.mean - b.reference_mean;
  b.rms_bias = std::sqrt(sum_bias2 / n);
  b.u_cref = std::sqrt(sum_u2 / n);
  b.u_bias = combine(b.rms_bias, b.u_cref);
  b.u_clock = std::sqrt(sum_clock2 / n);
  b.uc = combine(combine(b.sd, b.u_bias), b.u_clock);
  b.U = expanded(b.uc, 2);
  b.precision_rel = b.sd / std::fabs(b.mean) * 100;
  b.bias_rel = b.bias / b.reference_mean * 100;
  b.rms_bias_rel = std::sqrt(sum_rbias2 / n);
  b.u_cref_rel = std::sqrt(sum_ru2 / n);
  b.u_bias_rel = combine(b.rms_bias_rel, b.u_cref_rel);
  b.u_clock_rel = std::sqrt(sum_rclock2 / n);
  b.uc_rel = combine(combine(b.precision_rel, b.u_bias_rel), b.u_clock_rel);
  b.U_rel = expanded(b.uc_rel, 2);
  return b;
}

}  // namespace rastro::metrology
