// The built-in default main job (`rastro demo`): a small capture + replay campaign that finishes
// in a few minutes on a 2-core machine and still exercises every instrument and replayer.
#pragma once

#include "campaign/campaign_config.h"

namespace rastro::campaign {

CampaignConfig demo_capture_config(int replicates);
CampaignConfig demo_replay_config(int replicates);

}  // namespace rastro::campaign
