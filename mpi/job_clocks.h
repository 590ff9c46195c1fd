// The clocks of a merged MPI job, read back from its header (extra.mpi_job, written by `rastro
// merge`): which rank every process of the trace belongs to, and how far each rank's aligned
// timestamps may be off. Whatever orders or measures across ranks reads them here: the replay's
// cross-rank pass (replay/passes/cross_rank_order.h) and the metrology of cross-host intervals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "mpi/clock_model.h"
#include "trace/model/trace.h"

namespace rastro::mpi {

class JobClocks {
 public:
  // nullopt when the header is not a merged MPI job's; throws rastro::Error naming what is
  // malformed in one.
  static std::optional<JobClocks> from_header(const trace::TraceHeader& header);

  int size() const { return static_cast<int>(models_.size()); }
  const std::string& job() const { return job_; }
  const std::string& host(int rank) const { return hosts_[static_cast<size_t>(rank)]; }
  // The rank whose process (or one of its children) `pid` is in the merged trace; -1 if none.
  int rank_of(int32_t pid) const;
  // Bound on the error of an aligned timestamp `t_ref` (rank 0's clock) of `rank` (0 for rank 0).
  int64_t half_width_at(int rank, int64_t t_ref) const;
  // Type-B standard uncertainty of an interval from a timestamp of `rank_a` to one of `rank_b`
  // (each end off by at most its bound, uniformly: u = bound/√3 per end, combined in quadrature);
  // 0 when both ends are on one rank (one clock: no offset error).
  double interval_uncertainty_ns(int rank_a, int64_t t_a, int rank_b, int64_t t_b) const;
  // The widest bound `rank`'s aligned timestamps have anywhere in the run: the bound at an instant
  // lies between the init and finalize bounds (interpolated) or is the nearer one, so this one
  // holds wherever an interval lies (0 for rank 0, the reference clock). nullopt when the rank's
  // offset was never measured.
  std::optional<int64_t> widest_half_width(int rank) const;

 private:
  std::string job_;
  std::vector<ClockModel> models_;  // by rank
  std::vector<std::string> hosts_;
  std::unordered_map<int32_t, int> rank_of_pid_;
};

}  // namespace rastro::mpi
