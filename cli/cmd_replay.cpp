// `rastro replay -O thread|fs|temporal -T fullspeed|timestamp|think[:SPEED] -e workers|coordinator
//  --root DIR [--init] [--force [--allow-unsafe-root]] [--drop-caches] [--rt] [--summary-json F] TRACE -o OUT.rastro`:
// the event-based replayer (SPEC §4, docs/replay.md). It ends by printing the summary and the fidelity
// report per call class (replayed / skipped by reason / mismatched, latency ratio, span error; the
// same as `rastro compare TRACE OUT.rastro`), also written into --summary-json.
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_names.h"
#include "replay/session/replay_session.h"
#include "replay/session/session_flags.h"
#include "trace/io/trace_io.h"

namespace {

using namespace rastro;

struct Options {
  std::string trace, ordering = "fs", timing = "fullspeed", engine = "workers";
  replay::SessionOptions session;
};

void run(const Options& o) {
  auto ordering = replay::parse_ordering(o.ordering).take();
  auto engine = replay::parse_engine(o.engine).take();
  replay::SessionOptions so = o.session;
  so.timing = replay::parse_timing(o.timing).take();
  so.engine_name = std::string(replay::engine_name(engine));
  so.source = o.trace;
  replay::prepare_root(so);  // refuse a bad root before reading and inferring the trace

  trace::ReadReport report;
  trace::Trace t = trace::read_trace(o.trace, &report);
  if (!report.intact) so.warnings.push_back(fmt::format("{}: replaying the intact prefix ({})", o.trace, report.problem));
  replay::Plan plan = replay::infer_plan(std::move(t), ordering).take();
  replay::run_replay_session(plan, so, [engine](const replay::Plan& p, const replay::SandboxResolver& s,
                                                const replay::EngineOptions& eo) { return replay::run_engine(engine, p, s, eo); });
}

rastro::cli::RegisterCommand reg{
    {"replay", "Replay a trace inside a sandbox root (event-based: workers or coordinator engine)", 90,
     [](CLI::App& app) {
       auto o = std::make_shared<Options>();
       app.add_option("TRACE", o->trace, "Trace to replay")->required();
       app.add_option("-O,--ordering", o->ordering, "Dependency ordering: thread, fs, temporal")->capture_default_str();
       app.add_option("-T,--timing", o->timing, "Timing: fullspeed, timestamp[:SPEED], think[:SPEED]")
           ->capture_default_str();
       app.add_option("-e,--engine", o->engine, "Engine: workers, coordinator")->capture_default_str();
       replay::add_session_flags(app, o->session);
       app.callback([o] { run(*o); });
     }}};

}  // namespace
