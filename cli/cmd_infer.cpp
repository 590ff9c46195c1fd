// `rastro infer -O thread|fs|temporal TRACE [-o PLAN.json] [--dot G.dot] [--json] [-q]`: builds the
// replay plan (SPEC §4, docs/replay-plan.md) and prints its figures.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/atomic_write.h"
#include "common/error.h"
#include "common/progress.h"
#include "replay/passes/pass_dump.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_dot.h"
#include "replay/plan/plan_json.h"
#include "replay/plan/plan_names.h"
#include "trace/io/trace_io.h"

namespace {

using namespace rastro;

void print_figures(const replay::Plan& plan, const std::string& path) {
  const auto& f = plan.figures;
  std::string actions;
  for (int a = 0; a < replay::kRequestActions; ++a)
    actions += fmt::format("{}{} {}", a ? ", " : "", replay::action_name(static_cast<replay::RequestAction>(a)), f.by_action[a]);
  uint64_t edges = 0;
  std::string kinds;
  for (int k = 0; k < replay::kEdgeKinds; ++k) {
    edges += f.edges_by_kind[k];
    kinds += fmt::format("{}{} {}", k ? ", " : "", replay::edge_kind_name(static_cast<replay::EdgeKind>(k)), f.edges_by_kind[k]);
  }
  fmt::print("plan of {} (ordering {})\n", path, replay::ordering_name(plan.ordering));
  fmt::print("  {:<18}{:>12}  ({}; failed in trace {})\n", "requests", f.requests, actions, f.failed);
  fmt::print("  {:<18}{:>12}\n", "threads", plan.threads.size());
  fmt::print("  {:<18}{:>12}  ({})\n", "edges", edges, kinds);
  fmt::print("  {:<18}{:>12.3f}  µs (longest chain of traced durations: fullspeed lower bound)\n",
             "critical path", static_cast<double>(f.critical_path_ns) / 1e3);
  fmt::print("  {:<18}{:>12}\n", "max parallelism", f.max_parallelism);
  fmt::print("  {:<18}{:>12.2f}\n", "mean parallelism", f.mean_parallelism);
  fmt::print("  {:<18}{:>12}  (requests with no dependency)\n", "unconstrained", f.unconstrained);
  fmt::print("  {:<18}{:>12}  (fds used with no traced creator)\n", "inherited fds", f.inherited_fds);
  fmt::print("  {:<18}{:>12}  (relative names or dirfds against an unknown directory)\n", "unresolved paths",
             f.unresolved_paths);
}

cli::RegisterCommand register_infer{
    {"infer", "Infer the replay plan (thread/fs/temporal dependencies) of a trace and print its figures", 80,
     [](CLI::App& app) {
       struct Opts {
         std::string trace, ordering = "fs", plan_out, dot_out, dump_after;
         bool json = false, quiet = false;
       };
       auto o = std::make_shared<Opts>();
       app.add_option("TRACE", o->trace, "Trace file (.rastro, .tsv or .csv)")->required();
       app.add_option("-O,--ordering", o->ordering, "Ordering: thread, fs (ARTC ROOT) or temporal")
           ->check(CLI::IsMember({"thread", "fs", "temporal"}))
           ->capture_default_str();
       app.add_option("-o,--output", o->plan_out, "Write the plan as JSON (docs/replay-plan.md)");
       app.add_option("--dot", o->dot_out, "Write the dependency DAG as Graphviz (edge colour = kind)");
       app.add_flag("--json", o->json, "Print the figures as JSON instead of a table");
       app.add_option("--dump-after", o->dump_after,
                      "Print to stderr what the inference has worked out after this pass, one line per request "
                      "(after 'plan': the plan's JSON)")
           ->check(CLI::IsMember(replay::AllReplayPasses().names()));
       app.add_flag("-q,--quiet", o->quiet, "No progress line on stderr (shown on a terminal for long runs)");
       app.callback([o] {
         const replay::Ordering ordering = replay::parse_ordering(o->ordering).take();
         trace::ReadReport rep;
         Progress progress("rastro infer", !o->quiet && o->dump_after.empty());  // (the dump writes to stderr too)
         replay::PassHook dump;
         if (!o->dump_after.empty()) {
           dump = [o](const std::string& pass, const replay::InferContext& ctx) {
             if (pass == o->dump_after) replay::dump_after_pass(std::cerr, pass, ctx);
           };
         }
         auto planned = replay::read_and_infer_plan(o->trace, ordering, progress, &rep, dump);
         if (!planned.ok()) throw Error(fmt::format("{}: inference failed: {}", o->trace, planned.error()));
         const replay::Plan& plan = planned.value();
         if (!o->plan_out.empty())
           write_file_atomically(o->plan_out, [&](std::ostream& out) { replay::write_plan_json(out, plan); });
         if (!o->dot_out.empty())
           write_file_atomically(o->dot_out, [&](std::ostream& out) { replay::write_plan_dot(out, plan); });
         if (o->json) {
           auto j = replay::figures_json(plan);
           j["trace"] = o->trace;
           j["trace_intact"] = rep.intact;
           fmt::print("{}\n", j.dump(2));
         } else {
           print_figures(plan, o->trace);
         }
         if (!rep.intact) {
           fmt::print(stderr, "rastro infer: {}: the plan covers only the intact prefix: {}\n", o->trace, rep.problem);
           cli::set_exit_code(2);
         }
       });
     }}};

}  // namespace
