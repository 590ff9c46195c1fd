#include "replay/runtime/replay_output.h"

#include <sys/syscall.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"
#include "replay/runtime/rank_select.h"
#include "trace/analysis/concurrency.h"
#include "trace/io/trace_io.h"

namespace rastro::replay {
namespace {

// The rank of the q-quantile among n values (the nearest rank, as the summary always took it).
uint64_t quantile_rank(uint64_t n, double q) { return static_cast<uint64_t>(q * static_cast<double>(n - 1) + 0.5); }

std::vector<EcdfPoint> ecdf(const trace::ConcurrencySummary& s) {
  std::vector<EcdfPoint> out;
  for (const auto& st : s.ecdf) out.push_back({st.level, st.cumulative});
  return out;
}

nlohmann::json ecdf_json(const std::vector<EcdfPoint>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : v) a.push_back({p.level, p.cumulative});
  return a;
}

}  // namespace

ReplaySummary summarize_replay(const PlanTrace& source, const RecordLog& records, const ExecStats& stats,
                               uint64_t dependency_waits, int64_t wall_ns, const trace::TimerBias& timer_bias) {
  ReplaySummary s;
  s.requests = records.size();
  s.emulated = stats.emulated;
  s.emulated_files = stats.emulated_files;
  s.replayed = stats.executed + stats.emulated;
  s.skipped = stats.skipped_total();
  s.mismatched = stats.mismatched;
  s.dependency_waits = dependency_waits;
  s.wall_ns = wall_ns;
  for (int i = 1; i < kSkipReasons; ++i) {
    uint64_t n = stats.skipped[static_cast<size_t>(i)];
    if (n) s.skipped_by_reason[skip_reason_name(static_cast<SkipReason>(i))] = n;
  }
  s.unsupported_by_name = stats.unsupported;
  s.mismatched_by_call = stats.mismatched_by_call;

  // The traced and replayed calls' concurrency, in memory independent of their number (begins
  // and ends sorted apart, spilling to $TMPDIR beyond 2^18 values each: 12 MB for the six): the
  // same levels as concurrency_levels() over vectors of them, which took 64 bytes a request.
  constexpr size_t kSortValues = size_t{1} << 18;
  trace::ConcurrencyCounter traced_levels(kSortValues), replayed_levels(kSortValues);
  trace::FidelityAccumulator fidelity(timer_bias);
  const std::span<const Request> requests = records.requests();
  // The issue error (begin - planned) of every request: sum and extremes here, the percentiles
  // below by reading the log again (rank_select.h) rather than keeping 8 bytes a request.
  double err_sum = 0;
  int64_t err_min = std::numeric_limits<int64_t>::max(), err_max = std::numeric_limits<int64_t>::min();
  records.for_each([&](uint32_t i, const RequestRecord& r) {
    const int64_t err = r.begin_ns - r.planned_ns;
    err_sum += static_cast<double>(err);
    err_min = std::min(err_min, err);
    err_max = std::max(err_max, err);
    const trace::Event& traced = source.events[requests[i].event];
    const bool skipped = r.flags & trace::kEventSkipped;
    fidelity.add(traced, trace::function_name(traced, source.strings),
                 {r.begin_ns, r.end_ns, r.flags, skipped ? skip_reason_name(r.skip) : "",
                  r.emulated ? trace::Emulation::kEmulated : trace::Emulation::kExecuted, r.planned_ns});
    if (skipped || (traced.flags & trace::kEventUnfinished)) return;
    traced_levels.add(traced.begin_ns, traced.end_ns);
    replayed_levels.add(r.begin_ns, r.end_ns);
  });
  if (const uint64_t n = records.size(); n > 0) {
    s.issue_error_mean_ns = err_sum / static_cast<double>(n);
    s.issue_error_max_ns = err_max;
    const uint64_t ranks[] = {quantile_rank(n, 0.50), quantile_rank(n, 0.99)};
    const std::vector<int64_t> p = select_ranks(
        [&](auto&& f) { records.for_each([&](uint32_t, const RequestRecord& r) { f(r.begin_ns - r.planned_ns); }); },
        err_min, err_max, ranks);
    s.issue_error_p50_ns = p[0];
    s.issue_error_p99_ns = p[1];
  }
  const trace::ConcurrencySummary ts = trace::summarize_concurrency(traced_levels.requests_per_level());
  const trace::ConcurrencySummary rs = trace::summarize_concurrency(replayed_levels.requests_per_level());
  s.concurrency_mean_trace = ts.mean;
  s.concurrency_mean_replay = rs.mean;
  s.concurrency_ecdf_trace = ecdf(ts);
  s.concurrency_ecdf_replay = ecdf(rs);
  s.fidelity = fidelity.finish();
  return s;
}

