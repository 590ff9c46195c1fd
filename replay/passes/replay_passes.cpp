#include "replay/passes/replay_passes.h"

#include <fmt/format.h>

#include "common/progress.h"

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

Result<Plan> read_and_infer_plan(const std::string& path, Ordering ordering, Progress& progress,
                                 trace::ReadReport* report, const PassHook& after) {
  PlanTrace trace = read_plan_trace(path, report, &progress);
  const std::vector<std::string> passes = AllReplayPasses().names();
  auto running = [&](size_t k) { progress.step(fmt::format("pass {} of {} ({})", k + 1, passes.size(), passes[k])); };
  running(0);
  size_t done = 0;
  auto r = infer_plan(std::move(trace), ordering, [&](const std::string& pass, const InferContext& ctx) {
    if (after) after(pass, ctx);
    if (++done < passes.size()) running(done);
  });
  progress.finish();
  return r;
}

}  // namespace rastro::replay
