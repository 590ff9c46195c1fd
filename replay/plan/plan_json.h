// The plan as JSON (docs/replay-plan.md) and its figures as JSON (for `rastro infer --json`).
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "replay/plan/plan.h"

namespace rastro::replay {

nlohmann::json figures_json(const Plan& plan);

// Streams the whole plan (figures, threads, requests with their dependencies, kinds and fd keys,
// the process seeds and the initial file-system state); written incrementally, so a
// million-request plan needs no JSON tree in memory.
void write_plan_json(std::ostream& out, const Plan& plan);

// What the replayers need from a plan beyond requests and dependencies: the process seeds, the fd
// key count and the initial file-system state ("processes", "fd_key_count", "initial_state"; the
// per-request fd keys travel with the requests), and for a trace with io_uring requests the
// UringPlan ("uring": only then, so other plans read and print as before). Strings are kept byte for byte, so store it as
// CBOR (nlohmann::json::to_cbor) where a path may not be UTF-8 (the compiled replayer does).
nlohmann::json replayer_data_json(const Plan& plan);
// Reads it back into plan->processes, plan->fd_keys.count and plan->init. Throws
// rastro::Error naming the field on a malformed document.
void read_replayer_data_json(const nlohmann::json& j, Plan* plan);

}  // namespace rastro::replay
