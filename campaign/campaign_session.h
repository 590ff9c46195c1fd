// A campaign session, shared by `rastro validate` and `rastro demo`: run campaigns (resumable,
// Ctrl-C safe) and write one catalogue report over all of them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "campaign/campaign_config.h"
#include "campaign/report/catalogue_report.h"

namespace rastro::campaign {

struct CampaignsResult {
  ReportFiles files;
  std::string table;
  bool interrupted = false;
};

// Each campaign runs in its own directory (results.sqlite, work/); the report goes to report_dir.
CampaignsResult run_campaigns(const std::vector<std::pair<CampaignConfig, std::string>>& campaigns,
                              const std::string& report_dir, bool progress);

}  // namespace rastro::campaign
