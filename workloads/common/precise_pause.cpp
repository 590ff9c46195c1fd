#include "workloads/common/precise_pause.h"

#include <cerrno>
#include <ctime>

#include "common/clock.h"

namespace rastro::workloads {

namespace {
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

int64_t wait_until_ns(int64_t target_ns, int64_t spin_window_ns) {
  int64_t now = monotonic_ns();
  if (target_ns - now > spin_window_ns) {
    const int64_t wake = target_ns - spin_window_ns;
    timespec ts{static_cast<time_t>(wake / 1000000000LL), static_cast<long>(wake % 1000000000LL)};
    // TIMER_ABSTIME: an EINTR restart does not stretch the wait.
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
    now = monotonic_ns();
  }
  while (now < target_ns) {
    cpu_relax();
    now = monotonic_ns();
  }
  return now;
}

}  // namespace rastro::workloads
