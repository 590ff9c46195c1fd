#include "campaign/campaign_runner.h"

#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "campaign/progress_bar.h"
#include "campaign/results_store.h"
#include "campaign/run_matrix.h"

namespace rastro::campaign {

RunnerSummary run_campaign(const CampaignConfig& config, RunExecutor& executor, const RunnerOptions& options) {
  std::filesystem::create_directories(options.dir);
  ResultsStore store(options.dir + "/results.sqlite", config.to_json());
  std::vector<RunSpec> runs = expand_runs(config);
  auto done = store.finished();
  RunnerSummary summary;
  summary.total = runs.size();

  std::map<std::string, std::string> unavailable;  // instrument -> reason (asked once)
  ProgressBar bar(runs.size(), options.progress);
  size_t position = 0;
  for (const auto& run : runs) {
    ++position;
    if (done.count(run.key)) {
      ++summary.already_done;
      continue;
    }
    if (options.stop && options.stop->load()) {
      summary.interrupted = true;
      break;
    }
    if (options.max_runs >= 0 && summary.executed + summary.unavailable >= static_cast<size_t>(options.max_runs)) {
      summary.interrupted = true;
      break;
    }
    bar.update(position - 1, run.key);
    auto it = unavailable.find(run.instrument);
    if (it == unavailable.end()) it = unavailable.emplace(run.instrument, executor.unavailable(run.instrument)).first;
    if (!it->second.empty()) {
      RunOutcome outcome;
      outcome.error = "unavailable: " + it->second;
      store.record(run, outcome, 0);
      ++summary.unavailable;
      continue;
    }
    RunOutcome outcome;
    int attempts = 0;
    for (; attempts <= config.retries; ++attempts) {
      auto t0 = std::chrono::steady_clock::now();
      outcome = executor.execute(run);
      outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (outcome.ok || (options.stop && options.stop->load())) break;
    }
    if (options.stop && options.stop->load() && !outcome.ok) {
      summary.interrupted = true;  // the run was cut short by the user: not recorded, redone on resume
      break;
    }
    store.record(run, outcome, attempts + (outcome.ok ? 1 : 0));
    ++summary.executed;
    if (!outcome.ok) {
      ++summary.failed;
      fmt::print(stderr, "\nrun {} failed after {} attempts: {}\n", run.key, attempts, outcome.error);
    }
  }
  bar.update(summary.interrupted ? position - 1 : runs.size(), summary.interrupted ? "interrupted" : "done");
  bar.finish();
  return summary;
}

}  // namespace rastro::campaign
