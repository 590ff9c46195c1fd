#include "trace/analysis/quantile_sketch.h"

#include <algorithm>
#include <cmath>

#include "trace/analysis/condenser.h"

namespace rastro::trace {
namespace {

const double kGamma = (1 + QuantileSketch::kRelativeError) / (1 - QuantileSketch::kRelativeError);
const double kLogGamma = std::log(kGamma);

int32_t bucket_of(double magnitude) {  // magnitude >= 1
  return static_cast<int32_t>(std::ceil(std::log(magnitude) / kLogGamma));
}

double representative(int32_t index) {
  return 2 * std::pow(kGamma, index) / (kGamma + 1);
}

}  // namespace

void QuantileSketch::add(int64_t value) {
  ++count_;
  if (exact()) {
    if (!exact_.empty() && value < exact_.back()) sorted_ = false;
    exact_.push_back(value);
    if (exact_.size() > kExactValues) to_buckets();
    return;
  }
  add_to_buckets(value, 1);
}

void QuantileSketch::add_to_buckets(int64_t value, uint64_t n) {
  if (value == 0) {
    zeros_ += n;
  } else if (value > 0) {
    buckets_[bucket_of(static_cast<double>(value))] += n;
  } else {
    negatives_[bucket_of(-static_cast<double>(value))] += n;
  }
}

void QuantileSketch::to_buckets() {
  for (int64_t v : exact_) add_to_buckets(v, 1);
  exact_ = {};
  sorted_ = true;
}

void QuantileSketch::merge(const QuantileSketch& other) {
  if (exact() && other.exact()) {
    count_ += other.count_;
    exact_.insert(exact_.end(), other.exact_.begin(), other.exact_.end());
    sorted_ = false;
    if (exact_.size() > kExactValues) to_buckets();
    return;
  }
  if (exact()) to_buckets();
  count_ += other.count_;
  for (int64_t v : other.exact_) add_to_buckets(v, 1);
  zeros_ += other.zeros_;
  for (auto [i, n] : other.buckets_) buckets_[i] += n;
  for (auto [i, n] : other.negatives_) negatives_[i] += n;
}

double QuantileSketch::value_at(uint64_t k) const {
  for (auto it = negatives_.rbegin(); it != negatives_.rend(); ++it) {  // most negative first
    if (k < it->second) return -representative(it->first);
    k -= it->second;
  }
  if (k < zeros_) return 0;
  k -= zeros_;
  for (auto [i, n] : buckets_) {
    if (k < n) return representative(i);
    k -= n;
  }
  return buckets_.empty() ? 0 : representative(buckets_.rbegin()->first);
}

double QuantileSketch::quantile(double p) const {
  if (count_ == 0) return 0;
  if (exact()) {
    if (!sorted_) {
      std::sort(exact_.begin(), exact_.end());
      sorted_ = true;
    }
    return quantile_type7(exact_, p);
  }
  double h = static_cast<double>(count_ - 1) * p;
  auto lo = static_cast<uint64_t>(std::floor(h));
  uint64_t hi = std::min(lo + 1, count_ - 1);
  double x = value_at(lo), y = value_at(hi);
  return x + (h - static_cast<double>(lo)) * (y - x);
}

}  // namespace rastro::trace
