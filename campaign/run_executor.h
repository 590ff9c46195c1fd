// Executes one run of a campaign. The campaign runner only sees this interface, so tests can
// drive the runner (ordering, retries, resume) with a deterministic executor.
#pragma once

#include <string>

#include "campaign/campaign_config.h"
#include "campaign/results_store.h"
#include "campaign/run_matrix.h"

namespace rastro::campaign {

class RunExecutor {
 public:
  virtual ~RunExecutor() = default;
  // Empty when the instrument/replayer can run here, else why not (shown in the catalogue).
  virtual std::string unavailable(const std::string& instrument) = 0;
  // Runs one experiment and returns its measurements (never throws for a failed run: the
  // outcome says what went wrong).
  virtual RunOutcome execute(const RunSpec& run) = 0;
};

// The real executor: drives `rastro bench`, `rastro capture`, `rastro replay`, `rastro compile`
// and `rastro load` as child processes inside `work_dir`.
std::unique_ptr<RunExecutor> make_process_executor(const CampaignConfig& config, const std::string& work_dir);

}  // namespace rastro::campaign
