#include "characterize/turn_scheduler.h"

#include <utility>

namespace rastro::characterize {

TurnScheduler::TurnScheduler(std::vector<int64_t> first_times)
    : next_(std::move(first_times)), active_(next_.size(), true) {}

bool TurnScheduler::has_turn(size_t id) const {
  for (size_t j = 0; j < next_.size(); ++j)
    if (j != id && active_[j] && (next_[j] < next_[id] || (next_[j] == next_[id] && j < id))) return false;
  return true;
}

void TurnScheduler::arrive(size_t id, int64_t time) {
  std::unique_lock lock(mutex_);
  next_[id] = time;
  changed_.notify_all();
  changed_.wait(lock, [&] { return has_turn(id); });
}

void TurnScheduler::leave(size_t id) {
  std::lock_guard lock(mutex_);
  active_[id] = false;
  changed_.notify_all();
}

}  // namespace rastro::characterize
