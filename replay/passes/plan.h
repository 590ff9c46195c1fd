// Pass "plan": assembles the Plan (requests, CSR dependencies, threads, and the process seeds, fd
// keys and initial file-system state the earlier passes worked out), verifies with
// Boost.Graph that the dependency graph is acyclic (topological_sort), and computes the figures:
// edges by kind; the critical path (longest dependency chain of traced durations, i.e. the
// fullspeed lower bound; calls the engines skip count as zero); the maximum and mean parallelism
// of the ASAP schedule with traced durations (mean = total duration / critical path); requests
// with no dependency at all.
// Reads: requests, paths, initial_state, fds, fd_keys, processes, deps. Produces: plan.
#pragma once

#include "replay/passes/pass_manager.h"

namespace rastro::replay {

Pass CreatePlanPass();

// Visible for testing: the figures of a finished plan (fills plan.figures' DAG part). Fails if the
// dependency graph has a cycle.
Result<Done> compute_figures(Plan& plan);

}  // namespace rastro::replay
