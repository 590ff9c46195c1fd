// (Named f_ratio, not f_test: the build globs *_test.cpp out of libraries as test sources.)
// F-test comparing an instrument's precision with the reference's (SPEC §6.1, thesis §5.1.3):
//   F = s_B² / s_A²  with (n_B − 1, n_A − 1) degrees of freedom,
// B = the instrument under validation, A = the reference. Two-sided critical values
// F(α/2) and F(1 − α/2) (n = 50, α = 0.05: 0.567 and 1.762), one-sided F(1 − α) (1.607).
// The p-value is R's var.test(B, A) two-sided p.
#pragma once

#include <span>
#include <string_view>

#include "common/error.h"

namespace rastro::metrology {

enum class FVerdict {
  kEquivalent,    // crit_low <= F <= crit_high: precisions not distinguishable
  kLessPrecise,   // F > crit_high: the instrument scatters more than the reference
  kMorePrecise,   // F < crit_low
};
std::string_view to_string(FVerdict v);

struct FTest {
  double F = 0;
  double df_num = 0;
  double df_den = 0;
  double alpha = 0.05;
  double crit_low = 0;         // qf(α/2, df_num, df_den)
  double crit_high = 0;        // qf(1 − α/2, df_num, df_den)
  double crit_one_sided = 0;   // qf(1 − α, df_num, df_den)
  double p_value = 0;          // two-sided
  FVerdict verdict = FVerdict::kEquivalent;
};

struct FCritical {
  double low = 0, high = 0, one_sided = 0;
};
Result<FCritical> f_critical(double df_num, double df_den, double alpha);

// `instrument` = B, `reference` = A; each needs n >= 2 and a non-zero variance in A.
Result<FTest> f_test(std::span<const double> instrument, std::span<const double> reference,
                     double alpha = 0.05);

}  // namespace rastro::metrology
