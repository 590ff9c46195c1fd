// The error of a capture instrument split into its two causes (docs/metrology.md), besides the
// thesis's total bias (trace vs the uninstrumented reference R):
//
//   perturbation_rel    how much slower the application itself ran under the instrument:
//                       (mean_i(a_i) − R) / R · 100, a_i = the application's own timing of its
//                       calls in instrumented run i. The "overhead" users ask about.
//   recording_error_rel how far the trace is from the application's own timing of the same calls
//                       in the same run: mean_i(d_i / a_i) · 100, d_i = mean paired per-call
//                       difference trace − application in run i (the measurand's own variation
//                       cancels in the pairing).
//
// So (1 + bias) ≈ (1 + perturbation)(1 + recording error). Standard uncertainties come from the
// run-to-run spread: u(mean a)= s_a/√n combined with u(R) for the perturbation, s/√n of the per-run
// recording errors for the recording error.
#pragma once

#include <span>

#include "common/error.h"

namespace rastro::metrology {

struct ErrorComponent {
  double rel = 0;    // %
  double u_rel = 0;  // standard uncertainty, percentage points
};

// Fail with the reason when n < 2, the sizes differ, a value is not finite, or the reference or
// an application timing is not positive.
Result<ErrorComponent> perturbation(std::span<const double> application, double reference, double reference_u);
Result<ErrorComponent> recording_error(std::span<const double> application, std::span<const double> recording);

}  // namespace rastro::metrology
