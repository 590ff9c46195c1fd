// Intermediate precision (ISO 5725-3, thesis App. A.1), both forms of SPEC §6.1:
//   single series with changed factors:  s_I = sqrt(Σ(y_k − ȳ)² / (n − 1))
//   t groups of n replicates each:       s_I = sqrt(Σ_j Σ_k (y_jk − ȳ_j)² / (t(n − 1)))
// Factors that may change between measurements: time, calibration, operator, instrument.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace rastro::metrology {

enum class PrecisionFactor { kTime, kCalibration, kOperator, kInstrument };
std::string_view to_string(PrecisionFactor f);

// Single series (n >= 2).
Result<double> intermediate_precision(std::span<const double> series);
// Grouped form; every group must have the same n >= 2 (mismatched replicate counts fail).
Result<double> intermediate_precision(const std::vector<std::vector<double>>& groups);

}  // namespace rastro::metrology
