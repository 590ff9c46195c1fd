// The replayers' fd data, worked out once by the resolve_fds pass and stored in the Plan
// (Plan::processes, Plan::fd_keys; replay/plan/plan.h): which processes exist with which
// inherited fds and initial cwd, and one key per traced fd lifetime for every request.
//
// Keys are computed in plan (begin) order per traced process: a fork copies the parent's current
// lifetimes into the child; a use with no earlier creation in its process gets a fresh key that is
// never created ("use before open"), except inherited fds, which get their key up front. A failed
// create still gets a key of its own (never opened), so its uses replay as traced. Fd numbers
// reused across threads follow fd_reuse.h, as resolve_fds' lifetime entries do.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "replay/plan/plan.h"
#include "trace/model/trace.h"

namespace rastro::replay {

// Every process of the trace with its threads, its inherited fds (0/1/2 and fds used but never
// created, as traced fd numbers) and the initial cwd (initial_cwd.h).
std::vector<ProcessSeed> process_seeds(const PlanTrace& trace);

// The fd keys of the requests whose events are `events` (request -> event index, begin order).
// Also returns the process seeds, with inherited_fds expressed as keys.
FdKeys compute_fd_keys(const PlanTrace& trace, std::span<const uint32_t> events, std::vector<ProcessSeed>* seeds);

// Whether `plan` carries its fd data (one built by infer_plan does; one built by hand in a test or
// benchmark does not, and the engines then compute it with compute_fd_keys once, before the run).
bool has_fd_keys(const Plan& plan);

}  // namespace rastro::replay
