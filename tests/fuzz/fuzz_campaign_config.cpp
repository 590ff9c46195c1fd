// libFuzzer target: the campaign config reader on arbitrary JSON (tests/fuzz/corpus/campaign_config).
#include <string>
#include <nlohmann/json.hpp>
#include "campaign/campaign_config.h"
#include "tests/fuzz/fuzz_error_policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  RASTRO_FUZZ_EXPECTED_ERRORS({
    rastro::campaign::CampaignConfig c = rastro::campaign::config_from_json(j, "fuzz.json");
    // An accepted config must survive its own round trip.
    (void)rastro::campaign::config_from_json(c.to_json(), "fuzz.json(round trip)");
  })
  return 0;
}
