#include "replay/session/replay_session.h"

#include <signal.h>
#include <sys/stat.h>

#include <cerrno>
#include <iostream>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "replay/plan/plan_names.h"
#include "common/drop_caches.h"
#include "replay/runtime/fs_init.h"
#include "replay/runtime/timer_bias.h"
#include "replay/session/root_guard.h"

namespace rastro::replay {

void prepare_root(const SessionOptions& o) {
  guard_replay_root(o.root, RootPolicy{.force = o.force, .allow_unsafe_root = o.allow_unsafe_root});
}

ReplaySummary run_replay_session(const Plan& plan, const SessionOptions& o, const EngineRunner& engine) {
  // A traced program that wrote to a pipe whose reader had gone got EPIPE (and survived: its
  // later calls are in the trace). The replayer must get the same EPIPE, not die of SIGPIPE —
  // for every engine and the compiled replayer, which all run through here.
  ::signal(SIGPIPE, SIG_IGN);
  prepare_root(o);
  std::vector<std::string> warnings = o.warnings;
  SandboxResolver sandbox(o.root);
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
  eo.realtime = o.realtime;
  eo.coordinator_chain = o.coordinator_chain;
  eo.uring = &uring;
  EngineResult res = engine(plan, sandbox, eo);
  nlohmann::json uring_json = {{"mode", uring.active() ? "ring" : "plain"}};
  if (uring.active()) {
    uring_json["traced_depth_max"] = uring.traced_depth();
    uring_json["in_flight_max"] = uring.max_in_flight();
    fmt::print(stderr, "io_uring: requests submitted through io_uring, traced queue depth max {}, in flight max {}\n",
               uring.traced_depth(), uring.max_in_flight());
  }
  for (auto& w : res.warnings) warnings.push_back("--rt: " + w);

  auto events = request_events(plan);
  ReplaySummary s = summarize_replay(plan.trace, events, res.records, res.stats, res.dependency_waits, res.wall_ns, bias);
  s.engine = o.engine_name;
  s.ordering = std::string(ordering_name(plan.ordering));
  s.timing = timing_name(o.timing);
  s.warnings = warnings;

  trace::TraceHeader h;
  h.backend = "replay-" + s.engine;
  h.settings = {{"source_trace", o.source},  {"source_backend", plan.trace.header.backend},
                {"engine", s.engine},        {"ordering", s.ordering},
                {"timing", s.timing},        {"root", o.root},
                {"init", o.init},            {"drop_caches", o.drop_caches},
                {"realtime", o.realtime},    {"init_report", init_json},
                {"uring", uring_json},       {"timer_bias", bias.to_json()}};
  h.command = plan.trace.header.command;
  h.host = plan.trace.header.host;
  ClockAnchor a = take_clock_anchor();
  h.anchor_monotonic_ns = a.monotonic_ns;
  h.anchor_realtime_ns = a.realtime_ns;
  write_replay_trace(o.out, h, plan.trace, events, res.records, s);
  if (!o.summary_json.empty()) write_summary_json(o.summary_json, s);
  for (const auto& w : warnings) fmt::print(stderr, "warning: {}\n", w);
  std::cout << s.to_text() << std::flush;
  return s;
}

}  // namespace rastro::replay
