// `rastro demo`: the main job on its built-in default — capture, replay and a metrology report of
// a small workload.
#include <filesystem>

#include <fmt/format.h>

#include "campaign/campaign_session.h"
#include "campaign/demo_config.h"
#include "campaign/duration_estimate.h"
#include "cli/command.h"

namespace rastro::cli {

namespace {

struct DemoOptions {
  std::string out = "out/demo";
  int replicates = 10;
  bool resume = false;
  bool no_progress = false;
};

RegisterCommand register_demo{{"demo",
                     "The main job: a small validation campaign — SR and SW micro-benchmarks at load levels 1-2, "
                     "run uninstrumented (the reference) and captured by eBPF, ptrace and strace in one randomised "
                     "order, replayed by the workers, coordinator and compiled replayers — and its catalogue report "
                     "(index.html: bias against the uninstrumented runs, split into perturbation and recording error)",
                     5, [](CLI::App& app) {
  auto o = std::make_shared<DemoOptions>();
  app.add_option("-o,--output", o->out, "Output directory")->capture_default_str();
  app.add_option("--replicates,-n", o->replicates, "Replicates per cell")->check(CLI::Range(2, 100))->capture_default_str();
  app.add_flag("--resume", o->resume, "Continue an interrupted demo in the output directory instead of starting afresh");
  app.add_flag("--no-progress", o->no_progress, "Do not show the progress bar");
  app.callback([o] {
    if (!o->resume) {
      std::error_code ec;
      std::filesystem::remove_all(o->out + "/capture", ec);
      std::filesystem::remove_all(o->out + "/replay", ec);
    }
    const auto capture = campaign::demo_capture_config(o->replicates), replay = campaign::demo_replay_config(o->replicates);
    fmt::print(stderr, "estimated duration: {} (a model, +-50 %)\n",
               campaign::duration_text(campaign::estimated_duration_s(capture) + campaign::estimated_duration_s(replay)));
    auto result = campaign::run_campaigns({{capture, o->out + "/capture"}, {replay, o->out + "/replay"}}, o->out,
                                          !o->no_progress);
    fmt::print("{}", result.table);
    fmt::print("\ncatalogue: {}\n", std::filesystem::absolute(result.files.html).string());
    if (result.interrupted) {
      fmt::print(stderr, "demo interrupted: `rastro demo --resume -o {}` continues it\n", o->out);
      set_exit_code(130);
    }
  });
}}};

}  // namespace
}  // namespace rastro::cli
