#include "workloads/common/stop_signal.h"

#include <csignal>
#include <cstring>

#include <fmt/format.h>

namespace rastro::workloads {

namespace {
StopSignal g_stop{0};
static_assert(StopSignal::is_always_lock_free, "a signal handler may only touch lock-free atomics");

extern "C" void on_stop_signal(int sig) { g_stop.store(sig, std::memory_order_relaxed); }
}  // namespace

StopSignal& process_stop_signal() { return g_stop; }

void install_stop_handlers() {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // file I/O keeps going; workers notice the flag between requests
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::string describe_stop(int value) {
  if (value == kStopRequested) return "stop requested";
  if (value == SIGINT) return "interrupted by SIGINT";
  if (value == SIGTERM) return "interrupted by SIGTERM";
  return fmt::format("interrupted by signal {}", value);
}

}  // namespace rastro::workloads
