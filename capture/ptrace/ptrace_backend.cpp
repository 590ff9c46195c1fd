// `rastro capture -b ptrace`: the native tracer (ptrace_tracer.h) behind the Backend contract.
#include <sys/ptrace.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "capture/common/backend_factories.h"
#include "capture/ptrace/ptrace_tracer.h"

namespace rastro::capture {

namespace {

class PtraceBackend final : public Backend {
 public:
  std::string_view name() const override { return "ptrace"; }

  std::vector<std::string> missing_requirements() const override {
    std::vector<std::string> missing;
    std::ifstream yama("/proc/sys/kernel/yama/ptrace_scope");
    int scope = 0;
    if (yama >> scope && scope >= 3)
      missing.push_back("ptrace is disabled (kernel.yama.ptrace_scope = 3)");
    return missing;
  }

  int run(const CaptureOptions& options, trace::TraceSink& sink) override {
    PtraceTracer tracer(options, sink, options.background_load);
    int status = options.attach_pid > 0 ? tracer.run_attached() : tracer.run_command();
    const PtraceCounters& c = tracer.counters();
    auto& h = sink.header();
    h.events_captured = c.events;
    h.events_lost = 0;  // ptrace stops the tracee: nothing can be dropped
    h.settings["ptrace"] = {{"mode", options.attach_pid > 0 ? "PTRACE_SYSCALL (attached)" : "seccomp filter"},
                            {"stops", c.stops},
                            {"tasks", c.tasks},
                            {"unfinished_calls", c.unfinished},
                            {"unreadable_strings", c.string_faults},
                            {"unreadable_lock_structs", c.lock_faults},
                            {"fd_path_readlinks", c.fd_readlinks}};
    return status;
  }
};

}  // namespace

std::unique_ptr<Backend> make_ptrace_backend() { return std::make_unique<PtraceBackend>(); }

}  // namespace rastro::capture
