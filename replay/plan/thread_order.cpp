#include "replay/plan/thread_order.h"

namespace rastro::replay {

std::vector<uint32_t> thread_predecessors(const Plan& plan) {
  std::vector<uint32_t> prev(plan.requests.size(), kNoRequest);
  for (const PlanThread& th : plan.threads)
    for (size_t i = 1; i < th.requests.size(); ++i)
      if (th.requests[i] < prev.size()) prev[th.requests[i]] = th.requests[i - 1];
  return prev;
}

}  // namespace rastro::replay
