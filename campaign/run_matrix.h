// Expands a campaign definition into its runs: every combination of factors × replicates, in a
// randomised (seeded) order, each with a stable key so a resumed campaign finds what it has done.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "campaign/campaign_config.h"

namespace rastro::campaign {

struct RunSpec {
  std::string key;         // stable id: all factors + replicate
  std::string cell;        // all factors except the replicate
  std::string instrument;  // capture: reference/strace/ptrace/ebpf/stap; replay: workers/coordinator/compiled
  std::string type;        // rr/rw/sr/sw (macro: "fileserver")
  int level = 1;
  int background = 0;
  int pause_us = 0;
  std::string ordering;    // replay only
  std::string timing;      // replay only
  std::string cache = "cold";  // cache state: cold (dropped after layout) or warm (files read once)
  int replicate = 0;

  // The name the catalogue groups this run under: e.g. "ebpf", "workers/fs/fullspeed".
  std::string catalogue_instrument() const;
  nlohmann::json to_json() const;
};

std::vector<RunSpec> expand_runs(const CampaignConfig& config);
// The fio cross-check run of a capture instrument: "fio" for the reference, else "fio+<instrument>".
std::string fio_instrument(const std::string& capture_instrument);
// Fills key and cell from the factors.
void assign_keys(RunSpec& run);

}  // namespace rastro::campaign
