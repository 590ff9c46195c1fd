// catalogue.md: the thesis App. B layout — per instrument the measurand, measurement range and
// experimental environment, then per workload type the measurement characteristics (precision,
// bias, selectivity, calibration) and the uncertainty (components and combined, after and before
// calibration) for every level.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rastro::campaign {

std::string markdown_catalogue(const nlohmann::json& catalogue);
// "Intel Xeon …, 2 cores, 24 GiB, Linux 6.18, ext4 (rw,relatime) …" from an environment inventory.
std::string describe_environment(const nlohmann::json& environment);
// "+52.10% ± 3.20" (value and U, k = 2) of an entry's error component `key` ("perturbation",
// "recording_error"), or "—" when it is undefined.
std::string error_component(const nlohmann::json& entry, const std::string& key);

}  // namespace rastro::campaign
