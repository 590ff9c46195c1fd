// Program order, the one dependency a plan does not store (issue #16: 4 bytes a request). Every
// request waits for the request before it in its thread (PlanThread::requests): the engines and
// the compiled replayer replay a thread's requests in that order, and the writers (plan JSON,
// DOT, the figures, the pass dumps) show it as the request's first edge, of kind "thread".
#pragma once

#include <cstdint>
#include <vector>

#include "replay/plan/plan.h"

namespace rastro::replay {

inline constexpr uint32_t kNoRequest = UINT32_MAX;

// Per request, the previous request of its thread (kNoRequest: none).
std::vector<uint32_t> thread_predecessors(const Plan& plan);
// The same from thread lists over n requests; list entries >= n (a plan built by hand) are
// nobody's predecessor and have none.
std::vector<uint32_t> thread_predecessors(const std::vector<PlanThread>& threads, uint32_t n);

// The same, read in request index order without a per-request array, for plans whose threads
// list their requests in index order (inferred plans do): prev(r) for r = 0, 1, 2, ...
class ThreadOrderCursor {
 public:
  explicit ThreadOrderCursor(size_t threads) : last_(threads, kNoRequest) {}
  // r's predecessor in thread t; then r is the thread's latest. Call once per request, in order.
  uint32_t advance(uint32_t r, uint32_t t) {
    const uint32_t p = last_[t];
    last_[t] = r;
    return p;
  }

 private:
  std::vector<uint32_t> last_;
};

}  // namespace rastro::replay
