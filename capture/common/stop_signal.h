// SIGINT / SIGTERM during a capture: stop cleanly and finalise the trace.
//
// While a StopSignalScope lives, SIGINT and SIGTERM do not kill rastro. The first one is passed on
// to the workload (unless the terminal already delivered it to the whole foreground group) so it
// ends and the backend drains and writes what it captured; a second one sends SIGKILL to the
// workload. Handlers are installed without SA_RESTART so blocking waits return EINTR and loops can
// look at stop_requested().
#pragma once

#include <sys/types.h>

namespace rastro::capture {

class StopSignalScope {
 public:
  StopSignalScope();
  ~StopSignalScope();
  StopSignalScope(const StopSignalScope&) = delete;
  StopSignalScope& operator=(const StopSignalScope&) = delete;
};

// The process the first stop signal is forwarded to (0 = nobody: e.g. an attached pid we must
// not kill, where the backend detaches instead). If a stop was already requested, it is forwarded
// to pid at once.
void set_stop_forward_pid(pid_t pid);
bool stop_requested();
// The signal number of the first stop request (0 if none).
int stop_signal();

}  // namespace rastro::capture
