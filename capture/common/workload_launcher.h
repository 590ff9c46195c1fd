// Starts the workload of a capture: forks the command stopped *before* exec so a tracer can attach
// (ptrace) or register it (eBPF) first, then releases it.
//
//   WorkloadLauncher w;
//   pid_t pid = w.spawn({argv, hook});   // child blocks on a pipe
//   ... PTRACE_SEIZE(pid) / add pid to a BPF map ...
//   w.release();                         // child runs `hook`, then execv()
//
// The child reports a failed exec (or a failed hook) through a close-on-exec pipe and exits with
// 127, like a shell, so the parent can tell "command could not run" from "command exited 127".
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "common/error.h"

namespace rastro::capture {

struct LaunchSpec {
  std::vector<std::string> argv;
  // Runs in the child after release() and right before exec: install a seccomp filter, pin a
  // CPU. The parent may be multi-threaded, so only async-signal-safe work belongs here (build
  // any data before spawn()). Returns 0 or an errno value, which aborts the launch (status 127).
  std::function<int()> pre_exec;
};

// Resolves a command name like a shell: names with a '/' are taken as is, others are searched
// in $PATH. Fails with "command not found" / "permission denied" messages.
Result<std::string> resolve_command(const std::string& name);

class WorkloadLauncher {
 public:
  WorkloadLauncher() = default;
  WorkloadLauncher(const WorkloadLauncher&) = delete;
  WorkloadLauncher& operator=(const WorkloadLauncher&) = delete;
  // Kills a child that was spawned but never released.
  ~WorkloadLauncher();

  // Forks the child, which waits for release(). Throws rastro::Error (exit code 127) when the
  // command cannot be found or executed.
  pid_t spawn(const LaunchSpec& spec);
  // Lets the child run its hook and exec. Does not wait for the exec.
  void release();
  // Once the child has exited: a message when it never ran the command (exec or hook failed),
  // else "". Never blocks.
  std::string launch_failure();

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  int go_fd_ = -1;      // parent's write end of the release pipe
  int error_fd_ = -1;   // parent's read end of the close-on-exec error pipe
  bool released_ = false;
  std::string command_;
};

// Makes the calling process adopt orphaned descendants (PR_SET_CHILD_SUBREAPER), so a capture
// still waits for (and sees the exit of) grandchildren whose parent died first.
void become_subreaper();

// A wait(2) status as a shell reports it: the exit code, or 128 + the signal number.
int shell_status(int wait_status);

// Reaps children (direct ones and adopted orphans) until none is left; returns the shell status
// of `main_pid`. Used by backends that do not trace with ptrace themselves.
// `on_interrupt` runs whenever a signal (e.g. a stop request) interrupts the wait.
int wait_all_children(pid_t main_pid, const std::function<void()>& on_interrupt = nullptr);

}  // namespace rastro::capture
