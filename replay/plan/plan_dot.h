// The plan's dependency DAG as Graphviz: one cluster per traced thread, one node per request
// ("index function path"), one edge per dependency coloured by kind (legend in the graph).
#pragma once

#include <ostream>

#include "replay/plan/plan.h"

namespace rastro::replay {

void write_plan_dot(std::ostream& out, const Plan& plan);

// The colour of an edge kind in the DOT output (also documented in docs/replay-plan.md).
const char* edge_kind_colour(EdgeKind k);

}  // namespace rastro::replay
