#include "metrology/distributions.h"

#include <cmath>
#include <stdexcept>

#include <boost/math/distributions/fisher_f.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <fmt/format.h>

namespace rastro::metrology {
namespace {

bool bad_df(double df) { return !(df > 0) || !std::isfinite(df); }
bool bad_p(double p) { return !(p >= 0 && p <= 1); }

// Boost reports domain and overflow problems by exception; turn them into a Failure.
template <typename F>
Result<double> guarded(const char* what, F f) {
  try {
    double v = f();
    if (std::isnan(v)) return fail(fmt::format("{}: result is not a number", what));
    return v;
  } catch (const std::exception& e) {
    return fail(fmt::format("{}: {}", what, e.what()));
  }
}

}  // namespace

Result<double> f_quantile(double p, double df1, double df2) {
  if (bad_df(df1) || bad_df(df2) || bad_p(p))
    return fail(fmt::format("qf({}, {}, {}): arguments out of domain", p, df1, df2));
  return guarded("qf", [&] { return boost::math::quantile(boost::math::fisher_f(df1, df2), p); });
}

Result<double> f_cdf(double x, double df1, double df2) {
  if (bad_df(df1) || bad_df(df2) || std::isnan(x))
    return fail(fmt::format("pf({}, {}, {}): arguments out of domain", x, df1, df2));
  if (x <= 0) return 0.0;
  if (std::isinf(x)) return 1.0;
  return guarded("pf", [&] { return boost::math::cdf(boost::math::fisher_f(df1, df2), x); });
}

Result<double> t_quantile(double p, double df) {
  if (bad_df(df) || bad_p(p)) return fail(fmt::format("qt({}, {}): arguments out of domain", p, df));
  return guarded("qt", [&] { return boost::math::quantile(boost::math::students_t(df), p); });
}

Result<double> t_cdf(double x, double df) {
  if (bad_df(df) || std::isnan(x)) return fail(fmt::format("pt({}, {}): arguments out of domain", x, df));
  if (std::isinf(x)) return x > 0 ? 1.0 : 0.0;
  return guarded("pt", [&] { return boost::math::cdf(boost::math::students_t(df), x); });
}

double normal_quantile(double p) { return boost::math::quantile(boost::math::normal(), p); }
double normal_cdf(double x) { return boost::math::cdf(boost::math::normal(), x); }
double normal_upper_tail(double x) {
  return boost::math::cdf(boost::math::complement(boost::math::normal(), x));
}

}  // namespace rastro::metrology
