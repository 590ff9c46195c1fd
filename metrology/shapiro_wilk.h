// Shapiro–Wilk normality test, W and p-value, for 3 <= n <= 5000.
//
// Royston's algorithm AS R94 (Appl. Statist. 1995, 44(4):547–551), the one R's shapiro.test
// uses (the thesis used R; results match R's to ~1e-6 or better): coefficients from
// Blom-type normal scores with Royston's polynomial corrections for the two largest, W as the
// squared correlation between the sorted data and the coefficients, the exact p for n = 3,
// and Royston's normalising transformations of log(1 − W) for 4 <= n <= 11 and n >= 12.
#pragma once

#include <span>

#include "common/error.h"

namespace rastro::metrology {

struct ShapiroWilk {
  double W = 0;
  double p_value = 0;
};

// Fails for n < 3, n > 5000, a NaN/inf value, or identical values (as R: "all 'x' values are
// identical"). NaN values are not dropped silently (R drops them; we refuse).
Result<ShapiroWilk> shapiro_wilk(std::span<const double> xs);

}  // namespace rastro::metrology
