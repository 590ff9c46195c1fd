// Quantiles of a stream of latencies in bounded memory, mergeable (DDSketch-style, Masson et al.,
// VLDB 2019): values are kept exactly up to kExactValues, then counted in logarithmic buckets
// [gamma^(i-1), gamma^i) with gamma = (1 + a) / (1 - a), a = kRelativeError. A bucket stands for
// 2 gamma^i / (gamma + 1), within a relative error a of every value in it, so a quantile (R type 7,
// as condenser.h) is within a of the exact one: between (1 - a) x_lo and (1 + a) x_hi, x_lo and
// x_hi being the order statistics the exact quantile interpolates between. Zero is exact; the
// buckets stay few (about ln(max/min) / 2a: 1,000 for ns to minutes), whatever the count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace rastro::trace {

class QuantileSketch {
 public:
  static constexpr double kRelativeError = 0.01;
  static constexpr size_t kExactValues = 1024;

  void add(int64_t value);
  void merge(const QuantileSketch& other);
  uint64_t count() const { return count_; }
  // Quantile p in [0, 1] (R type 7 over the stored values or bucket representatives); 0 when
  // empty. Exact while count() <= kExactValues.
  double quantile(double p) const;
  bool exact() const { return buckets_.empty() && zeros_ == 0 && negatives_.empty(); }

 private:
  void to_buckets();
  void add_to_buckets(int64_t value, uint64_t n);
  // The k-th smallest value (0-based) as the sketch knows it.
  double value_at(uint64_t k) const;

  uint64_t count_ = 0;
  mutable std::vector<int64_t> exact_;  // sorted lazily by quantile()
  mutable bool sorted_ = true;
  uint64_t zeros_ = 0;
  std::map<int32_t, uint64_t> buckets_;    // value > 0: index -> count
  std::map<int32_t, uint64_t> negatives_;  // value < 0 (damaged traces): index of -value
};

}  // namespace rastro::trace
