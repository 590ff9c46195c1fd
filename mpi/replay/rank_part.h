// One rank's part of a merged job: its events (those of its processes, mpi/job_clocks.h), in the
// job's order, as a trace of their own to infer the rank's plan from, and where each job event went.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "mpi/job_clocks.h"
#include "trace/model/trace.h"

namespace rastro::mpi {

inline constexpr uint32_t kNotInRank = std::numeric_limits<uint32_t>::max();

struct RankPart {
  trace::Trace trace;                // header: the job's, without the job's extras; host: the rank's
  std::vector<uint32_t> local_event;  // job event index -> index in `trace`, or kNotInRank
};

RankPart rank_part(const trace::Trace& job, const JobClocks& clocks, int rank);

}  // namespace rastro::mpi
