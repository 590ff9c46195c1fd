// index.html: a self-contained page (inline SVG, no scripts) with the catalogue and its plots —
// bias and random-error components per cell (thesis Fig. 5.4), measured vs reference (Fig. 6.5),
// calibration curves with prediction band and calibrated points (Figs. 4.3, 5.7), selectivity vs
// background load (Fig. 5.5), QQ-plots (App. D–F), concurrency ECDF (Fig. 6.7) and the timing
// policies' issue error.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibration/catalogue_entry.h"
#include "campaign/report/catalogue_report.h"

namespace rastro::campaign {

std::string html_report(const nlohmann::json& catalogue, const std::vector<calibration::CatalogueEntry>& entries,
                        const std::vector<CampaignResults>& campaigns);

}  // namespace rastro::campaign
