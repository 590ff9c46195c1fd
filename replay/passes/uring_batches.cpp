#include "replay/passes/uring_batches.h"

#include <sys/syscall.h>

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace rastro::replay {

bool is_ring_call(const trace::Event& e) { return is_ring_call(e.flags, e.nr); }

bool is_ring_call(uint32_t flags, int32_t nr) {
  if (!(flags & trace::kEventUring) || (flags & trace::kEventUnfinished)) return false;
  switch (nr) {
    case SYS_pread64:
    case SYS_pwrite64:
    case SYS_preadv:
    case SYS_pwritev:
    case SYS_fsync:
    case SYS_sync_file_range:
    case SYS_fallocate:
    case SYS_fadvise64:
      return true;
    default:
      return false;
  }
}

namespace {

Result<Done> run_uring_batches(InferContext& c) {
  const auto n = static_cast<uint32_t>(c.order.size());
  UringPlan& u = c.uring;
  u = UringPlan{};
  if (!(c.trace.events.flags_union() & trace::kEventUring)) return Done{};  // (no event to read)
  auto ring = [&](uint32_t r) {
    if (c.action[r] != RequestAction::kReplay || !is_ring_call(trace::kEventUring, c.nr[r])) return false;
    const CompactEvents::Fields f = c.trace.events.fields(c.order[r]);
    return is_ring_call(f.flags, f.nr);
  };
  bool any = false;
  for (uint32_t r = 0; r < n && !any; ++r) any = ring(r);
  if (!any) return Done{};

  u.depth.assign(n, 0);
  u.batch_end.assign(n, 0);
  u.thread_depth.assign(c.threads.size(), 0);
  std::vector<std::pair<uint32_t, uint32_t>> waits;  // (request, ring request it awaits)
  using InFlight = std::pair<int64_t, uint32_t>;     // (traced completion, request)
  for (size_t t = 0; t < c.threads.size(); ++t) {
    const auto& reqs = c.threads[t].requests;
    std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> inflight;
    for (size_t i = 0; i < reqs.size(); ++i) {
      const uint32_t r = reqs[i];
      // Completed (in the trace) before r began: r waits for them. A completion at r's begin
      // counts as before it, as in the temporal ordering.
      while (!inflight.empty() && inflight.top().first <= c.times.begin(r)) {
        waits.emplace_back(r, inflight.top().second);
        inflight.pop();
      }
      if (!ring(r)) continue;
      inflight.emplace(c.times.end(r), r);
      u.depth[r] = static_cast<uint32_t>(inflight.size());
      u.thread_depth[t] = std::max(u.thread_depth[t], u.depth[r]);
      // One batch = the ring requests of one io_uring_enter (uring_enter_ns names it; 0: no
      // captured enter, each request is its own batch), consecutive in the thread.
      const trace::Event& e = c.trace.events[c.order[r]];
      const bool same_batch = i + 1 < reqs.size() && ring(reqs[i + 1]) && e.uring_enter_ns != 0 &&
                              c.trace.events[c.order[reqs[i + 1]]].uring_enter_ns == e.uring_enter_ns;
      u.batch_end[r] = same_batch ? 0 : 1;
    }
  }
  std::stable_sort(waits.begin(), waits.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  u.awaits_begin.assign(static_cast<size_t>(n) + 1, 0);
  u.awaits.reserve(waits.size());
  size_t k = 0;
  for (uint32_t r = 0; r < n; ++r) {
    u.awaits_begin[r] = static_cast<uint32_t>(u.awaits.size());
    for (; k < waits.size() && waits[k].first == r; ++k) u.awaits.push_back(waits[k].second);
  }
  u.awaits_begin[n] = static_cast<uint32_t>(u.awaits.size());
  return Done{};
}

}  // namespace

Pass CreateUringBatchesPass() { return Pass{"uring_batches", {"requests"}, {"uring"}, run_uring_batches}; }

}  // namespace rastro::replay
