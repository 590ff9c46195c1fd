// Pass "cross_rank_order": the dependencies between calls of different ranks of a merged MPI job
// (`rastro merge`; a no-op on any other trace). Each rank's timestamps were moved onto rank 0's
// clock with an offset known only within a bound (mpi/clock_model.h), so "d completed before r
// began" is proven across ranks only when the aligned gap exceeds both ends' bounds:
//     end(d) + bound(d) + bound(r) < begin(r).
// Within a rank (one clock) the comparison stays exact. The pass
//   - drops every cross-rank edge of infer_order that the gap does not prove (fs rules: a shared
//     file's users on different hosts; temporal: an order only the clocks suggest);
//   - under the temporal ordering, recomputes the cross-thread edges: per other thread, the latest
//     call proven completed (infer_order's reduction goes through calls of other ranks, whose
//     edges may be the ones dropped), leaving out what the thread's previous call already waits for.
// What the messages prove is not an edge here: `rastro replay --mpi` satisfies it with MPI
// messages between the ranks (mpi/replay/rank_sync_plan.h), and a replay of the merged trace on
// one host keeps only what the clocks prove.
// Reads: requests, deps. Produces: cross_rank_deps.
#pragma once

#include "replay/passes/pass_manager.h"

namespace rastro::replay {

Pass CreateCrossRankOrderPass();

}  // namespace rastro::replay
