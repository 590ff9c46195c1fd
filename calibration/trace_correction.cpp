#include "calibration/trace_correction.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "calibration/curve_json.h"

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

Result<TraceCorrector> TraceCorrector::make(const trace::TraceHeader& header, const CalibrationCurve& curve,
                                            const CorrectionOptions& opt) {
  if (header.extra.is_object() && header.extra.contains("calibration"))
    return fail("trace is already calibrated (header.extra.calibration exists): apply curves to "
                "the raw trace");
  auto scale = ns_per_unit(curve.unit);
  if (!scale) return fail(scale.error());
  if (curve.b1 == 0 || !std::isfinite(curve.b1) || !std::isfinite(curve.b0))
    return fail("curve coefficients are unusable (b1 = 0 or not finite)");
  TraceCorrector c(curve, opt, *scale);
  c.where_.environment = trace_environment(header);
  c.where_.background = opt.background ? opt.background : trace_background_level(header);
  return c;
}

void TraceCorrector::correct(trace::Event& e) {
  if (e.flags & trace::kEventUnfinished) {
    ++counts_.skipped_unfinished;
    return;
  }
  if (!opt_.syscalls.empty() &&
      std::find(opt_.syscalls.begin(), opt_.syscalls.end(), e.nr) == opt_.syscalls.end()) {
    ++counts_.skipped_filtered;
    return;
  }
  const double y = static_cast<double>(e.end_ns - e.begin_ns) / scale_;
  double x = (y - curve_.b0) / curve_.b1;
  where_.value_min = std::min(where_.value_min.value_or(x), x);
  where_.value_max = std::max(where_.value_max.value_or(x), x);
  if (x < curve_.domain.x_min) ++where_.values_below;
  if (x > curve_.domain.x_max) ++where_.values_above;
  if (x < 0) {
    ++counts_.clamped_to_zero;
    x = 0;
  }
  e.raw_end_ns = e.end_ns;
  e.end_ns = e.begin_ns + static_cast<int64_t>(std::llround(x * scale_));
  e.flags |= trace::kEventCalibrated;
  ++counts_.corrected;
}

CorrectionReport TraceCorrector::report() const {
  CorrectionReport rep = counts_;
  rep.warnings = validity_warnings(curve_.domain, where_);
  if (auto why = calibration_obstacle(curve_)) rep.warnings.push_back(*why);
  if (rep.clamped_to_zero)
    rep.warnings.push_back(fmt::format("{} events would have a negative corrected time; set to 0",
                                       rep.clamped_to_zero));
  return rep;
}

void TraceCorrector::annotate(trace::TraceHeader& header) const {
  CorrectionReport rep = report();
  if (!header.extra.is_object()) header.extra = nlohmann::json::object();
  header.extra["calibration"] = {
      {"curve_source", opt_.curve_source},
      {"curve", to_json(curve_)},
      {"events_corrected", rep.corrected},
      {"events_skipped_unfinished", rep.skipped_unfinished},
      {"events_skipped_filtered", rep.skipped_filtered},
      {"events_clamped_to_zero", rep.clamped_to_zero},
      {"syscalls", opt_.syscalls},
      {"warnings", rep.warnings},
      {"raw_end", "events flagged calibrated keep their uncorrected end in raw_end_ns"},
  };
}

Result<CorrectionReport> apply_curve(trace::Trace& t, const CalibrationCurve& curve,
                                     const CorrectionOptions& opt) {
  auto corrector = TraceCorrector::make(t.header, curve, opt);
  if (!corrector) return fail(corrector.error());
  for (auto& e : t.events) corrector->correct(e);
  corrector->annotate(t.header);
  return corrector->report();
}

}  // namespace rastro::calibration
