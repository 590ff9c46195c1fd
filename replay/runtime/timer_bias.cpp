#include "replay/runtime/timer_bias.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "common/clock.h"

namespace rastro::replay {

trace::TimerBias measure_timer_bias(uint32_t samples) {
  trace::TimerBias b;
  if (samples == 0) return b;
  std::vector<int64_t> spans(samples);
  for (auto& span : spans) {
    const int64_t begin = monotonic_ns();
    ::syscall(SYS_getppid);  // no arguments, no lock, no data: the syscall's entry and exit alone
    span = monotonic_ns() - begin;
  }
  std::sort(spans.begin(), spans.end());
  auto at = [&spans](double q) { return spans[static_cast<size_t>(q * static_cast<double>(spans.size() - 1))]; };
  b.median_ns = at(0.5);
  b.p10_ns = at(0.1);
  b.p90_ns = at(0.9);
  b.samples = samples;
  return b;
}

}  // namespace rastro::replay
