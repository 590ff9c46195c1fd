// `rastro capture -b BACKEND [-o T.rastro] [-e trace=SET] [--drop-caches] [--pin] [--buffer SIZE]
//  (-- CMD ARGS... | -p PID)`: records the FS syscalls of a command (and every process and thread
// it creates) or of a running process into one uniform trace; exits with the workload's status.
// With --mpi it runs as one rank of an MPI job (`mpirun … rastro capture --mpi -o DIR -- APP`):
// DIR/rank-R.rastro gets the rank's syscalls and MPI operations (docs/multinode.md).
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <cstdlib>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "capture/common/backend.h"
#include "capture/common/same_fs_check.h"
#include "capture/common/stop_signal.h"
#include "capture/common/workload_launcher.h"
#include "cli/command.h"
#include "common/background_load.h"
#include "common/clock.h"
#include "common/drop_caches.h"
#include "common/env_inventory.h"
#include "common/units.h"
#include "mpi/launch_env.h"
#include "mpi/mpi_log.h"
#include "mpi/rank_fold.h"
#include "trace/io/trace_io.h"
#include "trace/stats.h"

namespace {

using rastro::Error;
namespace capture = rastro::capture;

struct Args {
  std::string backend;
  std::string output = "trace.rastro";
  std::string trace_spec = "fs";
  bool drop_caches = false;
  bool pin = false;
  std::string buffer = "16M";
  int pid = 0;
  bool quiet = false;
  bool mpi = false;
  std::vector<std::string> command;
};

// --mpi: where this rank writes, and the interposition library its application gets.
struct MpiRank {
  rastro::mpi::LaunchEnv env;
  std::string trace_path;
  std::string log_path;
};

MpiRank prepare_mpi_rank(Args& a) {
  auto env = rastro::mpi::detect_launch_env([](const char* n) -> const char* { return std::getenv(n); });
  if (!env)
    throw Error("capture --mpi: no MPI launcher in the environment (run it as the rank: mpirun … rastro capture "
                "--mpi -o DIR -- APP)", 2);
  if (a.pid > 0) throw Error("capture --mpi: give the application after '--' (not -p PID)", 2);
  std::error_code ec;
  std::filesystem::create_directories(a.output, ec);
  if (ec || !std::filesystem::is_directory(a.output))
    throw Error(fmt::format("capture --mpi: -o {} must be a directory ({})", a.output, ec ? ec.message() : "a file is there"), 2);
  MpiRank r{*env, fmt::format("{}/rank-{}.rastro", a.output, env->rank), fmt::format("{}/rank-{}.mpi.log", a.output, env->rank)};
  const std::string lib = rastro::mpi::interposer_path(env->flavor);
  if (!std::filesystem::exists(lib))
    throw Error(fmt::format("capture --mpi: the {} interposition library {} is missing (build rastro with that MPI's "
                            "development package, or set RASTRO_PMPI_LIB)", rastro::mpi::flavor_name(env->flavor), lib), 69);
  std::filesystem::remove(r.log_path, ec);  // a stale log of an earlier run must not be folded in
  const char* old = std::getenv("LD_PRELOAD");
  ::setenv("LD_PRELOAD", (old && *old ? lib + ":" + old : lib).c_str(), 1);
  ::setenv("RASTRO_MPI_LOG", std::filesystem::absolute(r.log_path).c_str(), 1);
  a.output = r.trace_path;
  return r;
}

// After the rank's capture: its MPI log joins its trace.
void fold_mpi_rank(const MpiRank& r, const std::string& backend, bool quiet) {
  if (!std::filesystem::exists(r.log_path))
    throw Error(fmt::format("capture --mpi: rank {} wrote no MPI log ({}): did the application call MPI_Init?",
                            r.env.rank, r.log_path));
  auto log = rastro::mpi::read_rank_log(r.log_path);
  auto t = rastro::trace::read_trace(r.trace_path);
  rastro::mpi::FoldOptions fo;
  fo.log_path = std::filesystem::absolute(r.log_path).string();
  // eBPF timestamps come from the kernel's clock, which a time namespace does not shift; the
  // application's (and the log's) CLOCK_MONOTONIC is shifted.
  if (backend == "ebpf") fo.clock_shift_ns = rastro::mpi::time_namespace_monotonic_offset();
  auto rep = rastro::mpi::fold_rank_log(t, log, fo);
  t.header.extra["mpi"]["launcher"] = r.env.launcher;
  rastro::trace::write_trace(r.trace_path, t);
  if (!quiet)
    fmt::print(stderr, "rastro: capture --mpi: rank {} of {} on {}: {} MPI operations{}, in {}\n", log.rank, log.size,
               log.host, rep.mpi_events, log.finalized ? "" : " (no MPI_Finalize: clock drift not measured)",
               r.trace_path);
}

nlohmann::json rusage_delta(const rusage& a, const rusage& b) {
  return {{"voluntary_ctxt_switches", b.ru_nvcsw - a.ru_nvcsw},
          {"involuntary_ctxt_switches", b.ru_nivcsw - a.ru_nivcsw},
          {"max_rss_kib", b.ru_maxrss}};
}

void run_capture(Args a) {
  std::optional<MpiRank> mpi_rank;
  if (a.mpi) mpi_rank = prepare_mpi_rank(a);
  auto backend = capture::make_backend(a.backend);
  if (!backend) {
    std::string names;
    for (const auto& n : capture::backend_names()) names += (names.empty() ? "" : ", ") + n;
    throw Error(fmt::format("capture: unknown backend '{}' (available: {})", a.backend, names), 2);
  }
  if (a.command.empty() && a.pid <= 0) throw Error("capture: give a command after '--' or a running process with -p PID", 2);
  if (!a.command.empty() && a.pid > 0) throw Error("capture: give either a command or -p PID, not both", 2);

  capture::CaptureOptions opts;
  opts.command = a.command;
  opts.attach_pid = a.pid;
  std::string spec = a.trace_spec;
  if (spec.rfind("trace=", 0) == 0) spec = spec.substr(6);
  opts.syscalls_spec = spec;
  auto set = rastro::trace::parse_syscall_set(spec);
  if (!set) throw Error(fmt::format("capture: -e trace={}: {}", spec, set.error()), 2);
  opts.syscalls = set.value();
  opts.drop_caches = a.drop_caches;
  opts.pin = a.pin;
  auto buf = rastro::parse_size(a.buffer);
  if (!buf) throw Error(fmt::format("capture: --buffer {}: {}", a.buffer, buf.error()), 2);
  opts.buffer_bytes = buf.value();
  opts.quiet = a.quiet;

  // A command that cannot run is the shell's 127, before anything is created.
  if (!opts.command.empty()) {
    auto exe = capture::resolve_command(opts.command[0]);
    if (!exe) throw Error(fmt::format("capture: {}", exe.error()), 127);
  }
  std::vector<std::string> missing = backend->missing_requirements();
  if (!missing.empty()) {
    std::string msg = fmt::format("capture -b {}: this machine lacks what the backend needs:", a.backend);
    for (const auto& m : missing) msg += "\n  - " + m;
    throw Error(msg, 69);  // EX_UNAVAILABLE
  }

  std::vector<std::string> traced_paths;
  for (size_t i = 1; i < opts.command.size(); ++i)
    if (std::filesystem::exists(opts.command[i])) traced_paths.push_back(opts.command[i]);
  std::string warning = capture::same_fs_warning(a.output, traced_paths);
  if (!warning.empty() && !a.quiet) fmt::print(stderr, "rastro: {}\n", warning);

  if (opts.drop_caches) {
    if (auto dropped = rastro::drop_caches(); !dropped.ok()) throw Error("--drop-caches: " + dropped.error());
  }

  rastro::trace::TraceHeader header;
  header.backend = std::string(backend->name());
  header.settings = {{"syscalls", spec},       {"drop_caches", opts.drop_caches}, {"pin", opts.pin},
                     {"buffer_bytes", opts.buffer_bytes}, {"attach_pid", opts.attach_pid}};
  header.command = opts.command;
  if (opts.attach_pid > 0) header.command = {fmt::format("pid {}", opts.attach_pid)};
  header.environment = rastro::collect_environment(traced_paths.empty() ? "." : traced_paths.front());
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  header.host = host;
  utsname u{};
  ::uname(&u);
  header.kernel = u.release;
  auto anchor = rastro::take_clock_anchor();
  header.anchor_monotonic_ns = anchor.monotonic_ns;
  header.anchor_realtime_ns = anchor.realtime_ns;
  std::unique_ptr<rastro::trace::TraceSink> sink = rastro::trace::open_trace_sink(a.output, header);

  rastro::BackgroundLoadRecorder load;
  opts.background_load = &load;
  rusage before{}, after{};
  ::getrusage(RUSAGE_CHILDREN, &before);
  load.start();
  int status = 0;
  {
    capture::StopSignalScope stop_scope;
    try {
      status = backend->run(opts, *sink);
    } catch (const Error&) {
      // Keep what was captured readable, then report.
      sink->header().background_load = load.stop({});
      sink->finish();
      throw;
    }
    if (capture::stop_requested()) sink->header().extra["stopped_by_signal"] = capture::stop_signal();
  }
  nlohmann::json bg = load.stop(opts.attach_pid > 0 ? std::vector<int>{opts.attach_pid} : std::vector<int>{});
  ::getrusage(RUSAGE_CHILDREN, &after);
  bg["reaped_children_rusage"] = rusage_delta(before, after);
  auto& h = sink->header();
  h.background_load = bg;
  h.extra["workload_exit_status"] = status;
  const uint64_t captured = h.events_captured, lost = h.events_lost;
  const std::string reasons = h.lost_reasons.dump();
  const nlohmann::json reason_counts = h.lost_reasons;
  sink->finish();
  if (mpi_rank) fold_mpi_rank(*mpi_rank, a.backend, a.quiet);
  if (lost > 0) {
    fmt::print(stderr, "rastro: capture -b {}: LOST {} events ({}); {} captured in {}\n", a.backend, lost, reasons,
               captured, a.output);
    // Each reason is a row of the counter table (trace/stats.h): say what it means and what to do.
    for (const auto& reason : reason_counts.items()) {
      const rastro::trace::StatInfo* row = rastro::trace::stat_by_name(reason.key());
      if (row && reason.value().is_number_unsigned() && reason.value().get<uint64_t>() > 0)
        fmt::print(stderr, "  {} {}: {}\n", reason.key(), reason.value().get<uint64_t>(), row->description);
    }
  } else if (!a.quiet) {
    fmt::print(stderr, "rastro: capture -b {}: {} events, 0 lost, in {}\n", a.backend, captured, a.output);
  }
  rastro::cli::set_exit_code(status);
}

rastro::cli::RegisterCommand register_capture{
    {"capture", "Capture the FS syscalls of a command or process (strace, ptrace, ebpf, stap backends)", 60,
     [](CLI::App& app) {
       auto a = std::make_shared<Args>();
       app.add_option("-b,--backend", a->backend, "Instrument: strace, ptrace, ebpf or stap")->required();
       app.add_option("-o,--output", a->output, "Trace file (.rastro binary, .tsv, .csv)")->capture_default_str();
       app.add_option("-e", a->trace_spec, "Syscalls: trace=fs (default), trace=all, or a list like trace=openat,read,%sync")
           ->capture_default_str();
       app.add_flag("--drop-caches", a->drop_caches, "sync and drop page/dentry/inode caches before starting (root)");
       app.add_flag("--pin", a->pin, "Pin tracer and workload to one CPU (ptrace, strace)");
       app.add_option("--buffer", a->buffer, "Kernel ring-buffer size (ebpf), e.g. 16M")->capture_default_str();
       app.add_option("-p,--pid", a->pid, "Trace a running process (and its future children)");
       app.add_flag("-q,--quiet", a->quiet, "No summary line");
       app.add_flag("--mpi", a->mpi,
                    "Run as one rank of an MPI job (under mpirun/mpiexec/srun): -o is a directory, the rank's trace "
                    "is DIR/rank-R.rastro with its MPI operations and clock-sync rounds (then: rastro merge DIR)");
       app.add_option("command", a->command, "Command to run (after --)");
       app.callback([a] { run_capture(*a); });
     }}};

}  // namespace
