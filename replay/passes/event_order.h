// Which event each request is (InferContext::order): the requests are the trace's events in begin
// order. A capture is in begin order already, as a rule: its order is then the identity and costs
// nothing, where a request -> event column was 4 bytes a request of inference's peak (issue #16).
#pragma once

#include <cstdint>
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
  explicit EventOrder(std::vector<uint32_t> events)
      : n_(static_cast<uint32_t>(events.size())), events_(std::move(events)) {}

  uint32_t operator[](uint32_t r) const { return events_.empty() ? r : events_[r]; }
  uint32_t size() const { return n_; }
  bool is_identity() const { return events_.empty(); }

  // Requests [0, upto) are never asked again (the plan pass consumes the order front to back).
  void drop_consumed(uint32_t upto) { rastro::drop_consumed(events_, upto); }

 private:
  uint32_t n_ = 0;
  std::vector<uint32_t> events_;  // empty: the identity
};

}  // namespace rastro::replay
