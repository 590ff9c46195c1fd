#include "mpi/job_merge.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "common/error.h"
#include "common/saturating.h"
#include "mpi/mpi_ops.h"

namespace rastro::mpi {

namespace {

std::vector<SyncRound> rounds_from(const nlohmann::json& a) {
  std::vector<SyncRound> out;
  for (const auto& r : a) out.push_back({r.at(0).get<int64_t>(), r.at(1).get<int64_t>(), r.at(2).get<int64_t>()});
  return out;
}

struct Placed {
  trace::Event event;
  int rank;
  const MpiOpInfo* op;  // null for syscalls
  // Of the aligned begin and end: the offset is interpolated at each, so is its uncertainty (a
  // receive's end is later in the run than its begin, where the bound may be wider).
  int64_t half_width_begin;
  int64_t half_width_end;
};

// Key of a point-to-point channel: communicator, sender, receiver, tag. MPI's non-overtaking rule
// makes each channel FIFO: the n-th send matches the n-th receive posted for it.
using Channel = std::tuple<int64_t, int64_t, int64_t, int64_t>;

}  // namespace

namespace {

trace::Trace merge_checked(std::vector<trace::Trace> ranks, const std::vector<std::string>& names, MergeReport* report,
                           size_t* reading) {
  MergeReport rep;
  if (ranks.empty()) throw Error("merge: no rank traces");
  std::vector<int> rank_of(ranks.size());
  std::map<int, size_t> by_rank;
  int size = -1;
  if (names.size() != ranks.size()) throw Error("merge: one name per rank trace is needed");
  for (size_t i = 0; i < ranks.size(); ++i) {
    *reading = i;
    const auto& x = ranks[i].header.extra;
    if (!x.contains("mpi"))
      throw Error(fmt::format("merge: {} is not an MPI rank trace (no mpi header; capture it with --mpi)", names[i]));
    const auto& m = x["mpi"];
    const int r = m.at("rank").get<int>();
    const std::string job = m.at("job").get<std::string>();
    if (i == 0) rep.job = job, size = m.at("size").get<int>();
    if (job != rep.job)
      throw Error(fmt::format("merge: {} belongs to job {}, {} to job {}", names[i], job, names[0], rep.job));
    if (by_rank.count(r)) throw Error(fmt::format("merge: rank {} appears twice ({} and {})", r, names[by_rank[r]], names[i]));
    by_rank[r] = i;
    rank_of[i] = r;
  }
  for (int r = 0; r < size; ++r)
    if (!by_rank.count(r)) throw Error(fmt::format("merge: rank {} of {} is missing (job {})", r, size, rep.job));

  // Clock models and pid collisions.
  std::set<int32_t> pids_taken;
  int32_t next_free = 0;
  for (const auto& t : ranks)
    for (const auto& e : t.events) next_free = std::max({next_free, e.pid, e.tid});
  std::vector<std::map<int32_t, int32_t>> pid_map(ranks.size());
  std::vector<std::set<int32_t>> process_ids(ranks.size());  // pids (not tids) of each rank's trace
  for (const auto& [r, i] : by_rank) {
    *reading = i;
    const auto& m = ranks[i].header.extra["mpi"];
    RankClock rc;
    rc.rank = r;
    rc.host = m.at("host").get<std::string>();
    rc.pid = m.at("pid").get<int32_t>();
    if (r != 0)
      rc.model = ClockModel(best_offset(rounds_from(m.at("sync").at("init"))),
                            best_offset(rounds_from(m.at("sync").at("finalize"))));
    std::set<int32_t> own;
    for (const auto& e : ranks[i].events) {
      own.insert({e.pid, e.tid});
      process_ids[i].insert(e.pid);
    }
    for (int32_t p : own) {
      int32_t np = p;
      if (pids_taken.count(p)) np = ++next_free;
      pid_map[i][p] = np;
      pids_taken.insert(np);
    }
    rc.merged_pid = pid_map[i][rc.pid];
    rep.ranks.push_back(rc);
  }

  // Place every event on rank 0's clock.
  trace::Trace out;
  out.header = ranks[by_rank[0]].header;
  std::vector<Placed> all;
  for (const auto& [r, i] : by_rank) {
    const ClockModel& model = rep.ranks[static_cast<size_t>(r)].model;
    for (const trace::Event& src : ranks[i].events) {
      Placed p{src, r, nullptr, model.half_width_at(src.begin_ns), model.half_width_at(src.end_ns)};
      trace::Event& e = p.event;
      const std::string_view fname = trace::function_name(src, ranks[i].strings);
      if (src.nr < 0) {
        p.op = mpi_op_by_name(fname);
        e.name = out.strings.intern(fname);
      }
      for (int a = 0; a < e.nargs; ++a)
        if (src.arg(a).str != trace::kNoStr) e.args[static_cast<size_t>(a)].str = out.strings.intern(ranks[i].str(src.arg(a).str));
      e.pid = pid_map[i][src.pid];
      e.tid = pid_map[i][src.tid];  // thread ids share the pid space
      e.begin_ns = model.to_reference(src.begin_ns);
      if (!(src.flags & trace::kEventUnfinished)) e.end_ns = model.to_reference(src.end_ns);
      all.push_back(p);
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Placed& a, const Placed& b) { return a.event.begin_ns < b.event.begin_ns; });

  // Match messages (per channel FIFO, in each side's posting order = begin order) and collectives.
  std::map<Channel, std::deque<size_t>> sends, recvs;
  std::map<std::pair<int64_t, int64_t>, std::vector<size_t>> collectives;
  for (size_t k = 0; k < all.size(); ++k) {
    const Placed& p = all[k];
    if (!p.op || p.event.rvalue < 0) continue;
    const auto& a = p.event.args;
    if (p.op->kind == MpiOpKind::kSend)
      sends[{a[kArgComm].value, p.rank, a[kArgPeer].value, a[kArgTag].value}].push_back(k);
    else if (p.op->kind == MpiOpKind::kRecv)
      recvs[{a[kArgComm].value, a[kArgPeer].value, p.rank, a[kArgTag].value}].push_back(k);
    else if (p.op->kind == MpiOpKind::kCollective)
      collectives[{a[kArgComm].value, a[kArgExtra].value}].push_back(k);
  }
  // Sends are in begin order already; receives must be matched in posting order too — both lists
  // came from the begin-sorted `all`, and aligned order within one rank is its own clock's order.
  int64_t match_id = 0;
  auto set_match = [&](size_t k, int64_t id) {
    trace::Event& e = all[k].event;
    e.args[kArgMatch] = {trace::ArgType::kInt, id, trace::kNoStr};
    e.nargs = static_cast<uint8_t>(std::max<int>(e.nargs, kArgMatch + 1));
  };
  for (auto& [ch, sq] : sends) {
    auto it = recvs.find(ch);
    std::deque<size_t> empty;
    std::deque<size_t>& rq = it == recvs.end() ? empty : it->second;
    while (!sq.empty() && !rq.empty()) {
      const size_t s = sq.front(), r = rq.front();
      sq.pop_front();
      rq.pop_front();
      ++match_id;
      set_match(s, match_id);
      set_match(r, match_id);
      ++rep.messages_matched;
      const int64_t gap = sat_sub(all[r].event.end_ns, all[s].event.begin_ns);  // must be > 0
      const int64_t bound = sat_add(all[r].half_width_end, all[s].half_width_begin);
      rep.max_cross_rank_half_width_ns = std::max(rep.max_cross_rank_half_width_ns, bound);
      // A replayed job's MPI events are markers the replay passed (skipped calls), not operations
      // that ran: they are matched, their times prove nothing (mpi/replay/rank_replay.h).
      const bool ran = !((all[r].event.flags | all[s].event.flags) & trace::kEventSkipped);
      if (gap < 0 && ran) (gap >= -bound ? rep.inversions_within_uncertainty : rep.inversions_beyond_uncertainty)++;
    }
    rep.sends_unmatched += sq.size();
  }
  for (auto& [ch, rq] : recvs) rep.recvs_unmatched += rq.size();
  for (auto& [key, members] : collectives) {
    ++match_id;
    for (size_t k : members) set_match(k, match_id);
    std::set<int> who;
    for (size_t k : members) who.insert(all[k].rank);
    (static_cast<int>(who.size()) == size ? rep.collectives_matched : rep.collectives_partial)++;
  }

  out.events.reserve(all.size());
  for (auto& p : all) {
    p.event.seq = out.events.size();
    out.events.push_back(p.event);
  }
  rep.events = out.events.size();
  // Viewer hints any exporter can use without knowing MPI: track names, and message arrows as
  // (from seq, to seq) pairs — the send and its matching receive.
  nlohmann::json flows = nlohmann::json::array();
  std::map<int64_t, size_t> send_of;
  for (size_t k = 0; k < all.size(); ++k)
    if (all[k].op && all[k].op->kind == MpiOpKind::kSend && all[k].event.nargs > kArgMatch)
      send_of[all[k].event.args[kArgMatch].value] = k;
  for (size_t k = 0; k < all.size(); ++k)
    if (all[k].op && all[k].op->kind == MpiOpKind::kRecv && all[k].event.nargs > kArgMatch)
      if (auto it = send_of.find(all[k].event.args[kArgMatch].value); it != send_of.end())
        flows.push_back({it->second, k});

  // Header: rank 0's, plus the job's clocks and every rank's counters.
  auto& h = out.header;
  h.backend = "merge:" + h.backend;
  h.events_captured = 0;
  h.events_lost = 0;
  h.lost_reasons = nlohmann::json::object();
  auto ranks_json = nlohmann::json::array();
  for (const auto& rc : rep.ranks) {
    const auto& src = ranks[by_rank[rc.rank]].header;
    h.events_captured += src.events_captured;
    h.events_lost += src.events_lost;
    for (const auto& [reason, n] : src.lost_reasons.items())
      h.lost_reasons[reason] = h.lost_reasons.value(reason, uint64_t{0}) + n.get<uint64_t>();
    nlohmann::json j = {{"rank", rc.rank}, {"host", rc.host}, {"pid", rc.pid}, {"merged_pid", rc.merged_pid},
                        {"trace", names[by_rank[rc.rank]]}, {"backend", src.backend}, {"kernel", src.kernel},
                        {"drift_ppm", rc.model.drift_ppm()}, {"drift_bound_ppm", rc.model.drift_bound_ppm()}};
    auto pids = nlohmann::json::array();  // the rank's processes as merged (mpi/job_clocks.h)
    for (int32_t p : process_ids[by_rank[rc.rank]]) pids.push_back(pid_map[by_rank[rc.rank]][p]);
    j["pids"] = pids;
    for (const auto& [phase, est] : {std::pair{"init", rc.model.init()}, std::pair{"finalize", rc.model.finalize()}})
      if (est)
        j[phase] = {{"at_ns", est->at}, {"offset_ns", est->offset}, {"half_width_ns", est->half_width},
                    {"u_ns", standard_uncertainty(est->half_width)}, {"rounds", est->rounds}};
    ranks_json.push_back(j);
  }
  h.extra = nlohmann::json::object();
  nlohmann::json names_json = nlohmann::json::object(), by_rank_json = nlohmann::json::object(),
                 by_host_json = nlohmann::json::object();
  for (const auto& rc : rep.ranks) {
    names_json[std::to_string(rc.merged_pid)] = fmt::format("rank {} @ {} (pid {})", rc.rank, rc.host, rc.pid);
    const size_t i = by_rank[rc.rank];
    for (int32_t p : process_ids[i]) {  // the rank's process and every process it started
      by_rank_json[std::to_string(pid_map[i][p])] = fmt::format("rank {}", rc.rank);
      by_host_json[std::to_string(pid_map[i][p])] = rc.host;
    }
  }
  h.extra["process_names"] = names_json;
  h.extra["process_groups"] = {{"rank", by_rank_json}, {"host", by_host_json}};
  h.extra["flows"] = flows;
  h.extra["mpi_job"] = {
      {"job", rep.job},
      {"ranks", ranks_json},
      {"reference_clock", "rank 0's CLOCK_MONOTONIC"},
      {"messages_matched", rep.messages_matched},
      {"sends_unmatched", rep.sends_unmatched},
      {"recvs_unmatched", rep.recvs_unmatched},
      {"collectives_matched", rep.collectives_matched},
      {"collectives_partial", rep.collectives_partial},
      {"inversions_within_uncertainty", rep.inversions_within_uncertainty},
      {"inversions_beyond_uncertainty", rep.inversions_beyond_uncertainty},
      {"max_cross_rank_half_width_ns", rep.max_cross_rank_half_width_ns},
  };
  h.complete = true;
  if (report) *report = rep;
  return out;
}

}  // namespace

trace::Trace merge_ranks(std::vector<trace::Trace> ranks, const std::vector<std::string>& names, MergeReport* report) {
  size_t reading = 0;
  try {
    return merge_checked(std::move(ranks), names, report, &reading);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("merge: {}: malformed mpi header: {}", reading < names.size() ? names[reading] : "?", e.what()));
  }
}

}  // namespace rastro::mpi
