#include "replay/passes/plan.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <span>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/topological_sort.hpp>

#include "common/drop_consumed.h"
#include "common/saturating.h"
#include "replay/plan/thread_order.h"

namespace rastro::replay {

namespace {

// Frees vectors (clear() keeps the capacity).
template <class... V>
void release(V&... v) {
  ((v = V{}), ...);
}

// The plan's dependencies as (request, dependency) pairs in request order, read in place
// (no copy of the edge list) by Boost's CSR constructor: per request its program-order
// predecessor (prev[r], when it has one), then its stored dependencies. `Requests` is
// PlanRequests or ColumnRequests.
template <class Requests>
class EdgeIter {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = std::pair<uint32_t, uint32_t>;
  using difference_type = std::ptrdiff_t;
  using pointer = const value_type*;
  using reference = const value_type&;

  EdgeIter(const Requests* q, const std::vector<Dep>* deps, const std::vector<uint32_t>* prev, uint32_t r)
      : q_(q), deps_(deps), prev_(prev), r_(r) {
    enter();
    settle();
  }
  const value_type& operator*() const { return cur_; }
  const value_type* operator->() const { return &cur_; }
  EdgeIter& operator++() {
    if (on_prev_) on_prev_ = false;
    else ++k_;
    settle();
    return *this;
  }
  bool operator==(const EdgeIter& o) const {
    return r_ == o.r_ && (r_ == q_->size() || (k_ == o.k_ && on_prev_ == o.on_prev_));
  }
  bool operator!=(const EdgeIter& o) const { return !(*this == o); }

