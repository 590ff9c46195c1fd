#include "replay/passes/parse.h"

#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <array>
#include <limits>
#include <numeric>
#include <unordered_map>

#include <fmt/format.h>

#include "trace/syscalls/fcntl_lock.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

namespace {

RequestAction classify(const CompactEvents::Fields& e) {
  if (e.flags & trace::kEventUnfinished) return RequestAction::kSkipUnfinished;
  if (e.flags & trace::kEventPageFault) return RequestAction::kReplay;  // a touch of the replay mapping
  const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
  if (info == nullptr) return RequestAction::kSkipUnknown;
  if (info->classes & trace::kClassProcess) return RequestAction::kLifecycle;
  return RequestAction::kReplay;  // the mmap family included (replay/runtime/exec_memory.cpp)
}

// F_SETLK (and F_OFD_SETLK) or flock(LOCK_NB) that found the lock held: POSIX lets F_SETLK say
// EACCES as well as EAGAIN; flock says EWOULDBLOCK (= EAGAIN). The arguments (the fcntl
// command) are decoded only for such a failure.
bool found_lock_held(const CompactEvents& ev, uint32_t i, const CompactEvents::Fields& e) {
  if (e.rvalue != -EAGAIN && e.rvalue != -EACCES) return false;
  return e.nr == SYS_flock || trace::is_lock_call(ev[i]);
}

uint8_t status_of(const CompactEvents& ev, uint32_t i, const CompactEvents::Fields& e) {
  unsigned s = 0;
  if (e.failed()) s |= found_lock_held(ev, i, e) ? kStatusFailed | kStatusLockHeld : kStatusFailed;
  if (e.rvalue == -ENOENT) s |= kStatusAbsent;
  if (e.flags & trace::kEventUnfinished) s |= kStatusUnfinished;
  return static_cast<uint8_t>(s);
}

Result<Done> run_parse(InferContext& c) {
  const auto& ev = c.trace.events;
  if (ev.size() >= kMaxRequests) return fail(fmt::format("trace has too many events for one plan ({}, at most {})", ev.size(), kMaxRequests - 1));
  const auto n = static_cast<uint32_t>(ev.size());
  // Begin order makes every dependency point backwards, so the plan is acyclic by construction
  // and its index order is a topological order. Captures are usually begin-sorted already: then
  // request r is event r and no column says so.
  bool sorted = true;
  for (uint32_t i = 1; i < n && sorted; ++i) sorted = ev.begin_ns(i - 1) <= ev.begin_ns(i);
  if (sorted) {
    c.order = EventOrder::identity(n);
  } else {
    std::vector<uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return ev.begin_ns(a) < ev.begin_ns(b); });
    c.order = EventOrder(order);  // (int16 distances; the uint32 column goes at the block end)
  }

  c.action.resize(n);
  std::vector<uint32_t> thread(n);  // (narrowed into c.thread at the end)
  c.times = TimeColumn{};
  c.times.reserve(n);
  c.nr.resize(n);
  c.status.resize(n);
  std::unordered_map<uint64_t, uint32_t> thread_of;
  // Most lookups hit a small direct-mapped cache in front of the map.
  constexpr size_t kCache = 64;
  std::array<std::pair<uint64_t, uint32_t>, kCache> cache;
  cache.fill({~uint64_t{0}, kNoIndex});
  for (uint32_t r = 0; r < n; ++r) {
    const CompactEvents::Fields e = ev.fields(c.order[r]);  // (the arguments are not needed here)
    c.action[r] = classify(e);
    // An unfinished call never completes, so nothing waits for its completion.
    c.times.push_back(e.begin_ns, (e.flags & trace::kEventUnfinished) ? std::numeric_limits<int64_t>::max()
                                                                      : std::max(e.end_ns, e.begin_ns));
    c.nr[r] = compact_nr(e.nr);
    c.status[r] = status_of(ev, c.order[r], e);
    const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(e.pid)) << 32) | static_cast<uint32_t>(e.tid);
    auto& slot = cache[(key * 0x9E3779B97F4A7C15ull) >> 58];
    if (slot.first != key) {
      auto [it, fresh] = thread_of.try_emplace(key, static_cast<uint32_t>(c.threads.size()));
      if (fresh) c.threads.push_back(PlanThread{e.pid, e.tid, {}});
      slot = {key, it->second};
    }
    thread[r] = slot.second;
  }
  std::vector<uint32_t> count(c.threads.size(), 0);
  for (uint32_t r = 0; r < n; ++r) ++count[thread[r]];
  for (size_t t = 0; t < c.threads.size(); ++t) c.threads[t].requests.reserve(count[t]);
  for (uint32_t r = 0; r < n; ++r) c.threads[thread[r]].requests.push_back(r);
  c.thread = ThreadColumn(thread);
  return Done{};
}

}  // namespace

Pass CreateParsePass() {
  return Pass{"parse", {"trace"}, {"requests", "threads"}, run_parse};
}

}  // namespace rastro::replay
