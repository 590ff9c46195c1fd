#include "metrology/f_ratio.h"

#include <algorithm>

#include <fmt/format.h>

#include "metrology/descriptive.h"
#include "metrology/distributions.h"

namespace rastro::metrology {

std::string_view to_string(FVerdict v) {
  switch (v) {
    case FVerdict::kEquivalent: return "equivalent";
    case FVerdict::kLessPrecise: return "less_precise";
    case FVerdict::kMorePrecise: return "more_precise";
  }
  return "?";
}

Result<FCritical> f_critical(double df_num, double df_den, double alpha) {
  if (!(alpha > 0 && alpha < 1)) return fail(fmt::format("alpha {} is not in (0, 1)", alpha));
  auto lo = f_quantile(alpha / 2, df_num, df_den);
  auto hi = f_quantile(1 - alpha / 2, df_num, df_den);
  auto one = f_quantile(1 - alpha, df_num, df_den);
  if (!lo) return fail(lo.error());
  if (!hi) return fail(hi.error());
  if (!one) return fail(one.error());
  return FCritical{*lo, *hi, *one};
}

Result<FTest> f_test(std::span<const double> instrument, std::span<const double> reference,
                     double alpha) {
  auto vb = sample_variance(instrument);
  if (!vb) return fail("instrument: " + vb.error());
  auto va = sample_variance(reference);
  if (!va) return fail("reference: " + va.error());
  if (*va == 0) return fail("reference replicates have zero variance: F undefined");
  FTest t;
  t.alpha = alpha;
  t.F = *vb / *va;
  t.df_num = static_cast<double>(instrument.size() - 1);
  t.df_den = static_cast<double>(reference.size() - 1);
  auto crit = f_critical(t.df_num, t.df_den, alpha);
  if (!crit) return fail(crit.error());
  t.crit_low = crit->low;
  t.crit_high = crit->high;
  t.crit_one_sided = crit->one_sided;
  auto cdf = f_cdf(t.F, t.df_num, t.df_den);
  if (!cdf) return fail(cdf.error());
  // As var.test: p = 2 · min(P(F <= f), P(F > f)).
  t.p_value = std::min(1.0, 2 * std::min(*cdf, 1 - *cdf));
  t.verdict = t.F > t.crit_high  ? FVerdict::kLessPrecise
              : t.F < t.crit_low ? FVerdict::kMorePrecise
                                 : FVerdict::kEquivalent;
  return t;
}

}  // namespace rastro::metrology
