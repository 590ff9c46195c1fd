// The plan as JSON (docs/replay-plan.md) and its figures as JSON (for `rastro infer --json`).
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "replay/plan/plan.h"

namespace rastro::replay {

nlohmann::json figures_json(const Plan& plan);

// Streams the whole plan (figures, threads, requests with their dependencies and kinds);
// written incrementally, so a million-request plan needs no JSON tree in memory.
void write_plan_json(std::ostream& out, const Plan& plan);

}  // namespace rastro::replay
