// Prompt, clean stopping of a workload: a SIGINT/SIGTERM handler only stores the signal number in
// a lock-free atomic; workers poll it between requests, finish the request in flight, and the
// run is written as a valid trace flagged partial (header.extra["partial"]).
#pragma once

#include <atomic>
#include <string>

namespace rastro::workloads {

// 0 = keep going; otherwise the signal number (or kStopRequested for an in-process stop).
using StopSignal = std::atomic<int>;
inline constexpr int kStopRequested = -1;

// The process-wide flag the handler sets.
StopSignal& process_stop_signal();
// Installs SIGINT and SIGTERM handlers that set process_stop_signal(). Idempotent.
void install_stop_handlers();
// "SIGINT", "SIGTERM", "stop requested", ... for the partial-trace reason.
std::string describe_stop(int value);

}  // namespace rastro::workloads
