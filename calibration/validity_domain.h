// Where a calibration curve may be applied (SPEC §6.2, thesis Figs. 5.8–5.9): the reference
// range it was fitted on, the environment inventory (SPEC §6.4) and the background-load level
// it was fitted under. A curve applied on another kernel or at another background level
// over-corrects, so every mismatch becomes a loud warning.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rastro::calibration {

struct ValidityDomain {
  double x_min = 0;  // reference range fitted on
  double x_max = 0;
  nlohmann::json environment = nlohmann::json::object();  // inventory at fit time ({} = unknown)
  std::optional<double> background;                       // background-load level at fit time
};

// Where the curve is about to be applied.
struct ApplicationContext {
  nlohmann::json environment = nlohmann::json::object();
  std::optional<double> background;
  std::optional<double> value_min;  // smallest/largest value to be corrected (reference units)
  std::optional<double> value_max;
  size_t values_below = 0;  // how many fall outside the range
  size_t values_above = 0;
};

// One human-readable warning per mismatch: environment keys that differ (flattened "a.b" paths,
// ignoring volatile ones such as timestamps), keys the curve recorded but the target lacks,
// a different or unknown background level, and values outside [x_min, x_max].
std::vector<std::string> validity_warnings(const ValidityDomain& domain,
                                           const ApplicationContext& where);

// Visible for testing: the comparable keys of an inventory, flattened to "a.b" → scalar text.
std::vector<std::pair<std::string, std::string>> flatten_environment(const nlohmann::json& env);

}  // namespace rastro::calibration
