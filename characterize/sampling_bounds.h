// The 95 % sampling bounds the validation never holds a feature tighter than: below them a
// difference between the model (one sample of the workload) and the synthetic trace (another)
// cannot be told from the noise of drawing either. Each is computed from the counts behind the
// feature (docs/characterize.md, "Validation", has the formulas).
#pragma once

namespace rastro::characterize {

inline constexpr double kZ975 = 1.959963984540054;  // two-sided 95 % normal quantile (R: qnorm(0.975))

// Two-sample Kolmogorov-Smirnov critical distance at alpha = 0.05: 1.358 sqrt((n + m) / (n m)).
double ks_critical_distance(double n, double m);

// A share p1 of n1 trials against a share p2 of n2: 1.96 sqrt(p (1 - p) (1/n1 + 1/n2)), p pooled —
// the difference at which the two-proportion z test (R: prop.test(correct = FALSE)) rejects at
// 5 %. 0 when a sample is empty.
double two_proportion_bound(double p1, double n1, double p2, double n2);

// Events per unit (transfers per open) counted t1 times in one sample and t2 in the other: the
// relative difference of the two ratios at 95 %, 1.96 sqrt(1/t1 + 1/t2) — the normal
// approximation of the log rate ratio of two Poisson counts (R: poisson.test). 0 when a count is 0.
double count_ratio_bound(double t1, double t2);

}  // namespace rastro::characterize
