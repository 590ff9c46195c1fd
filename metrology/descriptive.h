// Descriptive statistics over a sample: the building blocks of SPEC §6.1.
//
// Every function validates its input (size, finiteness) and returns a Failure naming what is
// wrong instead of a NaN, so no report ever carries a silent NaN.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace rastro::metrology {

// A message when `xs` holds a NaN or an infinity ("<what>[3] is nan"), else nullopt.
std::optional<std::string> check_finite(std::span<const double> xs, std::string_view what);

// Arithmetic mean; needs n >= 1.
Result<double> mean(std::span<const double> xs);
// Sample variance with n - 1 in the denominator (R's var); needs n >= 2.
Result<double> sample_variance(std::span<const double> xs);
// Sample standard deviation (R's sd); needs n >= 2.
Result<double> sample_sd(std::span<const double> xs);
// Median (R's median: mean of the two middle values for even n); needs n >= 1.
Result<double> median(std::span<const double> xs);
// Median absolute deviation scaled by 1.4826 (R's mad with its default constant).
Result<double> mad(std::span<const double> xs);

// Sum of squared deviations from the mean, computed in two passes for accuracy.
double sum_squared_deviations(std::span<const double> xs, double centre);

}  // namespace rastro::metrology
