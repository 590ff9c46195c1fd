// Outlier flagging by a documented rule that reports and never removes:
//   x_i is flagged when |x_i − median| > k · MAD,  MAD = 1.4826 · median(|x − median|)
// (R's mad(); for normal data MAD estimates σ, so k = 3 flags ~0.27 % of good values).
// The caller decides what to do; statistics in the catalogue always use every replicate.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/error.h"

namespace rastro::metrology {

struct OutlierReport {
  double median = 0;
  double mad = 0;
  double k = 3;
  double low = 0;   // median − k·MAD
  double high = 0;  // median + k·MAD
  std::vector<size_t> flagged;  // indices into the input, ascending
  std::string note;             // set when the rule is degenerate (MAD = 0)
};

// Fails on an empty sample or NaN/inf. With MAD = 0 (more than half the values equal) nothing
// is flagged and `note` says why.
Result<OutlierReport> flag_outliers(std::span<const double> xs, double k = 3);

}  // namespace rastro::metrology
