// `rastro capture -b stap`: runs SystemTap with the generated script (stap_script.h) on the
// command and converts its output (stap_output_parser.h). Refuses, listing every missing piece,
// when this machine cannot run SystemTap (stap_requirements.h).
#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "capture/common/backend_factories.h"
#include "capture/common/stop_signal.h"
#include "capture/common/workload_launcher.h"
#include "capture/stap/stap_output_parser.h"
#include "capture/stap/stap_requirements.h"
#include "capture/stap/stap_script.h"
#include "common/clock.h"
#include "common/error.h"
#include "trace/stats.h"

namespace rastro::capture {

namespace {

// Quotes one argv word for stap's -c, which is run through a shell.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out.push_back(c);
  }
  return out + "'";
}

class StapBackend final : public Backend {
 public:
  std::string_view name() const override { return "stap"; }
  std::vector<std::string> missing_requirements() const override { return check_stap_requirements().missing; }

  int run(const CaptureOptions& options, trace::TraceSink& sink) override {
    StapRuntimeChoice choice = check_stap_requirements();
    if (!choice.missing.empty()) {
      std::string msg = "capture -b stap: this machine cannot run SystemTap:";
      for (const auto& m : choice.missing) msg += "\n  - " + m;
      throw Error(msg, 69);
    }
    if (options.attach_pid > 0) throw Error("capture -b stap: -p PID is not supported (stap -x traces one pid, not its tree)", 2);
    auto dir = std::filesystem::temp_directory_path() / fmt::format("rastro-stap-{}", ::getpid());
    std::filesystem::create_directories(dir);
    std::string script = (dir / "capture.stp").string(), out = (dir / "capture.out").string();
    {
      std::ofstream f(script);
      f << generate_stap_script(options.syscalls, options.syscalls_spec);
    }
    std::string cmd;
    for (const auto& a : options.command) cmd += (cmd.empty() ? "" : " ") + shell_quote(a);
    LaunchSpec spec;
    spec.argv = {"stap", "-o", out, "-c", cmd, script};
    if (choice.use_bpf_runtime) spec.argv.insert(spec.argv.begin() + 1, "--runtime=bpf");
    ClockAnchor anchor = take_clock_anchor();
    WorkloadLauncher launcher;
    become_subreaper();
    pid_t pid = launcher.spawn(spec);
    set_stop_forward_pid(pid);
    launcher.release();
    int stap_status = wait_all_children(pid);
    set_stop_forward_pid(0);
    std::ifstream in(out);
    if (!in) throw Error(fmt::format("capture -b stap: stap exited with status {} and wrote no output ({})", stap_status, out));
    StapParseStats st = parse_stap_output(in, sink, anchor.monotonic_ns - anchor.realtime_ns);
    auto& h = sink.header();
    h.events_captured = st.events;
    h.events_lost = st.malformed;
    trace::set_lost_reason(h.lost_reasons, trace::kStat_stap_malformed_lines, st.malformed);
    h.settings["stap"] = {{"runtime", choice.use_bpf_runtime ? "bpf" : "module"},
                          {"stap_exit_status", stap_status},
                          {"ignored_lines", st.ignored_lines},
                          {"first_malformed", st.first_malformed}};
    std::filesystem::remove_all(dir);
    // stap -c does not report the command's status; stap's own is the best we have.
    return stap_status;
  }
};

}  // namespace

std::unique_ptr<Backend> make_stap_backend() { return std::make_unique<StapBackend>(); }

}  // namespace rastro::capture
