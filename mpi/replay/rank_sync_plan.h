// What one rank of `rastro replay --mpi` must exchange with the other ranks so that its calls keep
// the job's cross-rank order. Every rank computes the same job plan (same trace, same inference),
// so each knows, without asking, which tokens it sends and which it awaits:
//
//  message     send s on rank A matched with receive v on rank B (the merge's match id m): the
//              receive completed after the send began, so B's calls that began after v ended
//              follow A's calls before s. A sends (A, m) to B just before s; B awaits it before
//              the first call of v's thread that began at or after v's end.
//  collective  every member leaves after every member entered (instance id m): each member sends
//              (i, m) to the instance's lowest rank L just before its call; L awaits them all before
//              the first call after its own, then sends (L, m) to each, which they await before the
//              first call after theirs.
//  clock edge  an edge d → r of the job plan between ranks (proven by the aligned timestamps
//              beyond both clocks' bounds, replay/passes/cross_rank_order.h): d's rank sends the
//              token right after d completes, r's rank awaits it before r.
//
// At one call, the awaited tokens come first, then the ones sent before it. A position past the
// rank's last call is the end of the replay (at_end).
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "mpi/job_clocks.h"
#include "replay/plan/plan.h"

namespace rastro::mpi {

struct Token {
  int peer = 0;       // destination of a send, source of an await
  int64_t value = 0;  // message/collective: the merge's match id; clock edge: kClockEdgeBase + edge index
  bool operator==(const Token&) const = default;
};
inline constexpr int64_t kClockEdgeBase = int64_t{1} << 48;

struct SyncActions {
  std::vector<Token> wait_before, send_before, send_after;
};

struct RankSyncPlan {
  std::unordered_map<uint32_t, SyncActions> at;  // by request of the rank's plan
  SyncActions at_end;                            // after the rank's replay: awaits, then sends
  uint64_t message_tokens_sent = 0, message_tokens_awaited = 0;
  uint64_t collective_tokens_sent = 0, collective_tokens_awaited = 0;
  uint64_t clock_edge_tokens_sent = 0, clock_edge_tokens_awaited = 0;
};

// `job`: the plan of the whole merged job; `local`: the plan of `rank`'s events only (its trace
// holds them in the job trace's order), `local_event[e]` the index in it of job event e (or
// UINT32_MAX for another rank's event).
RankSyncPlan rank_sync_plan(const replay::Plan& job, const JobClocks& clocks, int rank, const replay::Plan& local,
                            std::span<const uint32_t> local_event);

}  // namespace rastro::mpi
