// `rastro replay -O thread|fs|temporal -T fullspeed|timestamp|think[:SPEED] -e workers|coordinator
//  --root DIR [--init] [--force] [--drop-caches] [--rt] [--summary-json F] TRACE -o OUT.rastro`:
// the event-based replayer (SPEC §4, docs/replay.md).
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_names.h"
#include "replay/session/replay_session.h"
#include "trace/io/trace_io.h"

namespace {

using namespace rastro;

struct Options {
  std::string trace, out, root, ordering = "fs", timing = "fullspeed", engine = "workers", summary_json;
  bool init = false, force = false, drop_caches = false, rt = false;
};

void run(const Options& o) {
  auto ordering = replay::parse_ordering(o.ordering).take();
  auto engine = replay::parse_engine(o.engine).take();
  replay::SessionOptions so;
  so.root = o.root;
  so.out = o.out;
  so.summary_json = o.summary_json;
  so.init = o.init;
  so.force = o.force;
  so.drop_caches = o.drop_caches;
  so.realtime = o.rt;
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
       app.add_option("-o,--output", o->out, "Replayed trace (uniform format, replayer-side times)")->required();
       app.add_option("-O,--ordering", o->ordering, "Dependency ordering: thread, fs, temporal")->capture_default_str();
       app.add_option("-T,--timing", o->timing, "Timing: fullspeed, timestamp[:SPEED], think[:SPEED]")
           ->capture_default_str();
       app.add_option("-e,--engine", o->engine, "Engine: workers, coordinator")->capture_default_str();
       app.add_option("--root", o->root, "Sandbox root: every traced path is mapped inside it")->required();
       app.add_flag("--init", o->init, "Create the initial files/directories the trace needs inside the root");
       app.add_flag("--force", o->force, "Replay into a non-empty root as it is");
       app.add_flag("--drop-caches", o->drop_caches, "sync and drop page/dentry/inode caches before the run");
       app.add_flag("--rt", o->rt, "Run replay threads SCHED_FIFO (warns if not permitted)");
       app.add_option("--summary-json", o->summary_json, "Write the end-of-run summary as JSON");
       app.callback([o] { run(*o); });
     }}};

}  // namespace
