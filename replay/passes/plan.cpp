#include "replay/passes/plan.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/topological_sort.hpp>

#include "common/saturating.h"

namespace rastro::replay {

namespace {

// Frees vectors (clear() keeps the capacity).
template <class... V>
void release(V&... v) {
  ((v = V{}), ...);
}

int64_t duration(const Request& q) {
  if (q.action != RequestAction::kReplay) return 0;  // the engines skip it at once
  return std::max<int64_t>(0, sat_sub(q.trace_end_ns, q.trace_begin_ns));
}

Result<Done> run_plan(InferContext& c) {
  Plan& plan = c.plan;
  plan.ordering = c.options.ordering;
  const auto n = static_cast<uint32_t>(c.order.size());
  release(c.nr, c.pid, c.fd_refs_begin, c.fd_refs, c.fd_entries, c.ofds);  // read by no request below
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
    q.trace_end_ns = (c.status[r] & kStatusUnfinished) ? q.trace_begin_ns : c.end_ns[r] - t0;
    q.action = c.action[r];
    q.path[0] = c.paths[r][0];
    q.path[1] = c.paths[r][1];
    ++fig.by_action[static_cast<int>(q.action)];
    if (q.action == RequestAction::kReplay && (c.status[r] & kStatusFailed)) ++fig.failed;
  }
  // The plan holds what these said now, and no pass runs after this one: freed before the
  // figures' own per-request arrays (scale: the peak of inference is in this pass).
  release(c.order, c.action, c.thread, c.begin_ns, c.end_ns, c.status, c.paths, c.deps_begin);
  plan.deps = std::move(c.deps);
  plan.threads = std::move(c.threads);
  fig.inherited_fds = c.inherited_fds;
  fig.unresolved_paths = c.unresolved_paths;
  plan.processes = std::move(c.processes);
  plan.fd_keys = std::move(c.fd_keys);
  plan.init = std::move(c.init);
  plan.uring = std::move(c.uring);
  plan.trace = std::move(c.trace);
  return compute_figures(plan);
}

}  // namespace

namespace {

// The plan's dependencies as (request, dependency) pairs in request order, read in place
// (no copy of the edge list) by Boost's CSR constructor.
class EdgeIter {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = std::pair<uint32_t, uint32_t>;
  using difference_type = std::ptrdiff_t;
  using pointer = const value_type*;
  using reference = const value_type&;

  EdgeIter(const Plan* p, uint32_t r) : p_(p), r_(r) {
    if (r_ < p_->requests.size()) k_ = p_->requests[r_].deps_begin;
    settle();
  }
  const value_type& operator*() const { return cur_; }
  const value_type* operator->() const { return &cur_; }
  EdgeIter& operator++() {
    ++k_;
    settle();
    return *this;
  }
  bool operator==(const EdgeIter& o) const { return r_ == o.r_ && (r_ == p_->requests.size() || k_ == o.k_); }
  bool operator!=(const EdgeIter& o) const { return !(*this == o); }

 private:
  void settle() {
    const auto n = p_->requests.size();
    while (r_ < n && k_ >= p_->requests[r_].deps_begin + p_->requests[r_].deps_count) {
      ++r_;
      if (r_ < n) k_ = p_->requests[r_].deps_begin;
    }
    if (r_ < n) cur_ = {r_, p_->deps[k_].request};
  }
  const Plan* p_;
  uint32_t r_;
  uint32_t k_ = 0;
  value_type cur_{};
};

// LSD radix sort of non-negative times (11-bit digits: the 2048 buckets stay in cache; only as
// many passes as the largest value needs).
void radix_sort(std::vector<int64_t>& v) {
  if (v.size() < 2) return;
  int64_t hi = *std::max_element(v.begin(), v.end());
  std::vector<int64_t> tmp(v.size());
  std::vector<uint32_t> count(2048);
  for (int shift = 0; shift < 64 && (hi >> shift) != 0; shift += 11) {
    std::fill(count.begin(), count.end(), 0u);
    for (int64_t x : v) ++count[static_cast<size_t>((x >> shift) & 0x7ff)];
    uint32_t sum = 0;
    for (auto& c : count) {
      const uint32_t k = c;
      c = sum;
      sum += k;
    }
    for (int64_t x : v) tmp[count[static_cast<size_t>((x >> shift) & 0x7ff)]++] = x;
    v.swap(tmp);
  }
}

}  // namespace