 private:
  void enter() {
    if (r_ >= q_->size()) return;
    k_ = q_->deps_begin(r_);
    on_prev_ = (*prev_)[r_] != kNoRequest;
  }
  void settle() {
    const auto n = q_->size();
    while (r_ < n && !on_prev_ && k_ >= q_->deps_end(r_)) {
      ++r_;
      enter();
    }
    if (r_ < n) cur_ = {r_, on_prev_ ? (*prev_)[r_] : (*deps_)[k_].request};
  }
  const Requests* q_;
  const std::vector<Dep>* deps_;
  const std::vector<uint32_t>* prev_;
  uint32_t r_;
  uint32_t k_ = 0;
  bool on_prev_ = false;
  value_type cur_{};
};

// Sorts non-negative times in place: an MSD radix sort (American flag sort: 8-bit digits from
// the highest one the largest value has, each bucket permuted in place, then sorted on the next
// digit). No scratch copy: an LSD sort's was 8 bytes a request of inference's peak (issue #16).
void radix_sort(std::span<int64_t> v, int shift) {
  if (v.size() < 64) {
    std::sort(v.begin(), v.end());
    return;
  }
  auto digit = [shift](int64_t x) { return static_cast<size_t>((x >> shift) & 0xff); };
  std::array<size_t, 256> next{}, end{};
  for (int64_t x : v) ++end[digit(x)];
  size_t sum = 0;
  for (size_t b = 0; b < 256; ++b) {
    next[b] = sum;
    sum += end[b];
    end[b] = sum;
  }
  for (size_t b = 0; b < 256; ++b) {
    while (next[b] < end[b]) {  // v[next[b]] goes where its digit says, until one of b's comes back
      int64_t x = v[next[b]];
      for (size_t d = digit(x); d != b; d = digit(x)) std::swap(x, v[next[d]++]);
      v[next[b]++] = x;
    }
  }
  if (shift == 0) return;
  for (size_t b = 0, lo = 0; b < 256; lo = end[b++])
    if (end[b] - lo > 1) radix_sort(v.subspan(lo, end[b] - lo), shift - 8);
}

void radix_sort(std::vector<int64_t>& v) {
  if (v.size() < 2) return;
  const int64_t hi = *std::max_element(v.begin(), v.end());
  int shift = 0;
  while (shift < 56 && (hi >> (shift + 8)) != 0) shift += 8;
  radix_sort(std::span<int64_t>(v), shift);
}

// The plan's own requests, for figures_of.
struct PlanRequests {
  const Plan& p;
  uint32_t size() const { return static_cast<uint32_t>(p.requests.size()); }
  uint32_t thread(uint32_t r) const { return p.requests[r].thread; }
  uint32_t deps_begin(uint32_t r) const { return p.requests[r].deps_begin; }
  // (unchecked: figures_of checks begin <= end <= deps.size() before anything else reads them)
  uint32_t deps_end(uint32_t r) const { return static_cast<uint32_t>(rastro::replay::deps_end(p, r)); }
  int64_t duration(uint32_t r) const {
    if (p.requests[r].action != RequestAction::kReplay) return 0;  // the engines skip it at once
    return std::max<int64_t>(0, trace_times(p, r).duration_ns());
  }
};

// Whether program order can be read with a ThreadOrderCursor (no array per request): every
// request is listed once, by the thread it names, and each thread lists its requests in index
// order. Inferred plans are so; a plan built by hand may not be.
template <class Requests>
bool threads_in_index_order(const Requests& req, const std::vector<PlanThread>& threads) {
  size_t listed = 0;
  for (size_t t = 0; t < threads.size(); ++t) {
    const std::vector<uint32_t>& l = threads[t].requests;
    for (size_t i = 0; i < l.size(); ++i)
      if (l[i] >= req.size() || req.thread(l[i]) != t || (i > 0 && l[i] <= l[i - 1])) return false;
    listed += l.size();
  }
  return listed == req.size();
}

// The DAG part of the figures (see plan.h). Program order counts as each request's first edge,
// of kind thread (replay/plan/thread_order.h).
template <class Requests>
Result<Done> figures_of(const Requests& req, const std::vector<Dep>& deps, const std::vector<PlanThread>& threads,
                        PlanFigures& fig) {
  const uint32_t n = req.size();
  std::fill(std::begin(fig.edges_by_kind), std::end(fig.edges_by_kind), 0);
  fig.unconstrained = 0;
  const bool in_order = threads_in_index_order(req, threads);
  std::vector<uint32_t> prev;  // only where the cursor cannot serve
  if (!in_order) prev = thread_predecessors(threads, n);
  ThreadOrderCursor cursor(in_order ? threads.size() : 0);
  size_t edges = 0;
  bool backwards = true;
  for (uint32_t r = 0; r < n; ++r) {
    const uint32_t begin = req.deps_begin(r), end = req.deps_end(r);
    if (end < begin || end > deps.size())
      return fail("request " + std::to_string(r) + " has dependencies outside the plan");
    const uint32_t p = in_order ? cursor.advance(r, req.thread(r)) : prev[r];
    const uint32_t count = end - begin + (p != kNoRequest ? 1 : 0);
    if (count == 0) ++fig.unconstrained;
    if (p != kNoRequest) {
      ++fig.edges_by_kind[static_cast<int>(EdgeKind::kThread)];
      backwards &= p < r;
    }
    for (uint32_t k = begin; k < end; ++k) {
      if (deps[k].request >= n) return fail("request " + std::to_string(r) + " depends on a request outside the plan");
      ++fig.edges_by_kind[static_cast<int>(deps[k].kind)];
      backwards &= deps[k].request < r;
    }
    edges += count;
  }
  // Acyclicity. When every dependency points to an earlier request (inferred plans always do:
  // requests are in begin order) the check above is the proof: each edge lowers the index, so
  // no path returns to its start, and index order is a topological order. Other plans (built by
  // hand, read back) get Boost's topological sort over the plan's CSR storage, which fails on a
  // cycle.
  std::vector<uint32_t> topo;  // left empty when index order is one (no 4 bytes per request)
  if (!backwards) {
    if (prev.empty()) prev = thread_predecessors(threads, n);
    // Edges point from a request to its dependencies; the plan stores them grouped by request,
    // which is the CSR order.
    using Graph = boost::compressed_sparse_row_graph<boost::directedS, boost::no_property, boost::no_property,
                                                     boost::no_property, uint32_t, uint32_t>;
    Graph g(boost::edges_are_sorted, EdgeIter<Requests>(&req, &deps, &prev, 0),
            EdgeIter<Requests>(&req, &deps, &prev, n), n, static_cast<uint32_t>(edges));
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
  std::vector<int64_t> starts;
  starts.reserve(n);
  int64_t total = 0, critical = 0;
  const bool by_cursor = backwards && in_order;
  ThreadOrderCursor again(by_cursor ? threads.size() : 0);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t r = backwards ? i : topo[i];
    const uint32_t p = by_cursor ? again.advance(r, req.thread(r)) : prev[r];
    int64_t start = p != kNoRequest ? finish[p] : 0;
    for (uint32_t k = req.deps_begin(r); k < req.deps_end(r); ++k)
      start = std::max(start, finish[deps[k].request]);
    const int64_t d = req.duration(r);
    finish[r] = sat_add(start, d);  // saturating: hostile traces hold durations near 2^63
    critical = std::max(critical, finish[r]);
    total = sat_add(total, d);
    if (d > 0) starts.push_back(start);
  }
  // The ends of the calls that take time, kept in place of `finish` (no longer read).
  std::vector<int64_t>& ends = finish;
  size_t m = 0;
  for (uint32_t r = 0; r < n; ++r)
    if (req.duration(r) > 0) ends[m++] = finish[r];
  ends.resize(m);
  release(topo);
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

// The inference columns read as the plan's requests will be (for the figures, computed before
// the Requests exist so that the two are never resident at once).
// Request r's traced begin and end relative to the trace's first begin t0. Saturating: t0 and a
// later begin are untrusted (a hostile trace can hold -2^63 and 2^63-1), and a plain difference
// would be signed overflow. An unfinished call ends where it begins.
std::pair<int64_t, int64_t> relative_times(const InferContext& c, uint32_t r, int64_t t0) {
  const int64_t begin = sat_sub(c.times.begin(r), t0);
  return {begin, (c.status[r] & kStatusUnfinished) ? begin : sat_sub(c.times.end(r), t0)};
}

struct ColumnRequests {
  const InferContext& c;
  int64_t t0;
  uint32_t size() const { return static_cast<uint32_t>(c.order.size()); }
  uint32_t thread(uint32_t r) const { return c.thread[r]; }
  uint32_t deps_begin(uint32_t r) const { return c.deps_at.begin(r); }
  uint32_t deps_end(uint32_t r) const { return c.deps_at.end(r); }
  int64_t duration(uint32_t r) const {
    if (c.action[r] != RequestAction::kReplay) return 0;
    const auto [begin, end] = relative_times(c, r, t0);
    return std::max<int64_t>(0, sat_sub(end, begin));
  }
};

Result<Done> run_plan(InferContext& c) {
  Plan& plan = c.plan;
  plan.ordering = c.options.ordering;
  const auto n = static_cast<uint32_t>(c.order.size());
  release(c.nr, c.fd_refs_at, c.fd_refs, c.fd_entries, c.ofds);  // read by no request below
  int64_t t0 = 0;
  if (n > 0) t0 = c.times.begin(0);
  plan.trace_t0_ns = t0;
  PlanFigures& fig = plan.figures;
  fig = PlanFigures{};
  if (auto r = figures_of(ColumnRequests{c, t0}, c.deps, c.threads, fig); !r.ok()) return r;
  fig.requests = n;
  plan.requests.reserve(n);  // (pages become resident as the chunks below fill them)
  constexpr uint32_t kChunk = 1u << 16;
  for (uint32_t lo = 0; lo < n; lo += std::min(kChunk, n - lo)) {
    const uint32_t hi = lo + std::min(kChunk, n - lo);
    for (uint32_t r = lo; r < hi; ++r) {
      Request& q = plan.requests.emplace_back();
      q.event = c.order[r];
      q.thread = c.thread[r];
      q.deps_begin = c.deps_at.begin(r);
      q.action = c.action[r];
      ++fig.by_action[static_cast<int>(q.action)];
      if (q.action == RequestAction::kReplay && (c.status[r] & kStatusFailed)) ++fig.failed;
    }
    c.order.drop_consumed(hi);
    c.thread.drop_consumed(hi);
    c.times.drop_consumed(hi);
    drop_consumed(c.status, hi);
    drop_consumed(c.action, hi);
  }
  // The plan holds what these said now, and no pass runs after this one.
  release(c.order, c.action, c.thread, c.times, c.status, c.deps_at);
  plan.paths = std::move(c.paths);
  plan.deps = std::move(c.deps);
  plan.threads = std::move(c.threads);
  fig.inherited_fds = c.inherited_fds;
  fig.unresolved_paths = c.unresolved_paths;
  plan.processes = std::move(c.processes);
  plan.fd_keys = std::move(c.fd_keys);
  plan.init = std::move(c.init);
  plan.uring = std::move(c.uring);
  plan.trace = std::move(c.trace);
  return Done{};
}

}  // namespace

Result<Done> compute_figures(Plan& plan) { return figures_of(PlanRequests{plan}, plan.deps, plan.threads, plan.figures);
}

Pass CreatePlanPass() {
  return Pass{"plan", {"requests", "paths", "initial_state", "fds", "fd_keys", "processes", "deps", "uring"}, {"plan"}, run_plan};
}

}  // namespace rastro::replay
