// Busy-accurate waiting. The thesis measured nanosleep-based pacing erring by 300-470% at
// 10-50 us gaps (timer slack and wake-up latency), so we sleep only until `spin window` before
// the target and then spin on CLOCK_MONOTONIC.
#pragma once

#include <cstdint>

namespace rastro::workloads {

// Sleeping is not trusted closer than this to the deadline (typical wake-up latency + slack).
inline constexpr int64_t kDefaultSpinWindowNs = 200'000;

// Returns once monotonic_ns() >= target_ns; returns the reading that ended the wait.
int64_t wait_until_ns(int64_t target_ns, int64_t spin_window_ns = kDefaultSpinWindowNs);

}  // namespace rastro::workloads
