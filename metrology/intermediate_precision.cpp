#include "metrology/intermediate_precision.h"

#include <cmath>

#include <fmt/format.h>

#include "metrology/descriptive.h"

namespace rastro::metrology {

std::string_view to_string(PrecisionFactor f) {
  switch (f) {
    case PrecisionFactor::kTime: return "time";
    case PrecisionFactor::kCalibration: return "calibration";
    case PrecisionFactor::kOperator: return "operator";
    case PrecisionFactor::kInstrument: return "instrument";
  }
  return "?";
}

Result<double> intermediate_precision(std::span<const double> series) { return sample_sd(series); }

Result<double> intermediate_precision(const std::vector<std::vector<double>>& groups) {
  if (groups.empty()) return fail("intermediate precision needs at least one group");
  const size_t n = groups.front().size();
  if (n < 2) return fail(fmt::format("group 1 has {} replicates; need n >= 2", n));
  double ss = 0;
  for (size_t j = 0; j < groups.size(); ++j) {
    if (groups[j].size() != n)
      return fail(fmt::format("group {} has {} replicates but group 1 has {}: the grouped form "
                              "needs equal replicate counts",
                              j + 1, groups[j].size(), n));
    auto m = mean(groups[j]);
    if (!m) return fail(fmt::format("group {}: {}", j + 1, m.error()));
    ss += sum_squared_deviations(groups[j], *m);
  }
  const double t = static_cast<double>(groups.size());
  return std::sqrt(std::max(0.0, ss) / (t * static_cast<double>(n - 1)));
}

}  // namespace rastro::metrology
