#include "mpi/replay/rank_replay.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "common/error.h"
#include "mpi/job_clocks.h"
#include "mpi/job_dir.h"
#include "mpi/launch_env.h"
#include "mpi/replay/clock_rounds.h"
#include "mpi/replay/rank_part.h"
#include "mpi/replay/rank_sync_plan.h"
#include "mpi/replay/shim_link.h"
#include "mpi/replay/token_mailbox.h"
#include "replay/passes/replay_passes.h"
#include "trace/io/trace_io.h"

namespace rastro::mpi {

namespace {

// The engine's hooks: the rank's tokens, at the calls the sync plan puts them.
class TokenHooks final : public replay::RequestHooks {
 public:
  TokenHooks(const RankSyncPlan& plan, TokenMailbox& mailbox) : plan_(plan), mailbox_(mailbox) {}

  bool before_issue(uint32_t r) override {
    auto it = plan_.at.find(r);
    return it != plan_.at.end() && before(it->second);
  }
  void after_complete(uint32_t r) override {
    auto it = plan_.at.find(r);
    if (it == plan_.at.end()) return;
    for (const Token& t : it->second.send_after) mailbox_.send(t.peer, t.value);
  }
  // What comes after the rank's last call.
  void finish() { before(plan_.at_end); }

 private:
  bool before(const SyncActions& a) {
    bool waited = false;
    for (const Token& t : a.wait_before) waited |= mailbox_.wait(t.peer, t.value);
    for (const Token& t : a.send_before) mailbox_.send(t.peer, t.value);
    return waited;
  }
  const RankSyncPlan& plan_;
  TokenMailbox& mailbox_;
};

int32_t rank_pid(const trace::TraceHeader& job, int rank) {
  for (const auto& r : job.extra.at("mpi_job").at("ranks"))
    if (r.value("rank", -1) == rank) return r.value("merged_pid", 0);
  return 0;
}

std::string host_name() {
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  return host;
}

}  // namespace

void run_rank_replay(const RankReplayOptions& o) {
  const auto env = detect_launch_env([](const char* n) -> const char* { return std::getenv(n); });
  if (!env)
    throw Error("replay --mpi: no MPI launcher in the environment (run it as the ranks: mpirun -n N rastro replay "
                "--mpi JOB --root ROOT -o OUT)", 2);
  std::vector<std::string> warnings;
  trace::Trace job = read_job(o.job, &warnings);
  const auto clocks = JobClocks::from_header(job.header);
  if (!clocks) throw Error(fmt::format("replay --mpi: {} is not a merged MPI job", o.job), 2);

  ShimLink link(replay_shim_path(env->flavor));
  const int rank = link.rank();
  if (link.size() != clocks->size())
    throw Error(fmt::format("replay --mpi: the job {} has {} ranks but {} were started: start as many as it had",
                            o.job, clocks->size(), link.size()), 2);

  RankPart part = rank_part(job, *clocks, rank);
  const trace::TraceHeader job_header = job.header;
  const replay::Plan job_plan = replay::infer_plan(std::move(job), o.ordering).take();
  const replay::Plan plan = replay::infer_plan(std::move(part.trace), o.ordering).take();
  const RankSyncPlan sync =
      o.cross_rank_order ? rank_sync_plan(job_plan, *clocks, rank, plan, part.local_event) : RankSyncPlan{};

  replay::SessionOptions so = o.session;
  std::filesystem::create_directories(o.session.root);
  std::filesystem::create_directories(o.out_dir);
  so.root = (std::filesystem::path(o.session.root) / fmt::format("rank-{}", rank)).string();
  so.out = (std::filesystem::path(o.out_dir) / fmt::format("rank-{}.rastro", rank)).string();
  so.summary_json = (std::filesystem::path(o.out_dir) / fmt::format("rank-{}.summary.json", rank)).string();
  so.source = o.job;
  so.warnings.insert(so.warnings.end(), warnings.begin(), warnings.end());

  link.barrier();
  const auto init_rounds = sync_with_rank0(link, o.sync_rounds);
  TokenMailbox mailbox(link, o.token_timeout);
  TokenHooks hooks(sync, mailbox);
  link.barrier();  // every rank starts its replay together
  replay::run_replay_session(plan, so, [&](const replay::Plan& p, const replay::SandboxResolver& s,
                                           const replay::EngineOptions& eo) {
    replay::EngineOptions with_hooks = eo;
    with_hooks.hooks = &hooks;
    return replay::run_engine(o.engine, p, s, with_hooks);
  });
  hooks.finish();
  link.barrier();
  const auto finalize_rounds = sync_with_rank0(link, o.sync_rounds);
  link.finish();

  // The replayed trace as a rank trace of its own job (`rastro merge OUT`).
  trace::Trace out = trace::read_trace(so.out);
  out.header.extra["mpi"] = {
      {"rank", rank},
      {"size", link.size()},
      {"host", host_name()},
      {"job", clocks->job() + "/replay"},
      {"pid", rank_pid(job_header, rank)},
      {"finalized", true},
      {"sync", {{"init", sync_rounds_json(init_rounds)}, {"finalize", sync_rounds_json(finalize_rounds)}}},
      {"launcher", env->launcher},
  };
  out.header.extra["mpi_replay"] = {
      {"source_job", clocks->job()},
      {"cross_rank_order", o.cross_rank_order},
      {"message_tokens", {{"sent", sync.message_tokens_sent}, {"awaited", sync.message_tokens_awaited}}},
      {"collective_tokens", {{"sent", sync.collective_tokens_sent}, {"awaited", sync.collective_tokens_awaited}}},
      {"clock_edge_tokens", {{"sent", sync.clock_edge_tokens_sent}, {"awaited", sync.clock_edge_tokens_awaited}}},
      {"tokens_timed_out", mailbox.timed_out()},
  };
  trace::write_trace(so.out, out);
  fmt::print(stderr,
             "rastro: replay --mpi: rank {} of {}: tokens sent {}, received {} (messages {}/{}, collectives {}/{}, "
             "clock-proven edges {}/{} sent/awaited) -> {}\n",
             rank, link.size(), mailbox.sent(), mailbox.received(), sync.message_tokens_sent,
             sync.message_tokens_awaited, sync.collective_tokens_sent, sync.collective_tokens_awaited,
             sync.clock_edge_tokens_sent, sync.clock_edge_tokens_awaited, so.out);
  if (mailbox.timed_out() > 0)
    throw Error(fmt::format("replay --mpi: rank {}: {} tokens did not come within {} s: those calls ran without the "
                            "order the other ranks' calls give them",
                            rank, mailbox.timed_out(),
                            std::chrono::duration_cast<std::chrono::seconds>(o.token_timeout).count()));
}

}  // namespace rastro::mpi
