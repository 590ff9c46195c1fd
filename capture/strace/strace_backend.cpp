// `rastro capture -b strace`: the thesis's user-space instrument. Runs the system strace
//   strace -f -y -qq --absolute-timestamps=format:unix,precision:ns --syscall-times=ns
//          --seccomp-bpf -e trace=SET -o TMPFILE -- CMD...
// and converts its log with the strace importer. strace prints wall-clock times; a clock anchor
// taken right before strace starts maps them onto CLOCK_MONOTONIC (the trace's one clock), so
// strace traces line up with the other backends'.
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "capture/common/backend_factories.h"
#include "capture/common/stop_signal.h"
#include "capture/common/workload_launcher.h"
#include "common/clock.h"
#include "common/error.h"
#include "trace/importers/strace/strace_import.h"

namespace rastro::capture {

namespace {

// strace's -e trace= list for a syscall set: names from the one syscall table, each prefixed with
// '?' so a strace older than the kernel (Debian 12's 6.1 knows nothing after 450) skips the names
// it does not know instead of refusing to start; those calls are then not captured by this backend.
std::string strace_trace_list(const trace::SyscallSet& set) {
  if (set.all) return "all";
  std::string out;
  for (int nr : set.numbers())
    if (const trace::SyscallInfo* info = trace::syscall_by_nr(nr)) out += (out.empty() ? "?" : ",?") + std::string(info->name);
  return out;
}

class StraceBackend final : public Backend {
 public:
  std::string_view name() const override { return "strace"; }

  std::vector<std::string> missing_requirements() const override {
    std::vector<std::string> missing;
    if (!resolve_command("strace").ok())
      missing.push_back("strace is not installed: `strace` is not in PATH (Debian package `strace`)");
    return missing;
  }

  int run(const CaptureOptions& options, trace::TraceSink& sink) override {
    std::string list = strace_trace_list(options.syscalls);
    if (list.empty()) throw Error(fmt::format("capture -b strace: -e trace={} selects no syscall", options.syscalls_spec), 2);
    if (!options.command.empty()) {
      auto exe = resolve_command(options.command[0]);
      if (!exe) throw Error(fmt::format("capture: {}", exe.error()), 127);
    }
    auto dir = std::filesystem::temp_directory_path() / fmt::format("rastro-strace-{}", ::getpid());
    std::filesystem::create_directories(dir);
    std::string log = (dir / "strace.log").string();
    std::vector<std::string> argv = {"strace", "-f", "-y", "-qq", "--absolute-timestamps=format:unix,precision:ns",
                                     "--syscall-times=ns", "-e", "trace=" + list, "-o", log};
    // A seccomp filter lets untraced syscalls run without stops; it needs a launched command.
    if (!options.syscalls.all && options.attach_pid <= 0) argv.push_back("--seccomp-bpf");
    if (options.attach_pid > 0) {
      argv.push_back("-p");
      argv.push_back(std::to_string(options.attach_pid));
    } else {
      argv.push_back("--");
      argv.insert(argv.end(), options.command.begin(), options.command.end());
    }
    int cpu = -1;
    if (options.pin) cpu = ::sched_getcpu();  // strace and (by inheritance) the workload on one CPU
    LaunchSpec spec{argv, [cpu]() -> int {
                      if (cpu < 0) return 0;
                      cpu_set_t set;
                      CPU_ZERO(&set);
                      CPU_SET(cpu, &set);
                      return ::sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
                    }};
    ClockAnchor anchor = take_clock_anchor();
    WorkloadLauncher launcher;
    become_subreaper();
    pid_t pid = launcher.spawn(spec);
    launcher.release();
    // A stop request goes to the workload, not to strace: strace would detach and kill it
    // without a trace of how it ended. strace's children are the workload's first processes.
    int forwarded = 0;
    int status = wait_all_children(pid, [&] {
      if (!stop_requested() || forwarded >= 2) return;
      int sig = forwarded++ == 0 ? stop_signal() : SIGKILL;
      std::ifstream children(fmt::format("/proc/{}/task/{}/children", pid, pid));
      int child;
      while (children >> child) ::kill(child, sig);
    });
    std::string failure = launcher.launch_failure();
    if (!failure.empty()) throw Error(failure, 127);

    std::ifstream in(log);
    if (!in) throw Error(fmt::format("capture -b strace: strace exited with status {} and wrote no log {}", status, log));
    if (sink.header().backend.empty()) sink.header().backend = "strace";
    trace::StraceImportOptions io;
    io.clock_offset_ns = anchor.monotonic_ns - anchor.realtime_ns;
    io.fill_header = true;
    trace::ImportReport report = trace::import_strace(in, log, sink, io);
    sink.header().clock = "CLOCK_MONOTONIC";
    sink.header().settings["strace"] = {{"argv", argv}, {"problems", report.problems}};
    if (report.has_errors()) {
      std::ostringstream os;
      report.print(os);
      throw Error(fmt::format("capture -b strace: the strace log {} could not be fully converted:\n{}", log, os.str()));
    }
    std::filesystem::remove_all(dir);
    return status;
  }
};

}  // namespace

std::unique_ptr<Backend> make_strace_backend() { return std::make_unique<StraceBackend>(); }

}  // namespace rastro::capture
