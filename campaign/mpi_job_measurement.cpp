#include "campaign/mpi_job_measurement.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "common/error.h"
#include "mpi/clock_model.h"
#include "mpi/job_clocks.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::campaign {

namespace {

// A call on one of the workload's files: a path or an fd (resolved to its path) ending in ".dat".
bool on_workload_file(const trace::Event& e, const trace::Trace& t) {
  for (int a = 0; a < e.nargs; ++a) {
    const auto& arg = e.arg(a);
    if ((arg.type == trace::ArgType::kPath || arg.type == trace::ArgType::kFd) && t.str(arg.str).ends_with(".dat"))
      return true;
  }
  return false;
}

struct RankCalls {
  int64_t first_begin = std::numeric_limits<int64_t>::max();
  int64_t last_end = std::numeric_limits<int64_t>::min();
  size_t calls = 0;
  std::vector<double> write_ns;
};

}  // namespace

std::vector<Measurement> mpi_job_measurements(const trace::Trace& job, const std::string& prefix,
                                              const std::string& origin) {
  const auto clocks = mpi::JobClocks::from_header(job.header);
  if (!clocks) throw Error(fmt::format("{}: not a merged MPI job (no mpi_job header: merge it with rastro merge)", origin));
  std::vector<RankCalls> ranks(static_cast<size_t>(clocks->size()));
  for (const auto& e : job.events) {
    if (e.flags & (trace::kEventSkipped | trace::kEventUnfinished) || e.failed() || !on_workload_file(e, job)) continue;
    const int rank = clocks->rank_of(e.pid);
    if (rank < 0) throw Error(fmt::format("{}: event {} of pid {} belongs to no rank of the job", origin, e.seq, e.pid));
    RankCalls& r = ranks[static_cast<size_t>(rank)];
    r.first_begin = std::min(r.first_begin, e.begin_ns);
    r.last_end = std::max(r.last_end, e.end_ns);
    ++r.calls;
    const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
    if (info != nullptr && info->data_out >= 0) r.write_ns.push_back(static_cast<double>(e.duration_ns()));
  }
  std::vector<Measurement> out;
  for (size_t rank = 0; rank < ranks.size(); ++rank) {
    const RankCalls& r = ranks[rank];
    if (r.write_ns.empty())
      throw Error(fmt::format("{}: rank {} wrote none of the workload's files (*.dat)", origin, rank));
    const auto bound = clocks->widest_half_width(static_cast<int>(rank));
    if (!bound) throw Error(fmt::format("{}: rank {}'s clock offset was never measured", origin, rank));
    const double clock_u = mpi::standard_uncertainty(*bound);
    Measurement write;
    write.type = fmt::format("{}.write.r{}", prefix, rank);
    double sum = 0;
    for (double d : r.write_ns) sum += d;
    write.measured = sum / static_cast<double>(r.write_ns.size());
    write.extra = {{"n", r.write_ns.size()}, {"rank", rank}, {"clock_u_ns", 0.0}};
    out.push_back(std::move(write));
    Measurement span;
    span.type = fmt::format("{}.span.r{}", prefix, rank);
    span.measured = static_cast<double>(r.last_end - ranks[0].first_begin);
    span.extra = {{"n", r.calls}, {"rank", rank}, {"clock_u_ns", clock_u}, {"half_width_ns", *bound}};
    out.push_back(std::move(span));
  }
  return out;
}

}  // namespace rastro::campaign
