#include "replay/session/replay_session.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/stat.h>

#include <cerrno>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "replay/plan/plan_names.h"
#include "common/drop_caches.h"
#include "capture/ebpf/ebpf_backend.h"
#include "capture/ebpf/self_call_timer.h"
#include "replay/runtime/fs_init.h"
#include "replay/runtime/kernel_timing.h"
#include "replay/runtime/timer_bias.h"
#include "replay/session/root_guard.h"

namespace rastro::replay {

Result<CallTimer> parse_call_timer(std::string_view name) {
  if (name == "user") return CallTimer::kUserSpace;
  if (name == "ebpf") return CallTimer::kEbpf;
  return fail("unknown call timer '" + std::string(name) + "' (expected user or ebpf)");
}

std::string_view call_timer_name(CallTimer t) { return t == CallTimer::kEbpf ? "ebpf" : "user-space"; }

void require_call_timer(const SessionOptions& o) {
  if (o.time_with != CallTimer::kEbpf) return;
  std::string why;
  // The cheap checks only: SelfCallTimer::start loads the programs once, and names what the
  // kernel refused if it does.
  for (const std::string& m : capture::ebpf::missing_privileges()) why += "\n  missing: " + m;
  if (!why.empty())
    throw Error("--time-with ebpf: the eBPF capture's probes cannot time this replay (use --time-with user, the "
                "default):" + why);
}

void prepare_root(const SessionOptions& o) {
  guard_replay_root(o.root, RootPolicy{.force = o.force, .allow_unsafe_root = o.allow_unsafe_root});
}

namespace {

bool trace_makes_fifos(const CompactEvents& events) {
  CompactEvents::Reader read(events);
  for (size_t i = 0; i < events.size(); ++i) {
    const int nr = events.fields(i).nr;
    if (nr != SYS_mknod && nr != SYS_mknodat) continue;
    const trace::Event& e = read(i);
    if (S_ISFIFO(static_cast<mode_t>(e.arg(nr == SYS_mknodat ? 2 : 1).value))) return true;
  }
  return false;
}

}  // namespace

RootFifos root_fifos(const Plan& plan, bool root_was_empty) {
  return root_was_empty && !trace_makes_fifos(plan.trace.events) ? RootFifos::kNone : RootFifos::kPossible;
}

ReplaySummary run_replay_session(const Plan& plan, const SessionOptions& o, const EngineRunner& engine) {
  // A traced program that wrote to a pipe whose reader had gone got EPIPE (and survived: its
  // later calls are in the trace). The replayer must get the same EPIPE, not die of SIGPIPE —
  // for every engine and the compiled replayer, which all run through here.
  ::signal(SIGPIPE, SIG_IGN);
  const bool kernel_timed = o.time_with == CallTimer::kEbpf;
  if (o.think_work.active() && o.timing.policy == TimingPolicy::kFullspeed)
    throw Error("--think-work " + think_work_name(o.think_work) +
                ": at full speed no call waits for its time (use -T think or -T timestamp)");
  require_call_timer(o);
  const bool root_was_empty = root_is_empty(o.root);
  prepare_root(o);
  std::vector<std::string> warnings = o.warnings;
  SandboxResolver sandbox(o.root, root_fifos(plan, root_was_empty));
  nlohmann::json init_json = nullptr;
  if (o.init) {
    InitReport ir = create_initial_state(sandbox, plan.init);
    init_json = {{"dirs", ir.dirs}, {"files", ir.files}, {"symlinks", ir.symlinks},
                 {"bytes_written", ir.bytes_written}, {"sync_ms", ir.sync_ns / 1e6}, {"kept", ir.kept}, {"refused", ir.refused}, {"problems", ir.problems}};
    fmt::print(stderr, "init: {} directories, {} files ({} bytes), {} symlinks created in {}, synced in {:.1f} ms{}\n",
               ir.dirs, ir.files, ir.bytes_written, ir.symlinks, o.root, ir.sync_ns / 1e6,
               ir.kept ? fmt::format("; {} files already there kept as they are", ir.kept) : std::string());
    for (const auto& p : ir.problems) warnings.push_back("init: " + p);
  }
  if (o.drop_caches) {
    if (auto dropped = rastro::drop_caches(); !dropped.ok()) warnings.push_back("--drop-caches: " + dropped.error());
  }

  UringReplay uring(plan, o.uring);  // (throws for --uring=ring without a ring)
  if (!uring.warning().empty()) warnings.push_back(uring.warning());
  // Measured here, right before the calls, on the machine as loaded as the replay finds it.
  const trace::TimerBias bias = measure_timer_bias();
  EngineOptions eo;
  eo.timing = o.timing;
  eo.timing.think_work = o.think_work;
  eo.realtime = o.realtime;
  eo.coordinator_chain = o.coordinator_chain;
  eo.processes = o.processes;
  eo.uring = &uring;
  std::unique_ptr<capture::ebpf::SelfCallTimer> timer;
  ResolutionCalibration calibration;
  if (kernel_timed) {
    auto started = capture::ebpf::SelfCallTimer::start();
    if (!started.ok()) throw Error("--time-with ebpf: " + started.error());
    timer = std::move(started.value());
    uring.keep_issue_begins(o.processes);  // to find each call on a name's path walk (kernel_timing.h)
    eo.record_os_threads = true;  // whose calls are each request's (kernel_timing.h)
    calibration = calibrate_resolution(sandbox);
  }
  EngineResult res = engine(plan, sandbox, eo);
  // Kernel-timed: the records, decoded whole (40 bytes a request: this mode costs the memory the
  // log saves), get their calls' kernel times and are logged again; the engine's log keeps the
  // user-space ones.
  RecordLog kernel_records;
  std::optional<KernelTimingReport> kernel_timing;
  if (timer) {
    capture::ebpf::SelfCallTimes times = timer->stop();
    timer.reset();
    std::vector<RequestRecord> records = res.log.decode();
    kernel_timing = apply_kernel_timing(plan, records, std::move(times), uring.issue_begins(), calibration,
                                        res.os_threads);
    kernel_records = RecordLog::encode(plan.requests, records);
    if (kernel_timing->lost > 0 || !kernel_timing->drain_error.empty())
      warnings.push_back(fmt::format("--time-with ebpf: {} probe record(s) lost{}; their calls keep user-space times",
                                     kernel_timing->lost, kernel_timing->drain_error.empty() ? "" : ", " + kernel_timing->drain_error));
  }
  nlohmann::json uring_json = {{"mode", uring.active() ? "ring" : "plain"}};
  if (uring.active()) {
    uring_json["traced_depth_max"] = uring.traced_depth();
    uring_json["in_flight_max"] = uring.max_in_flight();
    fmt::print(stderr, "io_uring: requests submitted through io_uring, traced queue depth max {}, in flight max {}\n",
               uring.traced_depth(), uring.max_in_flight());
  }
  for (auto& w : res.warnings) warnings.push_back("--rt: " + w);

  const RecordLog& records = kernel_timing ? kernel_records : res.log;
  // Timed like the capture, nothing is to be corrected: no bias. The user-space report keeps it.
  ReplaySummary s = summarize_replay(plan.trace, records, res.stats, res.dependency_waits, res.wall_ns,
                                     kernel_timed ? trace::TimerBias{} : bias);
  s.fidelity.timed_with = call_timer_name(o.time_with);
  if (kernel_timing) {
    s.kernel_timing = kernel_timing;
    s.fidelity_user_space =
        summarize_replay(plan.trace, res.log, res.stats, res.dependency_waits, res.wall_ns, bias).fidelity;
    s.fidelity_user_space->timed_with = call_timer_name(CallTimer::kUserSpace);
  }
  s.replay_processes = res.replay_processes;
  s.engine = o.engine_name;
  s.ordering = std::string(ordering_name(plan.ordering));
  s.timing = timing_name(eo.timing);
  s.warnings = warnings;

  trace::TraceHeader h;
  h.backend = "replay-" + s.engine;
  h.settings = {{"source_trace", o.source},  {"source_backend", plan.trace.header.backend},
                {"engine", s.engine},        {"ordering", s.ordering},
                {"timing", s.timing},        {"root", o.root},
                {"init", o.init},            {"drop_caches", o.drop_caches},
                {"realtime", o.realtime},    {"processes", o.processes},
                {"init_report", init_json},
                {"uring", uring_json},       {"timer_bias", (kernel_timed ? trace::TimerBias{} : bias).to_json()},
                {"timed_with", call_timer_name(o.time_with)}};
  if (kernel_timing) h.settings["kernel_timing"] = kernel_timing->to_json();
  h.command = plan.trace.header.command;
  h.host = plan.trace.header.host;
  ClockAnchor a = take_clock_anchor();
  h.anchor_monotonic_ns = a.monotonic_ns;
  h.anchor_realtime_ns = a.realtime_ns;
  write_replay_trace(o.out, h, plan.trace, records, s);
  if (!o.summary_json.empty()) write_summary_json(o.summary_json, s);
  for (const auto& w : warnings) fmt::print(stderr, "warning: {}\n", w);
  std::cout << s.to_text() << std::flush;
  return s;
}

}  // namespace rastro::replay
