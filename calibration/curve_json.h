// A calibration curve as JSON (docs/metrology.md). Example:
//   {"format": "rastro-calibration-curve", "version": 1, "kind": "linear", "unit": "us",
//    "b0": 1.9, "b1": 1.12, "s_yx": 0.4, "se_b0": 0.2, "se_b1": 0.01, "r2": 0.998, "n": 30,
//    "df": 28, "x_mean": 55.0, "y_mean": 63.5, "sxx": 24750.0, "x_min": 10, "x_max": 100,
//    "environment": {...}, "background": 0, "note": "", "undefined": {}}
// A statistic that is undefined is null and "undefined" maps its key to the reason; there is
// never a NaN.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "calibration/curve_fit.h"

namespace rastro::calibration {

nlohmann::json to_json(const CalibrationCurve& c);
// Throws rastro::Error naming `source` and the missing or bad key.
CalibrationCurve curve_from_json(const nlohmann::json& j, const std::string& source);

// File helpers: throw rastro::Error naming the file on I/O or parse problems.
CalibrationCurve read_curve(const std::string& path);
void write_curve(const std::string& path, const CalibrationCurve& c);

}  // namespace rastro::calibration
