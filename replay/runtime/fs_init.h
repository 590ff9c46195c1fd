// `--init`, pass 2: create inside the root, through the sandbox resolver, the initial
// file-system state the Plan carries (Plan::init, planned by replay/passes/initial_state.h):
// directories, files (filled with real bytes, not holes, so reads behave as on written data) and
// symlinks. The state is then made durable (syncfs of the root's file system), as the traced
// program's pre-existing files were: none of init's writes is left for the replay to flush.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "replay/passes/initial_state.h"  // plan_initial_state, for plans built by hand
#include "replay/plan/plan.h"
#include "replay/runtime/sandbox_resolver.h"
#include "trace/model/trace.h"

namespace rastro::replay {

struct InitReport {
  uint64_t dirs = 0, files = 0, symlinks = 0, bytes_written = 0;
  uint64_t refused = 0;              // special or corrupt paths not created
  uint64_t kept = 0;                 // files already in the root, left exactly as they were
  int64_t sync_ns = 0;               // time the syncfs making the state durable took
  std::vector<std::string> problems; // entries that could not be created, with the reason
};

InitReport create_initial_state(const SandboxResolver& sandbox, const InitPlan& plan);

}  // namespace rastro::replay
