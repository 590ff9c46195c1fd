// (Named welch_t, not welch_t_test: the build globs *_test.cpp out of libraries as test sources.)
// Welch's two-sample t-test (unequal variances), for comparing two instruments' means, as R's
// t.test(x, y, var.equal = FALSE): t = (x̄ − ȳ)/sqrt(s_x²/n_x + s_y²/n_y), Welch–Satterthwaite
// degrees of freedom, two-sided p-value and the 1 − α confidence interval of x̄ − ȳ.
#pragma once

#include <span>

#include "common/error.h"

namespace rastro::metrology {

struct WelchTTest {
  double t = 0;
  double df = 0;
  double p_value = 0;
  double difference = 0;  // x̄ − ȳ
  double ci_low = 0;
  double ci_high = 0;
  double alpha = 0.05;
};

// Each sample needs n >= 2; fails when both variances are 0 (R: "data are essentially constant").
Result<WelchTTest> welch_t_test(std::span<const double> x, std::span<const double> y,
                                double alpha = 0.05);

}  // namespace rastro::metrology
