// `rastro merge`: one job trace from the per-rank traces of an MPI capture.
//
// Every rank's events move onto rank 0's clock through the rank's clock model (mpi/clock_model.h);
// point-to-point messages are matched send ↔ receive and collectives by their sequence number on
// their communicator, and each match gets an id (MPI event argument kArgMatch) that orders the
// calls across ranks: a receive completes after its send began, every member leaves a collective
// after every member entered it. That order comes from the messages, not from the clocks: where
// the aligned timestamps contradict it within the clocks' uncertainty the report counts it, and
// beyond that uncertainty it is a clock-model failure the report names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mpi/clock_model.h"
#include "trace/model/trace.h"

namespace rastro::mpi {

struct RankClock {
  int rank = 0;
  std::string host;
  int32_t pid = 0;
  int32_t merged_pid = 0;  // differs from pid only when another rank's pid collided with it
  ClockModel model;
};

struct MergeReport {
  std::string job;
  std::vector<RankClock> ranks;
  uint64_t events = 0;
  uint64_t messages_matched = 0;
  uint64_t sends_unmatched = 0;     // no receive recorded for them (e.g. the receiver never finalized)
  uint64_t recvs_unmatched = 0;
  uint64_t collectives_matched = 0; // collective instances seen on every member
  uint64_t collectives_partial = 0; // instances some member did not record
  uint64_t inversions_within_uncertainty = 0;  // receive ends "before" its send began, by less than the bound
  uint64_t inversions_beyond_uncertainty = 0;  // ... by more: the clock model is wrong for that pair
  int64_t max_cross_rank_half_width_ns = 0;
};

// Merges. Throws rastro::Error when the traces are not one job's ranks (no MPI header, different
// jobs, a rank twice or missing), naming the trace.
trace::Trace merge_ranks(std::vector<trace::Trace> ranks, const std::vector<std::string>& names, MergeReport* report);

}  // namespace rastro::mpi
