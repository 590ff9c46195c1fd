// How long a campaign will take, printed before it starts (a thesis-sized campaign runs for
// hours: the user must know before committing the machine). A model, not a promise: per run a
// fixed cost (process start, file preparation, cache drop, instrument attach) plus the requests
// at a per-call time typical of each instrument on the 2-core development VM (docs/campaign.md
// gives the constants and how they were measured); good to about ±50 %.
#pragma once

#include <string>

#include "campaign/campaign_config.h"

namespace rastro::campaign {

double estimated_duration_s(const CampaignConfig& config);
// "1 h 52 min", "4 min 10 s", "35 s".
std::string duration_text(double seconds);

}  // namespace rastro::campaign
