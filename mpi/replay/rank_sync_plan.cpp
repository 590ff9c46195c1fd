#include "mpi/replay/rank_sync_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "mpi/mpi_ops.h"

namespace rastro::mpi {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();  // (= kNotInRank)

// An MPI event the merge matched: its operation and match id.
const MpiOpInfo* matched_op(const trace::Event& e, const trace::StringTable& strings, int64_t* match) {
  if (e.nr >= 0 || e.nargs <= kArgMatch) return nullptr;
  const MpiOpInfo* op = mpi_op_by_name(trace::function_name(e, strings));
  if (op) *match = e.arg(kArgMatch).value;
  return op;
}

class Builder {
 public:
  Builder(const replay::Plan& local, RankSyncPlan& out) : local_(local), out_(out) {
    request_of_event_.assign(local.trace.events.size(), kNone);
    for (uint32_t q = 0; q < local.requests.size(); ++q) request_of_event_[local.requests[q].event] = q;
    pos_in_thread_.resize(local.requests.size());
    for (const auto& t : local.threads)
      for (uint32_t i = 0; i < t.requests.size(); ++i) pos_in_thread_[t.requests[i]] = i;
  }

  uint32_t request_of_event(uint32_t local_event) const { return request_of_event_[local_event]; }

  // The actions before the first call of q's thread that began at or after q ended.
  SyncActions& after_end_of(uint32_t q) {
    const auto& reqs = local_.threads[local_.requests[q].thread].requests;
    const int64_t end = replay::trace_times(local_, q).end_ns;
    auto it = std::partition_point(reqs.begin() + pos_in_thread_[q] + 1, reqs.end(),
                                   [&](uint32_t x) { return replay::trace_times(local_, x).begin_ns < end; });
    return it == reqs.end() ? out_.at_end : out_.at[*it];
  }

 private:
  const replay::Plan& local_;
  RankSyncPlan& out_;
  std::vector<uint32_t> request_of_event_, pos_in_thread_;
};

}  // namespace

RankSyncPlan rank_sync_plan(const replay::Plan& job, const JobClocks& clocks, int rank, const replay::Plan& local,
                            std::span<const uint32_t> local_event) {
  RankSyncPlan out;
  Builder b(local, out);

  // Members of every collective instance, from the whole job.
  std::map<int64_t, std::set<int>> members;
  for (const trace::Event& e : job.trace.events) {
    int64_t m = 0;
    const MpiOpInfo* op = matched_op(e, job.trace.strings, &m);
    const int r = clocks.rank_of(e.pid);
    if (op && op->kind == MpiOpKind::kCollective && r >= 0) members[m].insert(r);
  }

  for (uint32_t q = 0; q < local.requests.size(); ++q) {
    const trace::Event& e = local.trace.events[local.requests[q].event];
    int64_t m = 0;
    const MpiOpInfo* op = matched_op(e, local.trace.strings, &m);
    if (!op) continue;
    const auto peer = static_cast<int>(e.arg(kArgPeer).value);
    if (op->kind == MpiOpKind::kSend && peer >= 0 && peer < clocks.size()) {
      out.at[q].send_before.push_back({peer, m});
      ++out.message_tokens_sent;
    } else if (op->kind == MpiOpKind::kRecv && peer >= 0 && peer < clocks.size()) {
      b.after_end_of(q).wait_before.push_back({peer, m});
      ++out.message_tokens_awaited;
    } else if (op->kind == MpiOpKind::kCollective) {
      const auto& who = members[m];
      if (who.size() < 2 || !who.count(rank)) continue;
      const int root = *who.begin();
      SyncActions& leave = b.after_end_of(q);
      if (rank == root) {
        for (int i : who)
          if (i != root) leave.wait_before.push_back({i, m});
        for (int i : who)
          if (i != root) leave.send_before.push_back({i, m});
        out.collective_tokens_awaited += who.size() - 1;
        out.collective_tokens_sent += who.size() - 1;
      } else {
        out.at[q].send_before.push_back({root, m});
        leave.wait_before.push_back({root, m});
        ++out.collective_tokens_sent;
        ++out.collective_tokens_awaited;
      }
    }
  }

  // Edges of the job plan between ranks (what the clocks prove).
  std::vector<int> rank_of_request(job.requests.size());
  for (size_t r = 0; r < job.requests.size(); ++r)
    rank_of_request[r] = clocks.rank_of(job.trace.events[job.requests[r].event].pid);
  auto local_request = [&](uint32_t job_request) {
    const uint32_t ev = local_event[job.requests[job_request].event];
    return ev == kNone ? kNone : b.request_of_event(ev);
  };
  for (uint32_t r = 0; r < job.requests.size(); ++r) {
    const std::span<const replay::Dep> deps = replay::deps_of(job, r);
    for (uint32_t i = 0; i < deps.size(); ++i) {
      const uint32_t k = job.requests[r].deps_begin + i;
      const uint32_t d = deps[i].request;
      const int rr = rank_of_request[r], rd = rank_of_request[d];
      if (rr == rd || rr < 0 || rd < 0) continue;
      const int64_t value = kClockEdgeBase + k;
      if (rr == rank) {
        if (const uint32_t lq = local_request(r); lq != kNone) {
          out.at[lq].wait_before.push_back({rd, value});
          ++out.clock_edge_tokens_awaited;
        }
      } else if (rd == rank) {
        if (const uint32_t lq = local_request(d); lq != kNone) {
          out.at[lq].send_after.push_back({rr, value});
          ++out.clock_edge_tokens_sent;
        }
      }
    }
  }
  return out;
}

}  // namespace rastro::mpi
