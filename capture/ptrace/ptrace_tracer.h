// The native ptrace tracer: one single-threaded loop that follows every task of the workload
// (threads and forked children, until the last exits) and turns syscall stops into events.
//
// Stops used (PLATFORM.md: all verified on this kernel):
//  - launched workloads get a seccomp filter before exec (SECCOMP_RET_TRACE for the selected
//    syscalls), so the entry stop is PTRACE_EVENT_SECCOMP and the tracer resumes with
//    PTRACE_SYSCALL only for that one call's exit stop; untraced calls never stop;
//  - attached pids (-p) cannot get a filter: every syscall stops (PTRACE_SYSCALL), unselected
//    ones are skipped in user space.
// Entry and exit are read with PTRACE_GET_SYSCALL_INFO; path strings and fcntl's struct flock
// with process_vm_readv.
// begin/end are CLOCK_MONOTONIC read right after waitpid returns each stop, so they include the
// tracer's wake-up latency (like strace's; it is the price of this instrument).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "capture/common/backend.h"
#include "capture/common/periodic_flush.h"
#include "capture/ptrace/fd_path_cache.h"
#include "common/background_load.h"

namespace rastro::capture {

struct PtraceCounters {
  uint64_t events = 0;
  uint64_t stops = 0;
  uint64_t tasks = 0;
  uint64_t unfinished = 0;   // tasks that died inside a syscall (killed by a signal)
  uint64_t string_faults = 0;  // path strings that could not be read (bad pointer)
  uint64_t lock_faults = 0;    // fcntl lock structs that could not be read (kept as 3 arguments)
  uint64_t fd_readlinks = 0;
};

class PtraceTracer {
 public:
  PtraceTracer(const CaptureOptions& options, trace::TraceSink& sink, BackgroundLoadRecorder* load);
  // Launches options.command traced from its exec; returns its shell-style exit status.
  int run_command();
  // Attaches to options.attach_pid (every thread) and follows it; returns 0 when it is gone or
  // the capture was stopped (then it detaches and the process continues untraced).
  int run_attached();
  const PtraceCounters& counters() const { return counters_; }

 private:
  struct Task {
    pid_t tgid = 0;
    bool in_syscall = false;
    bool emit = false;  // selected by the user (bookkeeping-only calls are not emitted)
    int nr = -1;
    uint64_t raw[6] = {};
    trace::Event ev;
  };

  int loop(pid_t main_pid);
  Task& new_task(pid_t tid);
  void on_entry(pid_t tid, Task& t, int nr, const uint64_t* args, int64_t now);
  void on_exit(pid_t tid, Task& t, int64_t rval, int64_t now);
  void on_task_gone(pid_t tid, int64_t now);
  void emit(Task& t);
  std::string read_string(pid_t tid, uint64_t addr);
  // The struct flock of an fcntl lock command, into the 6-argument form (fcntl_lock.h).
  void read_lock_fields(pid_t tid, uint64_t addr, trace::Event& e);
  void resume(pid_t tid, const Task& t, int sig);

  const CaptureOptions& options_;
  trace::TraceSink& sink_;
  BackgroundLoadRecorder* load_;
  FdPathCache fds_;
  std::unordered_map<pid_t, Task> tasks_;
  bool seccomp_mode_ = true;
  PtraceCounters counters_;
  PeriodicFlush flush_;
};

}  // namespace rastro::capture
