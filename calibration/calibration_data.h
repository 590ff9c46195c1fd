// Calibration data for `rastro calibrate fit`: CSV with a header naming the columns
// `reference` and `measured` (any order; others ignored), one row per measurement, replicates
// as repeated rows:
//   reference,measured
//   10,12.31
//   10,12.18
//   100,113.9
#pragma once

#include <string>
#include <vector>

#include "calibration/curve_fit.h"

namespace rastro::calibration {

// Throws rastro::Error naming file:line on a missing column or a bad/non-finite value.
std::vector<CalibrationPoint> read_calibration_csv(const std::string& path);
std::vector<CalibrationPoint> parse_calibration_csv(const std::string& text, const std::string& source);

}  // namespace rastro::calibration
