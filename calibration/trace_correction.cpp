#include "calibration/trace_correction.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "calibration/curve_json.h"
#include "calibration/validity_domain.h"

namespace rastro::calibration {

Result<double> ns_per_unit(const std::string& unit) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return fail(fmt::format("unknown time unit '{}' (ns, us, ms, s)", unit));
}

std::optional<double> trace_background_level(const trace::TraceHeader& h) {
  auto number_at = [](const nlohmann::json& j, const char* key) -> std::optional<double> {
    if (j.is_object() && j.contains(key) && j[key].is_number()) return j[key].get<double>();
    return std::nullopt;
  };
  if (auto v = number_at(h.background_load, "level")) return v;
  if (auto v = number_at(h.settings, "background")) return v;
  return number_at(h.settings, "background_level");
}

nlohmann::json trace_environment(const trace::TraceHeader& h) {
  nlohmann::json env = h.environment.is_object() ? h.environment : nlohmann::json::object();
  if (!h.kernel.empty() && !env.contains("kernel")) env["kernel"] = h.kernel;
  return env;
}

Result<CorrectionReport> apply_curve(trace::Trace& t, const CalibrationCurve& curve,
                                     const CorrectionOptions& opt) {
  if (t.header.extra.is_object() && t.header.extra.contains("calibration"))
    return fail("trace is already calibrated (header.extra.calibration exists): apply curves to "
                "the raw trace");
  auto scale = ns_per_unit(curve.unit);
  if (!scale) return fail(scale.error());
  if (curve.b1 == 0 || !std::isfinite(curve.b1) || !std::isfinite(curve.b0))
    return fail("curve coefficients are unusable (b1 = 0 or not finite)");
  CorrectionReport rep;
  ApplicationContext where;
  where.environment = trace_environment(t.header);
  where.background = opt.background ? opt.background : trace_background_level(t.header);
  for (auto& e : t.events) {
    if (e.flags & trace::kEventUnfinished) {
      ++rep.skipped_unfinished;
      continue;
    }
    if (!opt.syscalls.empty() &&
        std::find(opt.syscalls.begin(), opt.syscalls.end(), e.nr) == opt.syscalls.end()) {
      ++rep.skipped_filtered;
      continue;
    }
    const double y = static_cast<double>(e.end_ns - e.begin_ns) / *scale;
    double x = (y - curve.b0) / curve.b1;
    where.value_min = std::min(where.value_min.value_or(x), x);
    where.value_max = std::max(where.value_max.value_or(x), x);
    if (x < curve.domain.x_min) ++where.values_below;
    if (x > curve.domain.x_max) ++where.values_above;
    if (x < 0) {
      ++rep.clamped_to_zero;
      x = 0;
    }
    e.raw_end_ns = e.end_ns;
    e.end_ns = e.begin_ns + static_cast<int64_t>(std::llround(x * *scale));
    e.flags |= trace::kEventCalibrated;
    ++rep.corrected;
  }
  rep.warnings = validity_warnings(curve.domain, where);
  if (auto why = calibration_obstacle(curve)) rep.warnings.push_back(*why);
  if (rep.clamped_to_zero)
    rep.warnings.push_back(fmt::format("{} events would have a negative corrected time; set to 0",
                                       rep.clamped_to_zero));
  if (!t.header.extra.is_object()) t.header.extra = nlohmann::json::object();
  t.header.extra["calibration"] = {
      {"curve_source", opt.curve_source},
      {"curve", to_json(curve)},
      {"events_corrected", rep.corrected},
      {"events_skipped_unfinished", rep.skipped_unfinished},
      {"events_skipped_filtered", rep.skipped_filtered},
      {"events_clamped_to_zero", rep.clamped_to_zero},
      {"syscalls", opt.syscalls},
      {"warnings", rep.warnings},
      {"raw_end", "events flagged calibrated keep their uncorrected end in raw_end_ns"},
  };
  return rep;
}

}  // namespace rastro::calibration
