#include "replay/passes/plan.h"

#include <algorithm>
#include <utility>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/topological_sort.hpp>

namespace rastro::replay {

namespace {

int64_t duration(const Request& q) {
  if (q.action != RequestAction::kReplay) return 0;  // the engines skip it at once
  return std::max<int64_t>(0, q.trace_end_ns - q.trace_begin_ns);
}

Result<Done> run_plan(InferContext& c) {
  Plan& plan = c.plan;
  plan.ordering = c.options.ordering;
  const auto n = static_cast<uint32_t>(c.order.size());
  int64_t t0 = 0;
  if (n > 0) t0 = c.begin_ns[0];
  plan.requests.resize(n);
  PlanFigures& fig = plan.figures;
  fig = PlanFigures{};
  fig.requests = n;
  for (uint32_t r = 0; r < n; ++r) {
    Request& q = plan.requests[r];
    q.event = c.order[r];
    q.thread = c.thread[r];
    q.deps_begin = c.deps_begin[r];
    q.deps_count = c.deps_begin[r + 1] - c.deps_begin[r];
    q.trace_begin_ns = c.begin_ns[r] - t0;
    const trace::Event& e = c.trace.events[q.event];
    q.trace_end_ns = (e.flags & trace::kEventUnfinished) ? q.trace_begin_ns : c.end_ns[r] - t0;
    q.action = c.action[r];
    q.path[0] = c.paths[r][0];
    q.path[1] = c.paths[r][1];
    ++fig.by_action[static_cast<int>(q.action)];
    if (q.action == RequestAction::kReplay && e.failed()) ++fig.failed;
  }
  plan.deps = std::move(c.deps);
  plan.threads = std::move(c.threads);
  fig.inherited_fds = c.inherited_fds;
  fig.unresolved_paths = c.unresolved_paths;
  plan.trace = std::move(c.trace);
  return compute_figures(plan);
}

}  // namespace

Result<Done> compute_figures(Plan& plan) {
  const auto n = static_cast<uint32_t>(plan.requests.size());
  PlanFigures& fig = plan.figures;
  std::fill(std::begin(fig.edges_by_kind), std::end(fig.edges_by_kind), 0);
  fig.unconstrained = 0;
  // Edges point from a request to its dependencies, which are already grouped by request: the
  // CSR graph is built without sorting.
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(plan.deps.size());
  for (uint32_t r = 0; r < n; ++r) {
    const Request& q = plan.requests[r];
    if (q.deps_count == 0) ++fig.unconstrained;
    for (uint32_t k = q.deps_begin; k < q.deps_begin + q.deps_count; ++k) {
      if (k >= plan.deps.size() || plan.deps[k].request >= n)
        return fail("request " + std::to_string(r) + " has a dependency outside the plan");
      ++fig.edges_by_kind[static_cast<int>(plan.deps[k].kind)];
      edges.emplace_back(r, plan.deps[k].request);
    }
  }
  using Graph = boost::compressed_sparse_row_graph<boost::directedS>;
  Graph g(boost::edges_are_sorted, edges.begin(), edges.end(), n);
  edges = {};
  // Reverse topological order of request->dependency edges = dependencies first.
  std::vector<uint32_t> topo;
  topo.reserve(n);
  try {
    boost::topological_sort(g, std::back_inserter(topo));
  } catch (const boost::not_a_dag&) {
    return fail("the dependency graph has a cycle");
  }

  std::vector<int64_t> finish(n, 0);
  std::vector<std::pair<int64_t, int32_t>> points;  // ASAP schedule: (time, +1 start / -1 end)
  points.reserve(static_cast<size_t>(n) * 2);
  int64_t total = 0, critical = 0;
  for (uint32_t r : topo) {
    const Request& q = plan.requests[r];
    int64_t start = 0;
    for (uint32_t k = q.deps_begin; k < q.deps_begin + q.deps_count; ++k)
      start = std::max(start, finish[plan.deps[k].request]);
    const int64_t d = duration(q);
    finish[r] = start + d;
    critical = std::max(critical, finish[r]);
    total += d;
    if (d > 0) {
      points.emplace_back(start, 1);
      points.emplace_back(start + d, -1);
    }
  }
  std::sort(points.begin(), points.end());  // at equal times ends (-1) come first
  int64_t level = 0, peak = 0;
  for (const auto& p : points) {
    level += p.second;
    peak = std::max(peak, level);
  }
  if (peak == 0 && n > 0) peak = 1;  // only zero-length calls
  fig.critical_path_ns = critical;
  fig.max_parallelism = static_cast<uint32_t>(peak);
  fig.mean_parallelism = critical > 0 ? static_cast<double>(total) / static_cast<double>(critical) : (n > 0 ? 1.0 : 0.0);
  return Done{};
}

Pass CreatePlanPass() {
  return Pass{"plan", {"requests", "paths", "fds", "deps"}, {"plan"}, run_plan};
}

}  // namespace rastro::replay
