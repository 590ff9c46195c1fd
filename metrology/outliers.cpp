#include "metrology/outliers.h"

#include <cmath>

#include "metrology/descriptive.h"

namespace rastro::metrology {

Result<OutlierReport> flag_outliers(std::span<const double> xs, double k) {
  if (!(k > 0)) return fail("outlier rule needs k > 0");
  auto med = median(xs);
  if (!med) return fail(med.error());
  OutlierReport r;
  r.k = k;
  r.median = *med;
  r.mad = mad(xs).take();
  r.low = r.median - k * r.mad;
  r.high = r.median + k * r.mad;
  if (r.mad == 0) {
    r.note = "MAD is 0 (more than half the values are equal): rule not applied";
    return r;
  }
  for (size_t i = 0; i < xs.size(); ++i)
    if (std::fabs(xs[i] - r.median) > k * r.mad) r.flagged.push_back(i);
  return r;
}

}  // namespace rastro::metrology
