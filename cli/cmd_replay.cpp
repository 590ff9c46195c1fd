// `rastro replay -O thread|fs|temporal -T fullspeed|timestamp|think[:SPEED] -e workers|coordinator
//  --root DIR [--init] [--force] [--drop-caches] [--rt] [--summary-json F] TRACE -o OUT.rastro`:
// the event-based replayer (SPEC §4, docs/replay.md).
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/clock.h"
#include "common/error.h"
#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_names.h"
#include "replay/runtime/fs_init.h"
#include "replay/runtime/replay_output.h"
#include "trace/io/trace_io.h"

namespace {

using namespace rastro;

struct Options {
  std::string trace, out, root, ordering = "fs", timing = "fullspeed", engine = "workers", summary_json;
  bool init = false, force = false, drop_caches = false, rt = false;
};

bool dir_is_empty(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (!d) throw Error(fmt::format("--root '{}': {}", path, std::strerror(errno)));
  bool empty = true;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) {
      empty = false;
      break;
    }
  }
  closedir(d);
  return empty;
}

// The root must be a directory; a missing one is created (its parent must exist). A non-empty
// root is refused unless the user said what to do with it: a leftover root from an earlier run
// would silently change what the replay finds.
void prepare_root(const Options& o) {
  struct stat st;
  if (stat(o.root.c_str(), &st) != 0) {
    if (errno != ENOENT || mkdir(o.root.c_str(), 0755) != 0) {
      throw Error(fmt::format("--root '{}': cannot create it: {}", o.root, std::strerror(errno)));
    }
    return;
  }
  if (!S_ISDIR(st.st_mode)) throw Error(fmt::format("--root '{}': not a directory", o.root));
  if (!o.init && !o.force && !dir_is_empty(o.root)) {
    throw Error(fmt::format(
        "--root '{}' is not empty: pass --init to add the trace's initial state to it, or --force to "
        "replay into it as it is (or use an empty directory)",
        o.root));
  }
}

void run(const Options& o) {
  auto ordering = replay::parse_ordering(o.ordering).take();
  auto timing = replay::parse_timing(o.timing).take();
  auto engine = replay::parse_engine(o.engine).take();
  prepare_root(o);

  trace::ReadReport report;
  trace::Trace t = trace::read_trace(o.trace, &report);
  std::vector<std::string> warnings;
  if (!report.intact) warnings.push_back(fmt::format("{}: replaying the intact prefix ({})", o.trace, report.problem));
  trace::TraceHeader source_header = t.header;
  replay::Plan plan = replay::infer_plan(std::move(t), ordering).take();

  replay::SandboxResolver sandbox(o.root);
  nlohmann::json init_json = nullptr;
  if (o.init) {
    replay::InitPlan ip = replay::plan_initial_state(plan.trace);
    replay::InitReport ir = replay::create_initial_state(sandbox, ip);
    init_json = {{"dirs", ir.dirs}, {"files", ir.files}, {"symlinks", ir.symlinks},
                 {"bytes_written", ir.bytes_written}, {"refused", ir.refused}, {"problems", ir.problems}};
    fmt::print(stderr, "init: {} directories, {} files ({} bytes), {} symlinks created in {}\n", ir.dirs,
               ir.files, ir.bytes_written, ir.symlinks, o.root);
    for (const auto& p : ir.problems) warnings.push_back("init: " + p);
  }
  if (o.drop_caches) {
    std::string why;
    if (!replay::drop_caches(&why)) warnings.push_back("--drop-caches: " + why);
  }

  replay::EngineOptions eo;
  eo.timing = timing;
  eo.realtime = o.rt;
  replay::EngineResult res = replay::run_engine(engine, plan, sandbox, eo);
  for (auto& w : res.warnings) warnings.push_back("--rt: " + w);

  auto events = replay::request_events(plan);
  replay::ReplaySummary s =
      replay::summarize_replay(plan.trace, events, res.records, res.stats, res.dependency_waits, res.wall_ns);
  s.engine = std::string(replay::engine_name(engine));
  s.ordering = std::string(replay::ordering_name(ordering));
  s.timing = replay::timing_name(timing);
  s.warnings = warnings;

  trace::TraceHeader h;
  h.backend = "replay-" + s.engine;
  h.settings = {{"source_trace", o.trace}, {"source_backend", source_header.backend},
                {"engine", s.engine},      {"ordering", s.ordering},
                {"timing", s.timing},      {"root", o.root},
                {"init", o.init},          {"drop_caches", o.drop_caches},
                {"realtime", o.rt},        {"init_report", init_json}};
  h.command = source_header.command;
  h.host = source_header.host;
  ClockAnchor a = take_clock_anchor();
  h.anchor_monotonic_ns = a.monotonic_ns;
  h.anchor_realtime_ns = a.realtime_ns;
  replay::write_replay_trace(o.out, h, plan.trace, events, res.records, s);
  if (!o.summary_json.empty()) replay::write_summary_json(o.summary_json, s);
  for (const auto& w : warnings) fmt::print(stderr, "warning: {}\n", w);
  std::cout << s.to_text() << std::flush;
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
