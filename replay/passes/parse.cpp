#include "replay/passes/parse.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

namespace {

RequestAction classify(const trace::Event& e) {
  if (e.flags & trace::kEventUnfinished) return RequestAction::kSkipUnfinished;
  const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
  if (info == nullptr) return RequestAction::kSkipUnknown;
  if (info->classes & trace::kClassProcess) return RequestAction::kLifecycle;
  if (info->classes & trace::kClassMemory) return RequestAction::kSkipMemory;
  return RequestAction::kReplay;
}

Result<Done> run_parse(InferContext& c) {
  const auto& ev = c.trace.events;
  if (ev.size() >= kNone) return fail("trace has too many events for one plan");
  const auto n = static_cast<uint32_t>(ev.size());
  c.order.resize(n);
  std::iota(c.order.begin(), c.order.end(), 0u);
  // Begin order makes every dependency point backwards, so the plan is acyclic by construction
  // and its index order is a topological order. Captures are usually begin-sorted already.
  auto before = [&](uint32_t a, uint32_t b) { return ev[a].begin_ns < ev[b].begin_ns; };
  if (!std::is_sorted(c.order.begin(), c.order.end(), before))
    std::stable_sort(c.order.begin(), c.order.end(), before);

  c.action.resize(n);
  c.thread.resize(n);
  c.begin_ns.resize(n);
  c.end_ns.resize(n);
  std::unordered_map<uint64_t, uint32_t> thread_of;
  for (uint32_t r = 0; r < n; ++r) {
    const trace::Event& e = ev[c.order[r]];
    c.action[r] = classify(e);
    c.begin_ns[r] = e.begin_ns;
    // An unfinished call never completes, so nothing waits for its completion.
    c.end_ns[r] = (e.flags & trace::kEventUnfinished) ? std::numeric_limits<int64_t>::max()
                                                      : std::max(e.end_ns, e.begin_ns);
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(e.pid)) << 32) | static_cast<uint32_t>(e.tid);
    auto [it, fresh] = thread_of.try_emplace(key, static_cast<uint32_t>(c.threads.size()));
    if (fresh) c.threads.push_back(PlanThread{e.pid, e.tid, {}});
    c.thread[r] = it->second;
    c.threads[it->second].requests.push_back(r);
  }
  return Done{};
}

}  // namespace

Pass CreateParsePass() {
  return Pass{"parse", {"trace"}, {"requests", "threads"}, run_parse};
}

}  // namespace rastro::replay
