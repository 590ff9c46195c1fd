// The one clock of a trace: CLOCK_MONOTONIC nanoseconds, with a wall-clock anchor.
#pragma once

#include <cstdint>
#include <ctime>

namespace rastro {

inline int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

inline int64_t realtime_ns() {
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

// A pair of readings taken back to back, so monotonic times can be shown as wall time.
struct ClockAnchor {
  int64_t monotonic_ns = 0;
  int64_t realtime_ns = 0;
};

inline ClockAnchor take_clock_anchor() {
  ClockAnchor a;
  a.monotonic_ns = rastro::monotonic_ns();
  a.realtime_ns = rastro::realtime_ns();
  return a;
}

}  // namespace rastro
