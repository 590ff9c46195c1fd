// `mpirun … rastro replay --mpi JOB --root ROOT -o OUT`: this process is one rank of the replay of
// a merged MPI job (JOB: the capture directory or what `rastro merge` wrote). It
//   1. loads the MPI replay shim of the launcher's MPI (shim_link.h) and joins the other ranks;
//   2. infers the plan of the whole job (every rank the same) and the plan of its own rank's
//      events, and from both the tokens it exchanges (rank_sync_plan.h);
//   3. synchronises clocks with rank 0, replays its part in ROOT/rank-R (the usual session: root
//      rules, --init, engines, summary) with the engine's hooks sending and awaiting the tokens,
//      and synchronises clocks again;
//   4. writes OUT/rank-R.rastro (the replayed trace, with the rank's mpi header, so `rastro merge
//      OUT` puts the replayed ranks on one clock as it does captured ones) and
//      OUT/rank-R.summary.json.
#pragma once

#include <chrono>
#include <string>

#include "replay/engines/engine.h"
#include "replay/plan/plan.h"
#include "replay/session/replay_session.h"

namespace rastro::mpi {

struct RankReplayOptions {
  std::string job;       // capture directory or merged trace
  std::string out_dir;   // rank-R.rastro and rank-R.summary.json
  replay::Ordering ordering = replay::Ordering::kFs;
  replay::EngineKind engine = replay::EngineKind::kWorkers;
  replay::SessionOptions session;  // root: the job's; this rank replays in ROOT/rank-R
  std::chrono::nanoseconds token_timeout = std::chrono::seconds(60);
  bool cross_rank_order = true;    // false: no tokens at all (a control: the ranks run unordered)
  int sync_rounds = 16;
};

// Runs this rank's replay. Throws rastro::Error (bad input, MPI failure, tokens that never came).
void run_rank_replay(const RankReplayOptions& options);

}  // namespace rastro::mpi
