// Runs a campaign: every run of the matrix not yet in the results store, in the seeded random
// order, retrying a failed run, committing each outcome as it ends, with a progress line.
#pragma once

#include <atomic>
#include <string>

#include "campaign/campaign_config.h"
#include "campaign/run_executor.h"

namespace rastro::campaign {

struct RunnerOptions {
  std::string dir;                       // output directory (results.sqlite lives here)
  bool progress = true;                  // progress bar with ETA on stderr
  const std::atomic<bool>* stop = nullptr;  // set by SIGINT: finish cleanly, keep state
  int max_runs = -1;                     // stop after this many runs (tests: simulated interruption)
};

struct RunnerSummary {
  size_t total = 0;
  size_t already_done = 0;
  size_t executed = 0;
  size_t failed = 0;
  size_t unavailable = 0;
  bool interrupted = false;
};

RunnerSummary run_campaign(const CampaignConfig& config, RunExecutor& executor, const RunnerOptions& options);

}  // namespace rastro::campaign
