#include "replay/plan/thread_order.h"

namespace rastro::replay {

std::vector<uint32_t> thread_predecessors(const Plan& plan) {
  return thread_predecessors(plan.threads, static_cast<uint32_t>(plan.requests.size()));
}

std::vector<uint32_t> thread_predecessors(const std::vector<PlanThread>& threads, uint32_t n) {
  std::vector<uint32_t> prev(n, kNoRequest);
  for (const PlanThread& th : threads)
    for (size_t i = 1; i < th.requests.size(); ++i)
      if (th.requests[i] < n && th.requests[i - 1] < n) prev[th.requests[i]] = th.requests[i - 1];
  return prev;
}

}  // namespace rastro::replay
