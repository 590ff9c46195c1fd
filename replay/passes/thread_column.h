// Which thread each request is (InferContext::thread): an index into InferContext::threads. A
// trace has far fewer than 65,536 threads as a rule, so the column is 2 bytes a request instead
// of 4 (issue #16: inference's peak); a trace with more keeps 4.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/drop_consumed.h"

namespace rastro::replay {

class ThreadColumn {
 public:
  ThreadColumn() = default;
  // Request r is thread threads[r].
  explicit ThreadColumn(const std::vector<uint32_t>& threads) : n_(static_cast<uint32_t>(threads.size())) {
    bool narrow = true;
    for (uint32_t t : threads) narrow = narrow && t <= std::numeric_limits<uint16_t>::max();
    if (narrow) narrow_.assign(threads.begin(), threads.end());
    else wide_ = threads;
  }

  uint32_t operator[](uint32_t r) const { return wide_.empty() ? narrow_[r] : wide_[r]; }
  uint32_t size() const { return n_; }
  bool narrow() const { return wide_.empty(); }
  size_t memory_bytes() const { return narrow_.size() * sizeof(uint16_t) + wide_.size() * sizeof(uint32_t); }

  // Requests [0, upto) are never asked again (the plan pass consumes the column front to back).
  void drop_consumed(uint32_t upto) {
    rastro::drop_consumed(narrow_, upto);
    rastro::drop_consumed(wide_, upto);
  }

 private:
  uint32_t n_ = 0;
  std::vector<uint16_t> narrow_;
  std::vector<uint32_t> wide_;  // (empty unless some index is past uint16)
};

}  // namespace rastro::replay