nlohmann::json ReplaySummary::to_json() const {
  nlohmann::json j;
  j["engine"] = engine;
  j["ordering"] = ordering;
  j["timing"] = timing;
  j["requests"] = requests;
  j["replayed"] = replayed;
  j["emulated"] = emulated;
  j["emulated_files"] = emulated_files;
  j["skipped"] = skipped;
  j["skipped_by_reason"] = skipped_by_reason;
  j["unsupported_by_name"] = unsupported_by_name;
  j["mismatched"] = mismatched;
  j["mismatched_by_call"] = mismatched_by_call;
  j["dependency_waits"] = dependency_waits;
  j["replay_processes"] = replay_processes;
  j["issue_error_p50_ns"] = issue_error_p50_ns;
  j["issue_error_p99_ns"] = issue_error_p99_ns;
  j["issue_error_max_ns"] = issue_error_max_ns;
  j["issue_error_mean_ns"] = issue_error_mean_ns;
  j["wall_ns"] = wall_ns;
  j["timer_bias_ns"] = fidelity.timer_bias.median_ns;  // (its spread: fidelity.timer_bias)
  j["concurrency"] = {{"mean_trace", concurrency_mean_trace},
                      {"mean_replay", concurrency_mean_replay},
                      {"ecdf_trace", ecdf_json(concurrency_ecdf_trace)},
                      {"ecdf_replay", ecdf_json(concurrency_ecdf_replay)}};
  j["warnings"] = warnings;
  trace::FidelityReport f = fidelity;
  f.timing = timing;
  j["fidelity"] = f.to_json();
  j["timed_with"] = kernel_timing ? "ebpf" : "user-space";
  if (kernel_timing) j["kernel_timing"] = kernel_timing->to_json();
  if (fidelity_user_space) {
    trace::FidelityReport u = *fidelity_user_space;
    u.timing = timing;
    j["fidelity_user_space"] = u.to_json();
  }
  return j;
}

std::string ReplaySummary::to_text() const {
  std::string o;
  o += fmt::format("replay: engine {} ordering {} timing {}\n", engine, ordering, timing);
  o += fmt::format("  requests    {}\n  replayed    {} ({} emulated: {} on special files and sockets, the rest process "
                   "structure)\n",
                   requests, replayed, emulated, emulated_files);
  o += fmt::format("  skipped     {}\n", skipped);
  for (auto& [k, v] : skipped_by_reason) o += fmt::format("    {:<28} {}\n", k, v);
  for (auto& [k, v] : unsupported_by_name) o += fmt::format("    unsupported: {:<15} {}\n", k, v);
  o += fmt::format("  mismatched  {}\n", mismatched);
  for (auto& [k, v] : mismatched_by_call) o += fmt::format("    {:<28} {}\n", k, v);
  o += fmt::format("  dependency waits {}\n", dependency_waits);
  if (replay_processes > 1) o += fmt::format("  replay processes {} (one per traced process)\n", replay_processes);
  o += fmt::format("  issue error p50 {}  p99 {}  max {}  mean {}\n",
                   format_duration_ns(static_cast<double>(issue_error_p50_ns)),
                   format_duration_ns(static_cast<double>(issue_error_p99_ns)),
                   format_duration_ns(static_cast<double>(issue_error_max_ns)),
                   format_duration_ns(issue_error_mean_ns));
  o += fmt::format("  wall time {}\n", format_duration_ns(static_cast<double>(wall_ns)));
  o += fmt::format("  concurrency level mean: trace {:.2f}  replay {:.2f}\n", concurrency_mean_trace,
                   concurrency_mean_replay);
  auto at = [](const std::vector<EcdfPoint>& v, uint32_t level) {
    double c = 0;
    for (const auto& p : v) {
      if (p.level <= level) c = p.cumulative;
    }
    return c;
  };
  uint32_t maxl = 0;
  for (const auto& p : concurrency_ecdf_trace) maxl = std::max(maxl, p.level);
  for (const auto& p : concurrency_ecdf_replay) maxl = std::max(maxl, p.level);
  if (maxl > 0) {
    o += "  concurrency ECDF  level: P(trace<=level) P(replay<=level)\n";
    for (uint32_t l = 1; l <= std::min<uint32_t>(maxl, 16); ++l) {
      o += fmt::format("    {:>3}: {:.3f} {:.3f}\n", l, at(concurrency_ecdf_trace, l), at(concurrency_ecdf_replay, l));
    }
  }
  for (const auto& w : warnings) o += "  warning: " + w + "\n";
  trace::FidelityReport f = fidelity;
  f.timing = timing;
  o += f.to_text();
  if (kernel_timing) o += kernel_timing->to_text();
  if (fidelity_user_space) {
    trace::FidelityReport u = *fidelity_user_space;
    u.timing = timing;
    o += "the same calls timed in user space (clock reads around the syscall), for comparison:\n" + u.to_text();
  }
  return o;
}

