// A rank's clock against rank 0's (the distributed-monitoring seed, §5.5; Cristian's algorithm).
//
// From one ping-pong round (t1, T, t2): rank 0 read T at some instant inside [t1, t2] of this rank's
// clock, so offset = clock_rank − clock_0 lies in [t1 − T, t2 − T]: the estimate is the midpoint
// (t1 + t2)/2 − T and it is off by at most the half round trip (t2 − t1)/2 — a bound, not a
// statistical guess, as long as both clocks tick at the same rate during the round. Of k rounds the
// one with the shortest round trip gives the tightest bound. Estimates at MPI_Init and at
// MPI_Finalize give the drift: the offset at any instant in between is interpolated linearly, and so
// is the bound (a convex combination of two bounds). Outside [init, finalize] the nearer estimate is
// used with its own bound — the drift there is not measured, and the report says so.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "mpi/mpi_log.h"

namespace rastro::mpi {

struct OffsetEstimate {
  int64_t at = 0;          // when, on the rank's clock (midpoint of the best round)
  int64_t offset = 0;      // rank clock − rank 0 clock, ns
  int64_t half_width = 0;  // |true offset − offset| <= half_width (half the best round trip)
  int rounds = 0;          // rounds it was chosen from
};

// The best (shortest round-trip) round; nullopt when there are none.
std::optional<OffsetEstimate> best_offset(std::span<const SyncRound> rounds);

class ClockModel {
 public:
  ClockModel() = default;  // the reference clock itself: offset 0, exact
  ClockModel(std::optional<OffsetEstimate> init, std::optional<OffsetEstimate> finalize);

  int64_t offset_at(int64_t t) const;
  int64_t half_width_at(int64_t t) const;
  // Rank clock -> reference clock.
  int64_t to_reference(int64_t t) const;
  // Drift in parts per million between the two estimates (0 with fewer than two), and how far it
  // can be off: the two bounds over the span between them.
  double drift_ppm() const;
  double drift_bound_ppm() const;
  bool measured() const { return init_.has_value() || finalize_.has_value(); }
  const std::optional<OffsetEstimate>& init() const { return init_; }
  const std::optional<OffsetEstimate>& finalize() const { return finalize_; }

 private:
  std::optional<OffsetEstimate> init_, finalize_;
};

// The bound as a Type-B standard uncertainty (uniform distribution over ± half_width).
double standard_uncertainty(int64_t half_width);

}  // namespace rastro::mpi
