#include "campaign/campaign_session.h"

#include <csignal>
#include <atomic>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "campaign/campaign_runner.h"
#include "campaign/results_store.h"
#include "campaign/run_executor.h"

namespace rastro::campaign {

namespace {
std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop.store(true); }
}  // namespace

CampaignsResult run_campaigns(const std::vector<std::pair<CampaignConfig, std::string>>& campaigns,
                              const std::string& report_dir, bool progress) {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  CampaignsResult result;
  std::vector<CampaignResults> all;
  for (const auto& [config, dir] : campaigns) {
    std::filesystem::create_directories(dir);
    auto executor = make_process_executor(config, dir + "/work");
    RunnerOptions options{.dir = dir, .progress = progress, .stop = &g_stop};
    fmt::print(stderr, "{} campaign: {} runs -> {}\n", kind_name(config.kind),
               expand_runs(config).size(), dir);
    auto summary = run_campaign(config, *executor, options);
    if (summary.already_done)
      fmt::print(stderr, "resumed: {} of {} runs were already recorded in {}/results.sqlite\n", summary.already_done,
                 summary.total, dir);
    if (summary.failed) fmt::print(stderr, "{} runs failed (recorded with their errors)\n", summary.failed);
    ResultsStore store(dir + "/results.sqlite", config.to_json());
    all.push_back({config, store.runs()});
    if (summary.interrupted) {
      result.interrupted = true;
      break;
    }
  }
  result.files = write_report(report_dir, all);
  result.table = summary_table(nlohmann::json::parse(std::ifstream(result.files.json)));
  return result;
}

}  // namespace rastro::campaign
