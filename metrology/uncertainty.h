// The uncertainty budget of SPEC §6.1 (Eurachem single-laboratory validation, thesis §4.1).
//
// For n replicated experiments with measured results x_i and reference values ref_i (each with
// its standard uncertainty u(ref_i)):
//   precision u(R_w) = sd(x);            precision_rel = sd / mean(x) · 100
//   bias_i = (x_i − ref_i) / ref_i · 100 (the thesis formula omits the division; SPEC corrects it)
//   bias_rel = (mean(x) − mean(ref)) / mean(ref) · 100 (signed)
//   rms_bias_rel = sqrt(mean(bias_i²));  u(C_ref)_rel = sqrt(mean((u(ref_i)/ref_i · 100)²))
//   u_bias_rel = sqrt(rms_bias_rel² + u(C_ref)_rel²);  uc_rel = sqrt(precision_rel² + u_bias_rel²)
//   U_rel = k · uc_rel (k = 2 in reports)
// The absolute budget uses the same formulas with x_i − ref_i and u(ref_i).
//
// A measured value that is an interval between clocks of different hosts (an MPI job's ranks:
// docs/multinode.md) carries one more component, Type B: each end's clock offset is known only
// within a bound ±b, read as a uniform distribution, u = b/√3 per end (the ends combined in
// quadrature are the replicate's clock_u). u(clock) = sqrt(mean(clock_u_i²)) joins u_c:
//   uc = sqrt(sd² + u_bias² + u_clock²)   (relative: u_clock_rel = sqrt(mean((clock_u_i/x_i · 100)²))).
// On one host clock_u is 0 and the budget is the one above.
#pragma once

#include <span>

#include "common/error.h"

namespace rastro::metrology {

struct Replicate {
  double measured = 0;
  double reference = 0;
  double reference_u = 0;  // standard uncertainty of the reference value (0 when unknown)
  double clock_u = 0;      // Type-B standard uncertainty of `measured` from the hosts' clock offsets
};

struct UncertaintyBudget {
  size_t n = 0;
  double mean = 0;            // mean of measured
  double reference_mean = 0;  // mean of references
  // Absolute (units of the measurand).
  double sd = 0;           // u(R_w)
  double bias = 0;         // mean − reference_mean
  double rms_bias = 0;     // sqrt(mean((x_i − ref_i)²))
  double u_cref = 0;       // sqrt(mean(u(ref_i)²))
  double u_bias = 0;
  double u_clock = 0;      // sqrt(mean(clock_u²)): cross-host clock alignment (Type B)
  double uc = 0;
  double U = 0;  // k = 2
  // Relative, in %.
  double precision_rel = 0;
  double bias_rel = 0;
  double rms_bias_rel = 0;
  double u_cref_rel = 0;
  double u_bias_rel = 0;
  double u_clock_rel = 0;
  double uc_rel = 0;
  double U_rel = 0;  // k = 2
};

// Fails (with the reason) when n < 2, a value is NaN/inf, a reference is <= 0, a reference
// uncertainty is negative, or the measured mean is 0 (relative precision undefined).
Result<UncertaintyBudget> uncertainty_budget(std::span<const Replicate> replicates);

// The component that dominates u_c: "precision" (run-to-run scatter of the measured values),
// "bias" (rms of the per-run bias), "reference" (u of the reference values) or "clock" (the hosts'
// clock offsets) — where to act to reduce U (more replicates, calibration, more reference runs,
// a tighter clock synchronisation).
const char* dominant_component(const UncertaintyBudget& b);

// sqrt(a² + b²): combination of independent standard uncertainties.
double combine(double a, double b);

// Type-B standard uncertainty of a value known to lie within ± half_width, uniformly: half_width/√3.
double uniform_type_b(double half_width);

// Expanded uncertainty U = k · u_c.
inline double expanded(double uc, int k) { return k * uc; }
// Coverage probability quoted for k = 1, 2, 3 (normal distribution): 0.6827, 0.9545, 0.9973.
double coverage_probability(int k);

}  // namespace rastro::metrology
