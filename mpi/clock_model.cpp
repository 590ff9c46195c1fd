#include "mpi/clock_model.h"

#include <cmath>

#include "common/saturating.h"

namespace rastro::mpi {

std::optional<OffsetEstimate> best_offset(std::span<const SyncRound> rounds) {
  std::optional<OffsetEstimate> best;
  int64_t best_rtt = 0;
  for (const SyncRound& r : rounds) {
    // Saturating: rounds may come from a damaged trace header.
    const int64_t rtt = sat_sub(r.received, r.sent);
    if (rtt < 0 || (best && rtt >= best_rtt)) continue;
    best_rtt = rtt;
    const int64_t mid = sat_add(r.sent, rtt / 2);
    best = OffsetEstimate{mid, sat_sub(mid, r.reference), rtt / 2 + rtt % 2, 0};
  }
  if (best) best->rounds = static_cast<int>(rounds.size());
  return best;
}

ClockModel::ClockModel(std::optional<OffsetEstimate> init, std::optional<OffsetEstimate> finalize)
    : init_(init), finalize_(finalize) {
  if (init_ && finalize_ && finalize_->at <= init_->at) finalize_.reset();  // no span to interpolate over
}

namespace {

// Weight of the finalize estimate at t, clamped to [0, 1].
double lambda(const OffsetEstimate& a, const OffsetEstimate& b, int64_t t) {
  if (t <= a.at) return 0;
  if (t >= b.at) return 1;
  return static_cast<double>(sat_sub(t, a.at)) / static_cast<double>(sat_sub(b.at, a.at));
}

int64_t blend(int64_t x, int64_t y, double l) {
  return sat_add(x, static_cast<int64_t>(std::llround(l * static_cast<double>(sat_sub(y, x)))));
}

}  // namespace

int64_t ClockModel::offset_at(int64_t t) const {
  if (init_ && finalize_) return blend(init_->offset, finalize_->offset, lambda(*init_, *finalize_, t));
  if (init_) return init_->offset;
  if (finalize_) return finalize_->offset;
  return 0;
}

int64_t ClockModel::half_width_at(int64_t t) const {
  if (init_ && finalize_) {
    const double l = lambda(*init_, *finalize_, t);
    const int64_t w = blend(init_->half_width, finalize_->half_width, l);
    // Between the estimates, + 1 ns: the interpolated offset and this width are each rounded.
    return l > 0 && l < 1 ? sat_add(w, 1) : w;
  }
  if (init_) return init_->half_width;
  if (finalize_) return finalize_->half_width;
  return 0;
}

int64_t ClockModel::to_reference(int64_t t) const { return sat_sub(t, offset_at(t)); }

double ClockModel::drift_ppm() const {
  if (!init_ || !finalize_) return 0;
  return static_cast<double>(sat_sub(finalize_->offset, init_->offset)) /
         static_cast<double>(sat_sub(finalize_->at, init_->at)) * 1e6;
}

double ClockModel::drift_bound_ppm() const {
  if (!init_ || !finalize_) return 0;
  return static_cast<double>(sat_add(init_->half_width, finalize_->half_width)) /
         static_cast<double>(sat_sub(finalize_->at, init_->at)) * 1e6;
}

double standard_uncertainty(int64_t half_width) { return static_cast<double>(half_width) / std::sqrt(3.0); }

}  // namespace rastro::mpi
