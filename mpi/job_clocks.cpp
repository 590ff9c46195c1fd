#include "mpi/job_clocks.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "common/saturating.h"

namespace rastro::mpi {

namespace {

std::optional<OffsetEstimate> estimate(const nlohmann::json& rank, const char* phase) {
  if (!rank.contains(phase)) return std::nullopt;
  const auto& e = rank.at(phase);
  return OffsetEstimate{e.at("at_ns").get<int64_t>(), e.at("offset_ns").get<int64_t>(),
                        e.at("half_width_ns").get<int64_t>(), e.at("rounds").get<int>()};
}

}  // namespace

std::optional<JobClocks> JobClocks::from_header(const trace::TraceHeader& header) {
  if (!header.extra.is_object() || !header.extra.contains("mpi_job")) return std::nullopt;
  JobClocks c;
  try {
    const auto& job = header.extra.at("mpi_job");
    c.job_ = job.at("job").get<std::string>();
    const auto& ranks = job.at("ranks");
    c.models_.resize(ranks.size());
    c.hosts_.resize(ranks.size());
    for (const auto& r : ranks) {
      const int rank = r.at("rank").get<int>();
      if (rank < 0 || static_cast<size_t>(rank) >= ranks.size())
        throw Error(fmt::format("rank {} of a job of {} ranks", rank, ranks.size()));
      c.models_[static_cast<size_t>(rank)] = ClockModel(estimate(r, "init"), estimate(r, "finalize"));
      c.hosts_[static_cast<size_t>(rank)] = r.at("host").get<std::string>();
      for (const auto& p : r.at("pids")) c.rank_of_pid_[p.get<int32_t>()] = rank;
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("malformed mpi_job header (write it with rastro merge): {}", e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("malformed mpi_job header: {}", e.what()));
  }
  return c;
}

int JobClocks::rank_of(int32_t pid) const {
  auto it = rank_of_pid_.find(pid);
  return it == rank_of_pid_.end() ? -1 : it->second;
}

int64_t JobClocks::half_width_at(int rank, int64_t t_ref) const {
  if (rank < 0 || rank >= size()) return 0;
  const ClockModel& m = models_[static_cast<size_t>(rank)];
  // The model is indexed by the rank's own clock; the bound changes by at most the difference of
  // two bounds over the whole run, so the offset at t_ref locates it closely enough.
  return m.half_width_at(sat_add(t_ref, m.offset_at(t_ref)));
}

std::optional<int64_t> JobClocks::widest_half_width(int rank) const {
  if (rank == 0) return 0;
  if (rank < 0 || rank >= size()) return std::nullopt;
  const ClockModel& m = models_[static_cast<size_t>(rank)];
  if (!m.measured()) return std::nullopt;
  int64_t widest = 0;
  for (const auto& e : {m.init(), m.finalize()})
    if (e) widest = std::max(widest, e->half_width);
  return widest;
}

double JobClocks::interval_uncertainty_ns(int rank_a, int64_t t_a, int rank_b, int64_t t_b) const {
  if (rank_a == rank_b) return 0;
  const double ua = standard_uncertainty(half_width_at(rank_a, t_a));
  const double ub = standard_uncertainty(half_width_at(rank_b, t_b));
  return std::sqrt(ua * ua + ub * ub);
}

}  // namespace rastro::mpi
