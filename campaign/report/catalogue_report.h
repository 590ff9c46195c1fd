// The catalogue (SPEC §6.5, thesis App. B/C): from stored campaign results, the entries per
// instrument × workload type × level × background (via metrology::analyze_results), written as
// catalogue.json (machine-readable), catalogue.md (the thesis layout) and index.html (a
// self-contained page with SVG plots). results.csv is the input `rastro analyze` takes, so every
// number can be reproduced from it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibration/catalogue_entry.h"
#include "campaign/campaign_config.h"
#include "campaign/results_store.h"
#include "metrology/experiment_result.h"

namespace rastro::campaign {

struct CampaignResults {
  CampaignConfig config;
  std::vector<StoredRun> runs;
};

struct ReportFiles {
  std::string csv, json, markdown, html;  // csv: one path, or one per campaign (space-separated)
};

// The rows `rastro analyze` takes for one campaign, each with its cell's reference
// (campaign/report/cell_reference.h), in a stable order.
std::vector<metrology::ExperimentResult> analysis_rows(const CampaignResults& campaign);
// Rows of the analyze contract: instrument,type,level,background,replicate,measured,reference,reference_u.
std::string results_csv(const std::vector<CampaignResults>& campaigns);
// Entries of every campaign, each analysed on its own rows (so a campaign's reference replicates
// are the F-test reference of that campaign only).
std::vector<calibration::CatalogueEntry> analyze_campaigns(const std::vector<CampaignResults>& campaigns);
nlohmann::json build_catalogue(const std::vector<CampaignResults>& campaigns);
ReportFiles write_report(const std::string& dir, const std::vector<CampaignResults>& campaigns);
// A short plain-text table of the catalogue for the terminal.
std::string summary_table(const nlohmann::json& catalogue);
// A level or background value as people write it ("1", not "1.0").
std::string level_text(const nlohmann::json& v);

}  // namespace rastro::campaign
