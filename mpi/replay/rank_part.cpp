#include "mpi/replay/rank_part.h"

namespace rastro::mpi {

RankPart rank_part(const trace::Trace& job, const JobClocks& clocks, int rank) {
  RankPart p;
  p.trace.header = job.header;
  p.trace.header.extra = nlohmann::json::object();  // a one-host trace: no cross-rank pass on it
  p.trace.header.host = clocks.host(rank);
  p.trace.strings = job.strings;
  p.local_event.assign(job.events.size(), kNotInRank);
  for (size_t i = 0; i < job.events.size(); ++i)
    if (clocks.rank_of(job.events[i].pid) == rank) {
      p.local_event[i] = static_cast<uint32_t>(p.trace.events.size());
      p.trace.events.push_back(job.events[i]);
    }
  return p;
}

}  // namespace rastro::mpi
