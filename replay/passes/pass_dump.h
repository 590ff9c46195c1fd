// `rastro infer --dump-after=<pass>`: what the inference has worked out once a pass has run, one
// line per request (as compilers' -print-after), for debugging a plan. Each line carries what the
// passes so far produced: the call and its thread (parse), the resolved paths (resolve_paths),
// fd-table references (resolve_fds), dependencies (infer_order); after `plan`, the plan's JSON.
#pragma once

#include <ostream>
#include <string>

#include "replay/passes/infer_context.h"

namespace rastro::replay {

void dump_after_pass(std::ostream& out, const std::string& pass, const InferContext& ctx);

}  // namespace rastro::replay
