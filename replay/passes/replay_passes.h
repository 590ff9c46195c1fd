// The inference pipeline, listed once (as bpftrace's AllParsePasses()). Each pass's header says
// what it reads and produces; the order below is the only one those declarations allow.
#pragma once

#include <functional>
#include <string>

#include "common/error.h"
#include "replay/passes/cross_rank_order.h"
#include "replay/passes/infer_order.h"
#include "replay/passes/parse.h"
#include "replay/passes/pass_manager.h"
#include "replay/passes/plan.h"
#include "replay/passes/resolve_fds.h"
#include "replay/passes/resolve_paths.h"
#include "replay/passes/uring_batches.h"

namespace rastro::replay {

inline PassManager AllReplayPasses() {
  PassManager pm;
  pm.add(CreateParsePass());         // begin order, actions, threads
  pm.add(CreateResolvePathsPass());  // needs per-thread order (cwd changes in program order)
  pm.add(CreateResolveFdsPass());    // needs absolute paths (an fd's file is its open's path)
  pm.add(CreateInferOrderPass());    // needs fd lifetimes and paths
  pm.add(CreateCrossRankOrderPass());  // a merged MPI job: keeps only what the clocks prove across ranks
  pm.add(CreateUringBatchesPass());  // io_uring batches and queue depth (program order only)
  pm.add(CreatePlanPass());          // needs every dependency
  return pm;
}

// Called after each pass that succeeded, with the pass's name (for `rastro infer --dump-after`).
using PassHook = std::function<void(const std::string& pass, const InferContext& ctx)>;

// Builds the replay plan of `trace` under `ordering` (the trace is moved into the plan). Long
// traces come packed (read_plan_trace); a trace::Trace is packed first, its events freed.
Result<Plan> infer_plan(PlanTrace trace, Ordering ordering, const PassHook& after = {});
Result<Plan> infer_plan(trace::Trace trace, Ordering ordering, const PassHook& after = {});

// Reads the trace at `path` (read_plan_trace: `report` gets its damage) and infers its plan,
// showing on `progress` the events read and then the pass running (`rastro infer` and `replay`:
// at 100 M events they work for a minute or more before printing anything).
Result<Plan> read_and_infer_plan(const std::string& path, Ordering ordering, Progress& progress,
                                 trace::ReadReport* report, const PassHook& after = {});

}  // namespace rastro::replay
