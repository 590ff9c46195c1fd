#include "capture/common/stop_signal.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "capture/common/workload_launcher.h"

namespace rastro::capture {
namespace {

// A sleeping workload started through the launcher; returns how it ended (shell-style status).
int stop_of_workload_started_after(int signals_before) {
  StopSignalScope scope;
  for (int i = 0; i < signals_before; ++i) ::raise(SIGTERM);  // e.g. while BPF programs load
  WorkloadLauncher w;
  pid_t pid = w.spawn({{"sleep", "30"}, nullptr});
  set_stop_forward_pid(pid);
  w.release();
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  set_stop_forward_pid(0);
  return shell_status(status);
}

TEST(StopSignal, AStopRequestedBeforeTheWorkloadStartedStopsIt) {
  EXPECT_EQ(stop_of_workload_started_after(1), 128 + SIGTERM);
}

TEST(StopSignal, TwoStopsRequestedBeforeTheWorkloadStartedKillIt) {
  EXPECT_EQ(stop_of_workload_started_after(2), 128 + SIGKILL);
}

TEST(StopSignal, ASignalDuringTheWorkloadIsForwardedOnce) {
  StopSignalScope scope;
  WorkloadLauncher w;
  pid_t pid = w.spawn({{"sleep", "30"}, nullptr});
  set_stop_forward_pid(pid);
  w.release();
  EXPECT_FALSE(stop_requested());
  ::raise(SIGTERM);
  int status = 0;
  EXPECT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(stop_requested());
  EXPECT_EQ(stop_signal(), SIGTERM);
  EXPECT_EQ(shell_status(status), 128 + SIGTERM);
  set_stop_forward_pid(0);
}

}  // namespace
}  // namespace rastro::capture
