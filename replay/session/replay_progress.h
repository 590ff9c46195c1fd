// The progress line of an engine's run (`rastro replay` on a terminal: a 100 M-request replay runs
// for minutes). The replay threads count completed requests through the engines' RequestHooks
// (forwarding to `inner`, e.g. the MPI rank sync, when there is one); a thread of its own redraws
// the line twice a second, so no replay thread ever writes to the terminal. Made only when the
// line is drawn at all (Progress::active): otherwise the engines run without hooks.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "common/progress.h"
#include "replay/engines/engine.h"

namespace rastro::replay {

class ReplayProgress final : public RequestHooks {
 public:
  // `line` is drawn on from the drawing thread until destruction; `requests`: the total.
  ReplayProgress(Progress& line, uint64_t requests, RequestHooks* inner);
  ~ReplayProgress() override;  // stops the drawing thread (the line is left to its owner)
  ReplayProgress(const ReplayProgress&) = delete;
  ReplayProgress& operator=(const ReplayProgress&) = delete;

  bool before_issue(uint32_t request) override { return inner_ != nullptr && inner_->before_issue(request); }
  void after_complete(uint32_t request) override;

  uint64_t completed() const { return completed_.load(std::memory_order_relaxed); }

 private:
  Progress& line_;
  RequestHooks* inner_;
  std::atomic<uint64_t> completed_{0};
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread drawer_;
};

}  // namespace rastro::replay
