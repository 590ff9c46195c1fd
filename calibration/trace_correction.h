// Applying a calibration curve to a trace (SPEC §6.2): each finished event's response time
// y = end − begin (in the curve's unit) becomes x̂ = (y − b0)/b1. The corrected end is
// begin + x̂; the raw end stays in raw_end_ns and kEventCalibrated is set, so the raw trace is
// recoverable. header.extra["calibration"] records which curve was applied, what was counted and
// every validity warning. The curve is linear, so the mean of corrected times equals the
// corrected mean time the curve was fitted on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "calibration/curve_fit.h"
#include "calibration/validity_domain.h"
#include "common/error.h"
#include "trace/model/trace.h"

namespace rastro::calibration {

struct CorrectionOptions {
  std::string curve_source;           // file name recorded in the header
  std::optional<double> background;   // the trace's background level, if known from elsewhere
  // Only events whose syscall number is in this list are corrected (empty = all).
  std::vector<int> syscalls;
};

struct CorrectionReport {
  size_t corrected = 0;
  size_t skipped_unfinished = 0;
  size_t skipped_filtered = 0;
  size_t clamped_to_zero = 0;  // corrected time would be negative
  std::vector<std::string> warnings;
};

// Nanoseconds per curve unit ("ns", "us", "ms", "s").
Result<double> ns_per_unit(const std::string& unit);

// The background level a trace header records: background_load["level"], else
// settings["background"] / settings["background_level"]; nullopt if none.
std::optional<double> trace_background_level(const trace::TraceHeader& h);

// The environment of a trace for validity checks: header.environment plus "kernel" from the
// header's own field when the inventory lacks it.
nlohmann::json trace_environment(const trace::TraceHeader& h);

// The correction one event at a time, so a trace can be corrected as it streams (`rastro
// calibrate apply`); apply_curve() runs it over an in-memory trace.
class TraceCorrector {
 public:
  // Fails when the trace (its header) is already calibrated, the unit is unknown or the
  // coefficients are unusable.
  static Result<TraceCorrector> make(const trace::TraceHeader& header, const CalibrationCurve& curve,
                                     const CorrectionOptions& options);
  void correct(trace::Event& e);
  // Counts and validity warnings over every event corrected so far.
  CorrectionReport report() const;
  // Records the application (curve, counts, warnings) in header.extra["calibration"].
  void annotate(trace::TraceHeader& header) const;

 private:
  TraceCorrector(const CalibrationCurve& curve, const CorrectionOptions& options, double scale)
      : curve_(curve), opt_(options), scale_(scale) {}
  CalibrationCurve curve_;
  CorrectionOptions opt_;
  double scale_;
  ApplicationContext where_;
  CorrectionReport counts_;
};

// Fails (trace untouched) when the trace is already calibrated or the unit is unknown.
Result<CorrectionReport> apply_curve(trace::Trace& t, const CalibrationCurve& curve,
                                     const CorrectionOptions& options);

}  // namespace rastro::calibration
