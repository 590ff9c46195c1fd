// Which event each request is (InferContext::order): the requests are the trace's events in begin
// order. A trace in begin order already (synthetic, imported) has the identity, which costs
// nothing. An eBPF capture is written in completion order, a few places from begin order: a
// request keeps its event's distance from its own index in an int16 (2 bytes a request of
// inference's peak, where a uint32 column was 4; issue #16); the few farther ones (a call that
// blocked while others completed) are kept exactly aside.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "common/drop_consumed.h"

namespace rastro::replay {

class EventOrder {
 public:
  EventOrder() = default;
  // Request r is event r.
  static EventOrder identity(uint32_t n) {
    EventOrder o;
    o.n_ = n;
    return o;
  }
  // Request r is event events[r].
  explicit EventOrder(const std::vector<uint32_t>& events);

  uint32_t operator[](uint32_t r) const {
    if (delta_.empty()) return r;
    const int16_t d = delta_[r];
    return d != kFar ? static_cast<uint32_t>(static_cast<int64_t>(r) + d) : far(r);
  }
  uint32_t size() const { return n_; }
  bool is_identity() const { return delta_.empty(); }
  size_t far_requests() const { return far_.size(); }
  size_t memory_bytes() const { return delta_.size() * sizeof(int16_t) + far_.size() * sizeof(far_[0]); }

  // Requests [0, upto) are never asked again (the plan pass consumes the order front to back).
  void drop_consumed(uint32_t upto) { rastro::drop_consumed(delta_, upto); }

 private:
  static constexpr int16_t kFar = std::numeric_limits<int16_t>::min();  // see far_
  uint32_t far(uint32_t r) const;

  uint32_t n_ = 0;
  std::vector<int16_t> delta_;                      // empty: the identity
  std::vector<std::pair<uint32_t, uint32_t>> far_;  // (request, event), by request: delta kFar
};

}  // namespace rastro::replay
