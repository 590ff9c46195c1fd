// `mpirun … rastro replay --mpi`: a captured 4-rank job (mpi/workload/mpi_io_ranks.c, each rank's
// clock shifted 1000·R s by a time namespace, as hosts disagree) replayed by 4 ranks, again each
// in its time namespace. Every order the job's messages and collectives prove between file-system
// calls of different ranks must hold in the replayed traces; the orders are worked out here from
// the merged capture, and the replayed times are put on one clock with the injected offsets
// (exact), then with the offsets `rastro merge` estimates from the replay's own clock rounds.
// The control replays without the cross-rank tokens: rank 0's long first phase is then overtaken.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "mpi/mpi_ops.h"
#include "tests/mpi/mpi_job_util.h"
#include "trace/io/trace_io.h"

namespace rastro::mpi {
namespace {

using namespace testing;

// "Rank b's call number `later` (in its replayed trace) begins after rank a's call `earlier` ends."
struct Order {
  int a;
  size_t earlier;
  int b;
  size_t later;
};

// The orders the matched messages and collectives of a merged job prove between its ranks'
// file-system calls: the sender's last call (of the sending thread) before the send began, and
// the receiver's first call (of the receiving thread) that began after the receive ended;
// for a collective, every pair of members.
std::vector<Order> message_orders(const trace::Trace& job) {
  std::map<int32_t, int> rank_of;
  for (const auto& r : job.header.extra["mpi_job"]["ranks"])
    for (const auto& p : r["pids"]) rank_of[p.get<int32_t>()] = r["rank"].get<int>();
  // Per rank, its events in the job's order (the order of its replayed trace).
  std::map<int, std::vector<const trace::Event*>> events;
  for (const auto& e : job.events) events[rank_of.at(e.pid)].push_back(&e);
  struct Op {
    int rank;
    size_t pos;
    MpiOpKind kind;
  };
  std::map<int64_t, std::vector<Op>> by_match;
  for (const auto& [rank, evs] : events)
    for (size_t i = 0; i < evs.size(); ++i) {
      const auto* op = mpi_op_by_name(trace::function_name(*evs[i], job.strings));
      if (op && evs[i]->nr < 0 && evs[i]->nargs > kArgMatch) by_match[evs[i]->arg(kArgMatch).value].push_back({rank, i, op->kind});
    }
  auto last_call_before = [&](const Op& o) -> std::optional<size_t> {
    const auto& evs = events[o.rank];
    for (size_t i = o.pos; i-- > 0;)
      if (evs[i]->tid == evs[o.pos]->tid && evs[i]->nr >= 0) return i;
    return std::nullopt;
  };
  auto first_call_after = [&](const Op& o) -> std::optional<size_t> {
    const auto& evs = events[o.rank];
    for (size_t i = o.pos + 1; i < evs.size(); ++i)
      if (evs[i]->tid == evs[o.pos]->tid && evs[i]->nr >= 0 && evs[i]->begin_ns >= evs[o.pos]->end_ns) return i;
    return std::nullopt;
  };
  std::vector<Order> out;
  for (const auto& [m, ops] : by_match)
    for (const Op& from : ops)
      for (const Op& to : ops) {
        if (from.rank == to.rank) continue;
        const bool message = from.kind == MpiOpKind::kSend && to.kind == MpiOpKind::kRecv;
        const bool collective = from.kind == MpiOpKind::kCollective && to.kind == MpiOpKind::kCollective;
        if (!message && !collective) continue;
        auto a = last_call_before(from);
        auto b = first_call_after(to);
        if (a && b) out.push_back({from.rank, *a, to.rank, *b});
      }
  return out;
}

struct Violations {
  size_t checked = 0;
  size_t violated = 0;
  std::string first;
};

// Checks the orders in the replayed traces, each rank's times minus `offset_ns(rank, t)`; `slack_ns`
// is what the alignment may be off by for that pair.
Violations check_orders(const std::vector<Order>& orders, const std::vector<trace::Trace>& replayed,
                        const std::function<int64_t(int, int64_t)>& offset_ns,
                        const std::function<int64_t(int, int)>& slack_ns) {
  Violations v;
  for (const Order& o : orders) {
    const auto& ta = replayed[static_cast<size_t>(o.a)].events;
    const auto& tb = replayed[static_cast<size_t>(o.b)].events;
    if (o.earlier >= ta.size() || o.later >= tb.size()) {
      ADD_FAILURE() << "the replayed traces do not hold the job's events";
      return v;
    }
    const trace::Event& ea = ta[o.earlier];
    const trace::Event& eb = tb[o.later];
    if ((ea.flags | eb.flags) & trace::kEventSkipped) continue;
    ++v.checked;
    const int64_t end_a = ea.end_ns - offset_ns(o.a, ea.end_ns);
    const int64_t begin_b = eb.begin_ns - offset_ns(o.b, eb.begin_ns);
    if (begin_b + slack_ns(o.a, o.b) < end_a && v.violated++ == 0)
      v.first = "rank " + std::to_string(o.b) + " call " + std::to_string(o.later) + " began " +
                std::to_string(end_a - begin_b) + " ns before rank " + std::to_string(o.a) + " call " +
                std::to_string(o.earlier) + " ended";
  }
  return v;
}

struct ReplayedJob {
  trace::Trace source;
  std::vector<trace::Trace> ranks;
  std::string dir;
};

// Captures the job in shifted clocks, merges it, replays it with `replay_flags`.
ReplayedJob capture_and_replay(const Flavor& f, const std::string& tag, const std::string& replay_flags) {
  ReplayedJob j;
  j.dir = scratch(f.name + "-replay-" + tag);
  const std::string env = "RASTRO_TEST_CLOCK_STEP_S=" + std::to_string(kStepSeconds) + " timeout 300 " + f.launch +
                          " -n " + std::to_string(kRanks) + " " + TIME_OFFSET_WRAPPER + " " + cli_test::kRastro;
  auto cap = sh(env + " capture --mpi -b ptrace -q -o " + j.dir + "/traces -- " + f.app + " " + j.dir + "/data " +
                std::to_string(kRounds));
  EXPECT_EQ(cap.status, 0) << cap.out;
  auto merge = sh(cli_test::kRastro + " merge " + j.dir + "/traces -o " + j.dir + "/job.rastro");
  EXPECT_EQ(merge.status, 0) << merge.out;
  // The ranks load the MPI library into rastro itself: under AddressSanitizer its own
  // allocations at exit are not rastro's leaks (as in the other CLI tests of third-party code).
  const std::string cmd = "ASAN_OPTIONS=detect_leaks=0 " + env + " replay --mpi " + j.dir + "/job.rastro --root " + j.dir + "/root --init -o " + j.dir +
                          "/replayed " + replay_flags;
  auto rep = sh(cmd);
  EXPECT_EQ(rep.status, 0) << cmd << "\n" << rep.out;
  j.source = trace::read_trace(j.dir + "/job.rastro");
  for (int r = 0; r < kRanks; ++r) {
    const std::string p = j.dir + "/replayed/rank-" + std::to_string(r) + ".rastro";
    if (!std::filesystem::exists(p)) {
      ADD_FAILURE() << p << " is missing\n" << rep.out;
      return j;
    }
    j.ranks.push_back(trace::read_trace(p));
  }
  return j;
}

int64_t injected(int rank, int64_t) { return rank * kStepSeconds * 1'000'000'000; }

TEST(MpiReplay, FourRanksKeepEveryMessageOrder) {
  if (!can_unshare_time()) GTEST_SKIP() << "time namespaces are not available (unshare --time failed)";
  for (const auto& f : flavors()) {
    SCOPED_TRACE(f.name);
    ReplayedJob j = capture_and_replay(f, "fs", "-O fs");
    ASSERT_EQ(j.ranks.size(), static_cast<size_t>(kRanks));
    const auto orders = message_orders(j.source);
    // Ring hops with a write on each side, the shared-file sizes, and three collectives' pairs.
    EXPECT_GE(orders.size(), static_cast<size_t>(kRounds * kRanks));
    const auto exact = check_orders(orders, j.ranks, injected, [](int, int) { return 0; });
    EXPECT_GT(exact.checked, static_cast<size_t>(kRounds * kRanks));
    EXPECT_EQ(exact.violated, 0u) << exact.first;
    for (const auto& t : j.ranks) {
      ASSERT_TRUE(t.header.extra.contains("mpi_replay"));
      EXPECT_EQ(t.header.extra["mpi_replay"]["tokens_timed_out"], 0);
      EXPECT_GT(t.header.extra["mpi_replay"]["message_tokens"]["sent"].get<int>() +
                    t.header.extra["mpi_replay"]["message_tokens"]["awaited"].get<int>(), 0);
    }

    // The replayed ranks as a job of their own: the merge recovers the namespaces' offsets from
    // the replay's clock rounds, and the orders hold on its aligned clock within its bounds.
    auto merge = sh(cli_test::kRastro + " merge " + j.dir + "/replayed -o " + j.dir + "/replayed.rastro --json");
    ASSERT_EQ(merge.status, 0) << merge.out;
    auto rep = nlohmann::json::parse(merge.out.substr(merge.out.find('{')));
    EXPECT_EQ(rep["messages_matched"], j.source.header.extra["mpi_job"]["messages_matched"]);
    std::map<int, std::pair<int64_t, int64_t>> est;  // rank -> (offset at init, bound)
    for (const auto& r : rep["ranks"]) {
      const int rank = r["rank"];
      if (rank == 0) continue;
      const int64_t off = r["init"]["offset_ns"], bound = r["init"]["half_width_ns"];
      EXPECT_LE(std::llabs(off - injected(rank, 0)), bound) << r.dump();
      est[rank] = {off, bound};
    }
    auto offset = [&](int rank, int64_t) { return rank == 0 ? 0 : est[rank].first; };
    auto slack = [&](int a, int b) { return (a ? est[a].second : 0) + (b ? est[b].second : 0); };
    const auto aligned = check_orders(orders, j.ranks, offset, slack);
    EXPECT_EQ(aligned.violated, 0u) << aligned.first;
    std::filesystem::remove_all(j.dir);
  }
}

// A capture and replay with the first MPI built here; the message orders checked on the injected
// (exact) offsets.
Violations replay_first_flavor(const std::string& tag, const std::string& flags, ReplayedJob* j) {
  auto fl = flavors();
  if (fl.empty()) {
    ADD_FAILURE() << "no MPI built";
    return {};
  }
  *j = capture_and_replay(fl.front(), tag, flags);
  if (j->ranks.size() != static_cast<size_t>(kRanks)) {
    ADD_FAILURE() << "the replay wrote " << j->ranks.size() << " rank traces";
    return {};
  }
  return check_orders(message_orders(j->source), j->ranks, injected, [](int, int) { return 0; });
}

TEST(MpiReplay, TemporalOrderingAddsClockProvenEdgesAndStillKeepsTheMessages) {
  if (!can_unshare_time()) GTEST_SKIP() << "time namespaces are not available (unshare --time failed)";
  ReplayedJob j;
  const auto exact = replay_first_flavor("temporal", "-O temporal -e coordinator", &j);
  EXPECT_EQ(exact.violated, 0u) << exact.first;
  int64_t clock_edges = 0;
  for (const auto& t : j.ranks) clock_edges += t.header.extra["mpi_replay"]["clock_edge_tokens"]["sent"].get<int64_t>();
  EXPECT_GT(clock_edges, 0);
  std::filesystem::remove_all(j.dir);
}

TEST(MpiReplay, ControlWithoutCrossRankTokensTheOrdersBreak) {
  if (!can_unshare_time()) GTEST_SKIP() << "time namespaces are not available (unshare --time failed)";
  ReplayedJob j;
  const auto exact = replay_first_flavor("control", "-O fs --no-cross-rank-order", &j);
  EXPECT_GT(exact.checked, 0u);
  EXPECT_GT(exact.violated, 0u) << "rank 0's long first phase should be overtaken by the others' ring writes";
  std::filesystem::remove_all(j.dir);
}

TEST(MpiReplay, OutsideAnMpiLauncherItSaysHowToRunIt) {
  auto r = sh("env -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u PMIX_RANK -u SLURM_PROCID " + cli_test::kRastro +
              " replay --mpi /nonexistent --root /tmp/x -o /tmp/y");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("no MPI launcher"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace rastro::mpi
