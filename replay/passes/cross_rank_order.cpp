#include "replay/passes/cross_rank_order.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>

#include "common/saturating.h"
#include "mpi/job_clocks.h"

namespace rastro::replay {

namespace {

class CrossRankOrder {
 public:
  CrossRankOrder(InferContext& c, const mpi::JobClocks& job) : c_(c) {
    const size_t n = c.order.size();
    rank_.resize(n);
    bound_begin_.resize(n);
    bound_end_.resize(n);
    for (size_t r = 0; r < n; ++r) {
      rank_[r] = job.rank_of(c.pid_of(static_cast<uint32_t>(r)));
      bound_begin_[r] = job.half_width_at(rank_[r], c.times.begin(r));
      bound_end_[r] = job.half_width_at(rank_[r], std::min(c.times.end(r), sat_add(c.times.begin(r), int64_t{1} << 50)));
    }
  }

  void run() {
    const bool temporal = c_.options.ordering == Ordering::kTemporal;
    if (temporal) index_threads();
    const auto n = static_cast<uint32_t>(c_.order.size());
    std::vector<Dep> deps;
    CsrOffsets at;
    at.reserve(n);
    deps.reserve(c_.deps.size());
    for (uint32_t r = 0; r < n; ++r) {
      at.push_back(static_cast<uint32_t>(deps.size()));
      for (uint32_t k = c_.deps_at.begin(r), end = c_.deps_at.end(r); k < end; ++k) {
        const Dep d = c_.deps[k];
        if (temporal && d.kind == EdgeKind::kTemporal) continue;  // recomputed below
        if (rank_[d.request] != rank_[r] && !proven(d.request, r)) continue;
        deps.push_back(d);
      }
      if (temporal) temporal_edges(r, deps);
    }
    at.finish(static_cast<uint32_t>(deps.size()));
    c_.deps = std::move(deps);
    c_.deps_at = std::move(at);
  }

 private:
  bool proven(uint32_t d, uint32_t r) const {
    if (rank_[d] == rank_[r]) return c_.times.end(d) < c_.times.begin(r) || (c_.times.end(d) == c_.times.begin(r) && d < r);
    return sat_add(c_.times.end(d), sat_add(bound_end_[d], bound_begin_[r])) < c_.times.begin(r);
  }

  // Per thread, the running maximum of its calls' ends (exact, and plus their bounds): "every call
  // of the thread up to i completed before r began" is then monotone in i, so a binary search
  // finds the latest call proven completed.
  void index_threads() {
    max_end_.resize(c_.threads.size());
    max_end_bound_.resize(c_.threads.size());
    for (size_t t = 0; t < c_.threads.size(); ++t) {
      int64_t a = std::numeric_limits<int64_t>::min(), b = a;
      for (uint32_t q : c_.threads[t].requests) {
        a = std::max(a, c_.times.end(q));
        b = std::max(b, sat_add(c_.times.end(q), bound_end_[q]));
        max_end_[t].push_back(a);
        max_end_bound_[t].push_back(b);
      }
    }
  }

  void temporal_edges(uint32_t r, std::vector<Dep>& out) {
    const uint32_t own = c_.thread[r];
    const size_t first = out.size();
    for (uint32_t t = 0; t < c_.threads.size(); ++t) {
      if (t == own) continue;
      const auto& reqs = c_.threads[t].requests;
      const auto earlier = static_cast<size_t>(std::lower_bound(reqs.begin(), reqs.end(), r) - reqs.begin());
      if (earlier == 0) continue;
      const bool same_rank = rank_[reqs[0]] == rank_[r];
      const auto& keys = same_rank ? max_end_[t] : max_end_bound_[t];
      // Exact within a rank (ties allowed: index order breaks them), strict across ranks.
      const int64_t limit = same_rank ? c_.times.begin(r) : sat_sub(c_.times.begin(r), bound_begin_[r]);
      const auto upto = keys.begin() + static_cast<std::ptrdiff_t>(earlier);
      const auto it = same_rank ? std::upper_bound(keys.begin(), upto, limit)
                                : std::lower_bound(keys.begin(), upto, limit);
      if (it == keys.begin()) continue;
      const uint32_t d = reqs[static_cast<size_t>(it - keys.begin()) - 1];
      // The thread's previous call waits for d or a later call of t already: implied.
      uint32_t& seen = latest_[(static_cast<uint64_t>(own) << 32) | t];
      if (seen != 0 && d + 1 <= seen) continue;
      seen = d + 1;
      out.push_back(Dep{d, EdgeKind::kTemporal});
    }
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
              [](const Dep& a, const Dep& b) { return a.request < b.request; });
  }

  InferContext& c_;
  std::vector<int> rank_;
  std::vector<int64_t> bound_begin_, bound_end_;
  std::vector<std::vector<int64_t>> max_end_, max_end_bound_;
  std::unordered_map<uint64_t, uint32_t> latest_;  // (thread, other thread) -> last dep + 1
};

Result<Done> run_cross_rank_order(InferContext& c) {
  std::optional<mpi::JobClocks> job;
  try {
    job = mpi::JobClocks::from_header(c.trace.header);
  } catch (const Error& e) {
    return fail(e.what());
  }
  if (job) CrossRankOrder(c, *job).run();
  return Done{};
}

}  // namespace

Pass CreateCrossRankOrderPass() {
  return Pass{"cross_rank_order", {"requests", "deps"}, {"cross_rank_deps"}, run_cross_rank_order};
}

}  // namespace rastro::replay
