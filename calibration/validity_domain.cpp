#include "calibration/validity_domain.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace rastro::calibration {
namespace {

// Keys whose value changes from run to run on the same machine and says nothing about whether
// the curve still holds.
bool volatile_key(const std::string& key) {
  static const char* const kVolatile[] = {"time", "date", "uptime", "free", "available", "pid",
                                          "loadavg", "boot_id", "anchor", "seed",
                                          "mhz", "path"};
  std::string lower = key;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) {
    return static_cast<char>(std::tolower(ch));
  });
  return std::any_of(std::begin(kVolatile), std::end(kVolatile),
                     [&](const char* v) { return lower.find(v) != std::string::npos; });
}

void flatten(const nlohmann::json& j, const std::string& prefix,
             std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (volatile_key(it.key())) continue;
      flatten(it.value(), prefix.empty() ? it.key() : prefix + "." + it.key(), out);
    }
  } else if (!prefix.empty() && !j.is_null()) {
    out.emplace_back(prefix, j.is_string() ? j.get<std::string>() : j.dump());
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flatten_environment(const nlohmann::json& env) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten(env, "", out);
  return out;
}

std::vector<std::string> validity_warnings(const ValidityDomain& d, const ApplicationContext& w) {
  std::vector<std::string> warnings;
  const auto curve_env = flatten_environment(d.environment);
  if (curve_env.empty()) {
    warnings.push_back(
        "the curve records no environment inventory: cannot check it was fitted on this kernel "
        "and machine");
  } else {
    std::map<std::string, std::string> target;
    for (auto& [k, v] : flatten_environment(w.environment)) target[k] = v;
    for (const auto& [k, v] : curve_env) {
      auto it = target.find(k);
      if (it == target.end())
        warnings.push_back(fmt::format("environment '{}' is unknown here (curve fitted with '{}')", k, v));
      else if (it->second != v)
        warnings.push_back(fmt::format("environment '{}' differs: curve fitted with '{}', applied to '{}' "
                                       "(a curve from another environment over-corrects)",
                                       k, v, it->second));
    }
  }
  if (d.background && w.background && *d.background != *w.background)
    warnings.push_back(fmt::format("background load level differs: curve fitted at {}, applied at {}",
                                   *d.background, *w.background));
  else if (d.background && !w.background)
    warnings.push_back(fmt::format("background load level of the target is unknown (curve fitted at {})",
                                   *d.background));
  else if (!d.background)
    warnings.push_back("the curve records no background load level");
  if (w.values_below > 0 || w.values_above > 0)
    warnings.push_back(fmt::format(
        "{} values below and {} above the curve's range [{:.6g}, {:.6g}] (observed {:.6g} .. {:.6g}): "
        "extrapolated corrections are not validated",
        w.values_below, w.values_above, d.x_min, d.x_max, w.value_min.value_or(NAN),
        w.value_max.value_or(NAN)));
  else if (w.value_min && w.value_max && (*w.value_min < d.x_min || *w.value_max > d.x_max))
    warnings.push_back(fmt::format("values {:.6g} .. {:.6g} fall outside the curve's range [{:.6g}, {:.6g}]",
                                   *w.value_min, *w.value_max, d.x_min, d.x_max));
  return warnings;
}

}  // namespace rastro::calibration
