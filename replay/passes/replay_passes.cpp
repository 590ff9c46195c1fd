#include "replay/passes/replay_passes.h"

namespace rastro::replay {

Result<Plan> infer_plan(trace::Trace trace, Ordering ordering, const PassHook& after) {
  return infer_plan(PlanTrace(std::move(trace)), ordering, after);
}

Result<Plan> infer_plan(PlanTrace trace, Ordering ordering, const PassHook& after) {
  InferContext ctx;
  ctx.options.ordering = ordering;
  ctx.trace = std::move(trace);
  auto r = AllReplayPasses().run(ctx, after);
  if (!r.ok()) return fail(r.error());
  return std::move(ctx.plan);
}

}  // namespace rastro::replay
