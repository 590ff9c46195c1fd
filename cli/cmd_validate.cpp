// `rastro validate capture|replay|macro`: a validation campaign and its catalogue report.
#include <csignal>
#include <filesystem>

#include <fmt/format.h>

#include "campaign/campaign_runner.h"
#include "campaign/duration_estimate.h"
#include "campaign/report/catalogue_report.h"
#include "campaign/run_executor.h"
#include "cli/command.h"
#include "campaign/campaign_session.h"
#include "common/error.h"

namespace rastro::cli {

namespace {

struct ValidateOptions {
  std::string kind;
  std::string config_path;
  bool quick = false;
  std::string preset;
  int replicates = 0;
  uint64_t ops = 0;
  uint64_t seed = 0;
  bool no_progress = false;
  std::string out;
};

RegisterCommand register_validate{{"validate",
                     "Run a validation campaign (capture, replay, macro or mpi): replicated experiments in randomised, "
                     "resumable order, then the catalogue (JSON, Markdown, HTML with plots)",
                     130, [](CLI::App& app) {
  auto o = std::make_shared<ValidateOptions>();
  app.add_option("KIND", o->kind,
                 "capture | replay | macro | mpi (an MPI job of N ranks captured with capture --mpi, merged, and "
                 "replayed with mpirun ... rastro replay --mpi; per-rank measurands with the clock component)")
      ->required()
      ->check(CLI::IsMember({"capture", "replay", "macro", "mpi"}));
  app.add_option("--config", o->config_path, "Campaign definition (JSON; see docs/campaign.md)")->check(CLI::ExistingFile);
  app.add_flag("--quick", o->quick,
               "Small built-in campaign (types sr,sw; levels 1-2; 3 replicates; tiny runs. mpi: Open MPI, 2 ranks, 2 "
               "ring rounds, 3 replicates, the workers replayer with fs ordering)");
  app.add_option("--preset", o->preset,
                 "Built-in design: 'thesis' (capture only: RR/RW/SR/SW x levels 1-8, 5000 requests, reference, strace, "
                 "ptrace, eBPF, fio cross-check, n = 10; estimated 35 min here, run it on an idle machine)")
      ->check(CLI::IsMember({"thesis"}));
  app.add_option("--replicates,-n", o->replicates, "Override the number of replicates per cell")->check(CLI::Range(2, 1000));
  app.add_option("--ops", o->ops,
                 "Override the requests per thread of every run (e.g. a shrunk trial of a preset; mpi: ring rounds)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100000000}));
  app.add_option("--seed", o->seed, "Override the seed of the run order and workloads");
  app.add_flag("--no-progress", o->no_progress, "Do not show the progress bar");
  app.add_option("-o,--output", o->out, "Output directory (results.sqlite, catalogue.*, index.html); "
                                         "an interrupted campaign resumes from it")->required();
  app.callback([o] {
    campaign::CampaignKind kind = o->kind == "capture" ? campaign::CampaignKind::kCapture
                                  : o->kind == "replay" ? campaign::CampaignKind::kReplay
                                  : o->kind == "mpi"    ? campaign::CampaignKind::kMpi
                                                        : campaign::CampaignKind::kMacro;
    if ((o->quick ? 1 : 0) + (o->preset.empty() ? 0 : 1) + (o->config_path.empty() ? 0 : 1) > 1)
      throw Error("--quick, --preset and --config are alternatives: give one");
    if (!o->preset.empty() && kind != campaign::CampaignKind::kCapture)
      throw Error(fmt::format("--preset {} is a capture campaign, not {}", o->preset, o->kind));
    campaign::CampaignConfig config = !o->config_path.empty() ? campaign::load_config(o->config_path)
                                      : !o->preset.empty()    ? campaign::thesis_capture_config()
                                      : o->quick              ? campaign::quick_config(kind)
                                                              : campaign::default_config(kind);
    if (!o->config_path.empty() && config.kind != kind)
      throw Error(fmt::format("{}: defines a {} campaign, not {}", o->config_path, campaign::kind_name(config.kind), o->kind));
    if (o->replicates) config.replicates = o->replicates;
    if (o->ops) config.ops = o->ops;
    if (o->seed) config.seed = o->seed;
    fmt::print(stderr, "estimated duration of the whole campaign: {} (a model, +-50 %; resumable: Ctrl-C and rerun)\n",
               campaign::duration_text(campaign::estimated_duration_s(config)));
    auto result = campaign::run_campaigns({{config, o->out}}, o->out, !o->no_progress);
    fmt::print("{}", result.table);
    fmt::print("catalogue: {}\n", result.files.html);
    if (result.interrupted) {
      fmt::print(stderr, "campaign interrupted: run the same command again to resume\n");
      set_exit_code(130);
    }
  });
}}};

}  // namespace
}  // namespace rastro::cli
