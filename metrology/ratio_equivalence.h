// A ratio measured once per independent round (a replay's latency against its own original's, one
// capture and its replay per round): its geometric mean, the confidence interval of that mean
// (Student's t on the logarithms, R: exp(t.test(log(x), conf.level = c)$conf.int)), and whether
// the rounds show it within ±tolerance of 1.
//
// The verdict is the two one-sided tests (TOST) of equivalence, as bioequivalence judges a
// test/reference ratio: at level α the ratio is shown *within* [1 − tol, 1 + tol] when its
// 1 − 2α interval (90 % for α = 5 %) lies inside those bounds, and shown *beyond* them when the
// interval lies wholly outside; otherwise the rounds are too few, or the machine too noisy, to
// tell (*undecided*). One round against one original decides nothing: two runs of the same
// program differ per class by more than 15 % half of the time on the VMs we measure on
// (docs/replay.md "Rounds").
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "common/error.h"

namespace rastro::metrology {

struct RatioEstimate {
  size_t rounds = 0;
  double geometric_mean = 0;
  double log_sd = 0;        // sample standard deviation of the log ratios
  double confidence = 0;    // of the interval, e.g. 0.90
  double ci_low = 0, ci_high = 0;
};

// Needs two ratios or more, each finite and > 0; `confidence` in (0, 1). Equal ratios give an
// interval of width 0 (R refuses them as "essentially constant"; here they are simply exact).
Result<RatioEstimate> estimate_ratio(std::span<const double> ratios, double confidence = 0.90);

enum class Equivalence { kWithin, kBeyond, kUndecided };

// `tolerance` as a fraction (0.15 for ±15 %), in (0, 1).
Equivalence judge_equivalence(const RatioEstimate& estimate, double tolerance);
std::string_view equivalence_name(Equivalence e);  // "within", "beyond", "undecided"

}  // namespace rastro::metrology
