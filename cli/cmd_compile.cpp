// `rastro compile`: trace -> generated C++ replayer program (ARTC-style), optionally built.
#include <chrono>

#include <fmt/format.h>

#include "cli/command.h"
#include "common/error.h"
#include "compiler/codegen/plan_codegen.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_names.h"
#include "replay/runtime/timing.h"
#include "trace/io/trace_io.h"

namespace rastro::cli {

namespace {

struct CompileOptions {
  std::string trace, out, ordering = "fs", timing = "fullspeed", cxx = "c++", opt = "-O2";
  bool build = false, verbose = false;
};

RegisterCommand register_compile{{"compile",
                     "Generate a compiled (ARTC-style) replayer for a trace: a C++ program with one thread per traced "
                     "thread, requests and dependency waits as straight-line code over static data; --build makes DIR/replay",
                     100, [](CLI::App& app) {
  auto o = std::make_shared<CompileOptions>();
  app.add_option("TRACE", o->trace, "Trace to compile")->required()->check(CLI::ExistingFile);
  app.add_option("-o,--output", o->out, "Directory for the generated program (sources, CMakeLists.txt, replay)")->required();
  app.add_option("-O,--ordering", o->ordering, "Dependency ordering: thread | fs | temporal")->capture_default_str();
  app.add_option("-T,--timing", o->timing, "Timing policy baked in: fullspeed | timestamp | think[:SPEED]")->capture_default_str();
  app.add_flag("--build", o->build, "Build it (CMake + the system compiler, warnings as errors) into DIR/replay");
  app.add_option("--cxx", o->cxx, "C++ compiler for --build")->capture_default_str();
  app.add_option("--opt", o->opt, "Optimisation flags for --build")->capture_default_str();
  app.add_flag("-v,--verbose", o->verbose, "Show the build's output");
  app.footer(
      "The program takes the run-time options of `rastro replay`: DIR/replay --root R [--init] [--force] "
      "[--drop-caches] [--rt] -o OUT.rastro [--summary-json F].");
  app.callback([o] {
    auto ordering = replay::parse_ordering(o->ordering).take();
    replay::parse_timing(o->timing).take();  // reject a bad policy before any work
    trace::ReadReport report;
    replay::PlanTrace t = replay::read_plan_trace(o->trace, &report);
    if (!report.intact) fmt::print(stderr, "warning: {}: compiling the intact prefix ({})\n", o->trace, report.problem);
    replay::Plan plan = replay::infer_plan(std::move(t), ordering).take();
    auto t0 = std::chrono::steady_clock::now();
    auto rep = compiler::generate_program(plan, {.timing = o->timing, .source = o->trace}, o->out);
    double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("generated {} files for {} requests in {} threads into {} ({:.2f} s)\n", rep.files, rep.requests,
               rep.threads, o->out, gen_s);
    if (o->build) {
      auto t1 = std::chrono::steady_clock::now();
      compiler::build_program(o->out, {.cxx = o->cxx, .opt = o->opt, .verbose = o->verbose});
      fmt::print("built {}/replay ({:.1f} s)\n", o->out,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
    }
  });
}}};

}  // namespace
}  // namespace rastro::cli
