// The one rule for where a traced process stands when the trace begins. Every consumer — path
// resolution (resolve_paths), the process seeds the replayers start from (fd_keys.h) and the
// initial-state planner (initial_state.h) — reads it here, so a relative name resolves to the
// same file in all three.
//
// The trace header's "cwd", looked up in `settings`, then `environment`, then `extra` (capture
// backends record it in settings, importers in environment, hand-written traces in extra); taken
// only when absolute, and lexically normalised. An empty result means the trace does not say:
// resolve_paths then resolves relative names against "/" and counts them as unresolved, and the
// replayers start in "/".
#pragma once

#include <string>

#include "trace/model/header.h"

namespace rastro::replay {

std::string initial_cwd(const trace::TraceHeader& header);

// initial_cwd, or "/" when the trace does not say.
std::string initial_cwd_or_root(const trace::TraceHeader& header);

}  // namespace rastro::replay
