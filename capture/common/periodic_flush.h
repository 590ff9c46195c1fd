// When a capture backend pushes its buffered events to the trace file: after a block's worth of
// events or after a second of trace time, whichever comes first, so a capture killed with SIGKILL
// loses at most about a second of events even when the workload makes few calls.
#pragma once

#include <cstdint>

namespace rastro::capture {

class PeriodicFlush {
 public:
  static constexpr uint64_t kEvents = 65536;
  static constexpr int64_t kIntervalNs = 1'000'000'000;

  // Called once per event with its (monotonic) timestamp; true when the sink should flush now.
  bool due(int64_t now_ns) {
    if (last_ns_ == 0) last_ns_ = now_ns;
    if (++count_ < kEvents && now_ns - last_ns_ < kIntervalNs) return false;
    count_ = 0;
    last_ns_ = now_ns;
    return true;
  }

 private:
  uint64_t count_ = 0;
  int64_t last_ns_ = 0;
};

}  // namespace rastro::capture