void append_replay_events(trace::TraceSink& sink, const PlanTrace& source, const RecordLog& records) {
  std::vector<trace::StrId> remap(source.strings.size(), trace::kNoStr);
  auto map_str = [&](trace::StrId id) -> trace::StrId {
    if (id == trace::kNoStr || id >= remap.size()) return trace::kNoStr;
    if (remap[id] == trace::kNoStr) remap[id] = sink.strings().intern(source.strings.get(id));
    return remap[id];
  };
  // An io_uring request's link names its io_uring_enter by (tid, begin): the replayed enter's begin.
  std::map<std::pair<int32_t, int64_t>, int64_t> enter_begin;
  const std::span<const Request> requests = records.requests();
  records.for_each([&](uint32_t i, const RequestRecord& r) {
    const trace::Event& src = source.events[requests[i].event];
    trace::Event e = src;
    if (src.nr == SYS_io_uring_enter) enter_begin[{src.tid, src.begin_ns}] = r.begin_ns;
    if (src.flags & trace::kEventUring) {
      auto it = enter_begin.find({src.tid, src.uring_enter_ns});
      e.uring_enter_ns = it == enter_begin.end() ? 0 : it->second;
    }
    e.name = map_str(src.name);
    for (auto& a : e.args) a.str = map_str(a.str);
    e.begin_ns = r.begin_ns;
    e.end_ns = r.end_ns;
    e.rvalue = r.rvalue;
    e.expected_rvalue = src.rvalue;
    e.planned_ns = r.planned_ns;
    e.raw_end_ns = 0;
    // The traced call's scheduling (in the call and in the gap before it) is not the replay's.
    e.offcpu_ns = e.gap_offcpu_ns = 0;
    e.vol_switches = e.invol_switches = 0;
    // A replayed page fault stays one (trace/model/page_fault.h): stats count its page. An
    // io_uring request replayed through a ring stays one (exec_uring.h); as a plain call it is not.
    e.flags = trace::kEventReplayed | (r.flags & (trace::kEventSkipped | trace::kEventMismatch | trace::kEventUring)) |
              (src.flags & trace::kEventPageFault) | (r.emulated ? trace::kEventEmulated : 0u);
    sink.append(e);
  });
}

void write_replay_trace(const std::string& path, trace::TraceHeader header, const PlanTrace& source,
                        const RecordLog& records, const ReplaySummary& summary) {
  header.extra["replay_summary"] = summary.to_json();
  header.events_captured = records.size();
  auto sink = trace::open_trace_sink(path, std::move(header));
  append_replay_events(*sink, source, records);
  sink->finish();
}

void write_summary_json(const std::string& path, const ReplaySummary& summary) {
  std::ofstream f(path);
  if (!f) throw Error("--summary-json '" + path + "': " + std::strerror(errno));
  f << summary.to_json().dump(2) << "\n";
  if (!f.flush()) throw Error("--summary-json '" + path + "': write failed");
}

}  // namespace rastro::replay
