#include "metrology/ratio_equivalence.h"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "metrology/descriptive.h"
#include "metrology/distributions.h"

namespace rastro::metrology {

Result<RatioEstimate> estimate_ratio(std::span<const double> ratios, double confidence) {
  if (!(confidence > 0 && confidence < 1)) return fail(fmt::format("confidence {} is not in (0, 1)", confidence));
  if (ratios.size() < 2) return fail(fmt::format("{} ratio(s): an interval needs two rounds or more", ratios.size()));
  std::vector<double> logs;
  logs.reserve(ratios.size());
  for (double r : ratios) {
    if (!(r > 0) || !std::isfinite(r)) return fail(fmt::format("ratio {} is not a finite positive number", r));
    logs.push_back(std::log(r));
  }
  RatioEstimate e;
  e.rounds = ratios.size();
  e.confidence = confidence;
  const double m = mean(logs).take();
  e.log_sd = std::sqrt(sample_variance(logs).take());
  auto q = t_quantile(1 - (1 - confidence) / 2, static_cast<double>(logs.size() - 1));
  if (!q) return fail(q.error());
  const double half = *q * e.log_sd / std::sqrt(static_cast<double>(logs.size()));
  e.geometric_mean = std::exp(m);
  e.ci_low = std::exp(m - half);
  e.ci_high = std::exp(m + half);
  return e;
}

Equivalence judge_equivalence(const RatioEstimate& e, double tolerance) {
  const double low = 1 - tolerance, high = 1 + tolerance;
  if (e.ci_low >= low && e.ci_high <= high) return Equivalence::kWithin;
  if (e.ci_high < low || e.ci_low > high) return Equivalence::kBeyond;
  return Equivalence::kUndecided;
}

std::string_view equivalence_name(Equivalence e) {
  switch (e) {
    case Equivalence::kWithin: return "within";
    case Equivalence::kBeyond: return "beyond";
    case Equivalence::kUndecided: return "undecided";
  }
  return "undecided";
}

}  // namespace rastro::metrology
