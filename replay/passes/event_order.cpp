#include "replay/passes/event_order.h"

#include <algorithm>

namespace rastro::replay {

EventOrder::EventOrder(const std::vector<uint32_t>& events) : n_(static_cast<uint32_t>(events.size())) {
  bool identity = true;
  for (uint32_t r = 0; r < n_ && identity; ++r) identity = events[r] == r;
  if (identity) return;
  delta_.resize(n_);
  for (uint32_t r = 0; r < n_; ++r) {
    const int64_t d = static_cast<int64_t>(events[r]) - r;
    if (d > kFar && d <= std::numeric_limits<int16_t>::max()) {
      delta_[r] = static_cast<int16_t>(d);
    } else {
      delta_[r] = kFar;
      far_.emplace_back(r, events[r]);
    }
  }
}

uint32_t EventOrder::far(uint32_t r) const {
  const auto it = std::lower_bound(far_.begin(), far_.end(), std::pair<uint32_t, uint32_t>(r, 0));
  return it->second;  // (delta_[r] == kFar: r is there)
}

}  // namespace rastro::replay
