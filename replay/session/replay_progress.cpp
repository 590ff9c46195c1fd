#include "replay/session/replay_progress.h"

#include <chrono>

namespace rastro::replay {

ReplayProgress::ReplayProgress(Progress& line, uint64_t requests, RequestHooks* inner) : line_(line), inner_(inner) {
  line_.set_total(requests);
  drawer_ = std::thread([this] {
    std::unique_lock lock(mu_);
    while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stop_; })) line_.update(completed());
  });
}

ReplayProgress::~ReplayProgress() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  stop_cv_.notify_one();
  drawer_.join();
}

void ReplayProgress::after_complete(uint32_t request) {
  // One shared counter: with a line on a terminal the extra atomic add per request is accepted
  // (without one, no hook runs at all).
  completed_.fetch_add(1, std::memory_order_relaxed);
  if (inner_) inner_->after_complete(request);
}

}  // namespace rastro::replay
