// Names of the plan's enums, as the CLI, the JSON plan and the docs spell them.
#pragma once

#include <string_view>

#include "common/error.h"
#include "replay/plan/plan.h"

namespace rastro::replay {

std::string_view ordering_name(Ordering o);        // "thread", "fs", "temporal"
Result<Ordering> parse_ordering(std::string_view s);
std::string_view edge_kind_name(EdgeKind k);       // "thread", "fd-stage", "fd-seq", "file", "path", "temporal", "mapping"
std::string_view action_name(RequestAction a);     // "replay", "skip-unknown", "skip-unfinished", ...

}  // namespace rastro::replay