Result<Done> compute_figures(Plan& plan) {
  const auto n = static_cast<uint32_t>(plan.requests.size());
  PlanFigures& fig = plan.figures;
  std::fill(std::begin(fig.edges_by_kind), std::end(fig.edges_by_kind), 0);
  fig.unconstrained = 0;
  size_t edges = 0;
  bool backwards = true;
  for (uint32_t r = 0; r < n; ++r) {
    const Request& q = plan.requests[r];
    if (q.deps_count == 0) ++fig.unconstrained;
    if (static_cast<uint64_t>(q.deps_begin) + q.deps_count > plan.deps.size())
      return fail("request " + std::to_string(r) + " has dependencies outside the plan");
    for (uint32_t k = q.deps_begin; k < q.deps_begin + q.deps_count; ++k) {
      if (plan.deps[k].request >= n) return fail("request " + std::to_string(r) + " depends on a request outside the plan");
      ++fig.edges_by_kind[static_cast<int>(plan.deps[k].kind)];
      backwards &= plan.deps[k].request < r;
    }
    edges += q.deps_count;
  }
  // Acyclicity. When every dependency points to an earlier request (inferred plans always do:
  // requests are in begin order) the check above is the proof: each edge lowers the index, so
  // no path returns to its start, and index order is a topological order. Other plans (built by
  // hand, read back) get Boost's topological sort over the plan's CSR storage, which fails on a
  // cycle.
  std::vector<uint32_t> topo;  // left empty when index order is one (no 4 bytes per request)
  if (!backwards) {
    // Edges point from a request to its dependencies; the plan stores them grouped by request,
    // which is the CSR order.
    using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                     boost::no_property, uint32_t, uint32_t>;
    Graph g(boost::edges_are_sorted, EdgeIter(&plan, 0), EdgeIter(&plan, n), n, static_cast<uint32_t>(edges));
    // Reverse topological order of request->dependency edges = dependencies first.
    topo.reserve(n);
    try {
      boost::topological_sort(g, std::back_inserter(topo));
    } catch (const boost::not_a_dag&) {
      return fail("the dependency graph has a cycle");
    }
  }

  // ASAP schedule with traced durations: a request starts when its last dependency finishes.
  std::vector<int64_t> finish(n, 0);
  std::vector<int64_t> starts, ends;
  starts.reserve(n);
  ends.reserve(n);
  int64_t total = 0, critical = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r = backwards ? i : topo[i];
    const Request& q = plan.requests[r];
    int64_t start = 0;
    for (uint32_t k = q.deps_begin; k < q.deps_begin + q.deps_count; ++k)
      start = std::max(start, finish[plan.deps[k].request]);
    const int64_t d = duration(q);
    finish[r] = sat_add(start, d);  // saturating: hostile traces hold durations near 2^63
    critical = std::max(critical, finish[r]);
    total = sat_add(total, d);
    if (d > 0) {
      starts.push_back(start);
      ends.push_back(finish[r]);
    }
  }
  radix_sort(starts);
  radix_sort(ends);
  int64_t level = 0, peak = 0;
  for (size_t i = 0, j = 0; i < starts.size();) {
    if (ends[j] <= starts[i]) {  // at equal times a call ends before the next one starts
      --level;
      ++j;
    } else {
      peak = std::max(peak, ++level);
      ++i;
    }
  }
  if (peak == 0 && n > 0) peak = 1;  // only zero-length calls
  fig.critical_path_ns = critical;
  fig.max_parallelism = static_cast<uint32_t>(peak);
  fig.mean_parallelism = critical > 0 ? static_cast<double>(total) / static_cast<double>(critical) : (n > 0 ? 1.0 : 0.0);
  return Done{};
}

Pass CreatePlanPass() {
  return Pass{"plan", {"requests", "paths", "initial_state", "fds", "fd_keys", "processes", "deps", "uring"}, {"plan"}, run_plan};
}

}  // namespace rastro::replay
