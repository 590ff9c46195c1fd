// A capture backend (SPEC §3): one instrument that records the FS syscalls of a workload into the
// uniform trace. Every backend follows the same contract so `rastro capture` and the campaign can
// drive any of them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/background_load.h"
#include "trace/io/trace_sink.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::capture {

struct CaptureOptions {
  std::vector<std::string> command;  // workload to run (argv), or empty with attach_pid
  int attach_pid = 0;                // trace a running process (and its future children)
  std::string syscalls_spec = "fs";  // as given by -e trace=
  trace::SyscallSet syscalls;        // parsed syscalls_spec
  bool drop_caches = false;          // sync + drop page/dentry/inode caches before starting
  bool pin = false;                  // pin tracer and tracee to one CPU (ptrace/strace)
  uint64_t buffer_bytes = 16u << 20; // kernel ring buffer size (ebpf)
  bool quiet = false;
  // Where backends that see tasks exit note their context switches (may be null).
  BackgroundLoadRecorder* background_load = nullptr;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // What this machine lacks for this backend, one precise item per entry (empty = ready).
  virtual std::vector<std::string> missing_requirements() const = 0;
  // Captures until every traced task has exited (or a stop was requested by SIGINT/SIGTERM).
  // Writes events and final counters (events_captured, events_lost, lost_reasons) into `sink`
  // (the caller fills environment and background load and calls finish()). Returns the
  // workload's exit status as a shell would report it (128+signal when killed; 127 when the
  // command cannot be executed).
  virtual int run(const CaptureOptions& options, trace::TraceSink& sink) = 0;
};

// Registry: "strace", "ptrace", "ebpf", "stap". Returns nullptr for an unknown name.
std::unique_ptr<Backend> make_backend(std::string_view name);
std::vector<std::string> backend_names();

}  // namespace rastro::capture
