// Distribution functions used by the tests (R names in brackets), from Boost.Math.
// Arguments out of domain (df <= 0, p outside [0, 1]) give a Failure, never a NaN.
#pragma once

#include "common/error.h"

namespace rastro::metrology {

Result<double> f_quantile(double p, double df1, double df2);  // qf(p, df1, df2)
Result<double> f_cdf(double x, double df1, double df2);       // pf(x, df1, df2)
Result<double> t_quantile(double p, double df);               // qt(p, df)
Result<double> t_cdf(double x, double df);                    // pt(x, df)
double normal_quantile(double p);                             // qnorm(p), 0 < p < 1
double normal_cdf(double x);                                  // pnorm(x)
double normal_upper_tail(double x);                           // pnorm(x, lower.tail = FALSE)

}  // namespace rastro::metrology
