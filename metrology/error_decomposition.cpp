#include "metrology/error_decomposition.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "metrology/descriptive.h"

namespace rastro::metrology {

namespace {

std::optional<std::string> check_application(std::span<const double> application) {
  if (application.size() < 2) return "the error split needs n >= 2 runs with application timing";
  if (auto bad = check_finite(application, "application")) return bad;
  for (size_t i = 0; i < application.size(); ++i)
    if (!(application[i] > 0)) return fmt::format("application timing of run {} is not positive", i + 1);
  return std::nullopt;
}

}  // namespace

Result<ErrorComponent> perturbation(std::span<const double> application, double reference, double reference_u) {
  if (auto bad = check_application(application)) return fail(*bad);
  if (!(reference > 0) || !std::isfinite(reference)) return fail(fmt::format("reference {} is not positive", reference));
  if (!(reference_u >= 0) || !std::isfinite(reference_u)) return fail(fmt::format("reference_u {} is invalid", reference_u));
  const double a = mean(application).take();
  const double u_a = sample_sd(application).take() / std::sqrt(static_cast<double>(application.size()));
  const double ratio = a / reference;
  return ErrorComponent{(ratio - 1) * 100, 100 * ratio * std::hypot(u_a / a, reference_u / reference)};
}

Result<ErrorComponent> recording_error(std::span<const double> application, std::span<const double> recording) {
  if (auto bad = check_application(application)) return fail(*bad);
  if (recording.size() != application.size())
    return fail(fmt::format("{} application timings but {} recording differences", application.size(), recording.size()));
  if (auto bad = check_finite(recording, "recording")) return fail(*bad);
  std::vector<double> per_run;
  for (size_t i = 0; i < recording.size(); ++i) per_run.push_back(recording[i] / application[i] * 100);
  return ErrorComponent{mean(per_run).take(),
                        sample_sd(per_run).take() / std::sqrt(static_cast<double>(per_run.size()))};
}

}  // namespace rastro::metrology
