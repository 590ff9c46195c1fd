// `rastro replay -O thread|fs|temporal -T fullspeed|timestamp|think[:SPEED] -e workers|coordinator
//  [--coordinator-chain] --root DIR [--init] [--force [--allow-unsafe-root]] [--drop-caches] [--rt]
//  [--processes] [--think-work none|memory[:SIZE][,code[:SIZE]]] [--summary-json F] [--time-with user|ebpf] [-q] TRACE -o OUT.rastro`:
// the event-based replayer (SPEC §4, docs/replay.md). It ends by printing the summary and the fidelity
// report per call class (replayed / skipped by reason / mismatched, latency ratio, replayer overhead,
// span error; the same as `rastro compare TRACE OUT.rastro`), also written into --summary-json.
// With --mpi, run by an MPI launcher, each process replays one rank of a merged job (mpi/replay/rank_replay.h,
// docs/multinode.md).
#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "common/progress.h"
#include "mpi/replay/rank_replay.h"
#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_names.h"
#include "replay/session/replay_progress.h"
#include "replay/session/replay_session.h"
#include "replay/session/session_flags.h"
#include "trace/io/trace_io.h"

namespace {

using namespace rastro;

struct ReplayFlags {
  std::string trace, ordering = "fs", timing = "fullspeed", engine = "workers";
  replay::SessionOptions session;
  bool mpi = false, no_cross_rank_order = false, quiet = false;
  double token_timeout_s = 60;
};

void run_mpi_rank(const ReplayFlags& o) {
  mpi::RankReplayOptions ro;
  ro.job = o.trace;
  ro.out_dir = o.session.out;
  ro.ordering = replay::parse_ordering(o.ordering).take();
  ro.engine = replay::parse_engine(o.engine).take();
  ro.session = o.session;
  ro.session.timing = replay::parse_timing(o.timing).take();
  ro.session.engine_name = std::string(replay::engine_name(ro.engine));
  ro.token_timeout = std::chrono::nanoseconds(static_cast<int64_t>(o.token_timeout_s * 1e9));
  ro.cross_rank_order = !o.no_cross_rank_order;
  mpi::run_rank_replay(ro);
}

void run_replay(const ReplayFlags& o) {
  if (o.mpi) return run_mpi_rank(o);
  auto ordering = replay::parse_ordering(o.ordering).take();
  auto engine = replay::parse_engine(o.engine).take();
  replay::SessionOptions so = o.session;
  so.timing = replay::parse_timing(o.timing).take();
  so.engine_name = std::string(replay::engine_name(engine));
  so.source = o.trace;
  replay::require_call_timer(so);
  replay::prepare_root(so);  // refuse a bad root before reading and inferring the trace

  trace::ReadReport report;
  Progress progress("rastro replay", !o.quiet);
  replay::Plan plan = replay::read_and_infer_plan(o.trace, ordering, progress, &report).take();
  if (!report.intact) so.warnings.push_back(fmt::format("{}: replaying the intact prefix ({})", o.trace, report.problem));
  replay::run_replay_session(plan, so, [engine, &progress](const replay::Plan& p, const replay::SandboxResolver& s,
                                                           const replay::EngineOptions& eo) {
    if (!progress.active()) return replay::run_engine(engine, p, s, eo);
    if (eo.processes) {  // the replay processes complete requests where this process cannot count them
      progress.finish();
      return replay::run_engine(engine, p, s, eo);
    }
    replay::EngineResult res;
    {
      replay::ReplayProgress counted(progress, p.requests.size(), eo.hooks);
      replay::EngineOptions with_progress = eo;
      with_progress.hooks = &counted;
      res = replay::run_engine(engine, p, s, with_progress);
    }
    progress.finish();
    return res;
  });
}

rastro::cli::RegisterCommand register_replay{
    {"replay", "Replay a trace inside a sandbox root (event-based: workers or coordinator engine)", 90,
     [](CLI::App& app) {
       auto o = std::make_shared<ReplayFlags>();
       app.add_option("TRACE", o->trace, "Trace to replay")->required();
       app.add_option("-O,--ordering", o->ordering, "Dependency ordering: thread, fs, temporal")->capture_default_str();
       app.add_option("-T,--timing", o->timing, "Timing: fullspeed, timestamp[:SPEED], think[:SPEED]")
           ->capture_default_str();
       app.add_option("-e,--engine", o->engine, "Engine: workers, coordinator")->capture_default_str();
       app.add_flag("--coordinator-chain", o->session.coordinator_chain,
                    "coordinator engine: a worker runs its traced thread's next request itself when nothing else it "
                    "depends on is outstanding (default: every request passes through the coordinator, as in the "
                    "thesis)");
       replay::add_session_flags(app, o->session);
       app.add_flag("--mpi", o->mpi,
                    "Run as one rank of a job replay (mpirun -n N rastro replay --mpi JOB …): TRACE is the capture "
                    "directory or the merged trace, the rank replays its part in ROOT/rank-R and writes "
                    "OUT/rank-R.rastro (-o is a directory); cross-rank order is kept with MPI messages");
       app.add_option("--token-timeout", o->token_timeout_s,
                      "With --mpi: seconds a call waits for another rank's token before it goes ahead (an error)")
           ->capture_default_str()
           ->check(CLI::PositiveNumber);
       app.add_flag("-q,--quiet", o->quiet,
                    "No progress line on stderr (shown on a terminal for long runs: reading, inference, requests replayed)");
       app.add_flag("--no-cross-rank-order", o->no_cross_rank_order,
                    "With --mpi: exchange no tokens, each rank runs unordered (a control for what the order costs)");
       app.callback([o] { run_replay(*o); });
     }}};

}  // namespace
