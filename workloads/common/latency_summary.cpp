#include "workloads/common/latency_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "common/units.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::workloads {

double percentile_sorted(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double rank = std::ceil(q * static_cast<double>(sorted.size()));
  size_t idx = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  if (idx >= sorted.size()) idx = sorted.size() - 1;
  return static_cast<double>(sorted[idx]);
}

LatencySummary summarize(const WorkloadRun& run) {
  LatencySummary s;
  std::map<CallKind, std::vector<int64_t>> durations;
  std::map<CallKind, uint64_t> failures;
  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  for (const auto& t : run.threads) {
    for (size_t i = 0; i < t.log.size(); ++i) {
      const CallRecord& r = t.log.at(i);
      durations[r.kind].push_back(r.end_ns - r.begin_ns);
      if (r.rvalue < 0) ++failures[r.kind];
      first = std::min(first, r.begin_ns);
      last = std::max(last, r.end_ns);
      ++s.calls;
    }
  }
  if (s.calls > 0) s.elapsed_ns = static_cast<double>(last - first);
  std::vector<std::pair<int, CallKind>> by_nr;
  for (auto& [kind, d] : durations) {
    const auto* info = trace::syscall_by_name(call_syscall_name(kind));
    by_nr.emplace_back(info ? info->nr : 1000, kind);
  }
  // Data calls first (the measurand), then the rest by syscall number.
  auto is_data = [](CallKind k) {
    return k == CallKind::kRead || k == CallKind::kWrite || k == CallKind::kPread || k == CallKind::kPwrite;
  };
  std::sort(by_nr.begin(), by_nr.end(), [&](const auto& a, const auto& b) {
    if (is_data(a.second) != is_data(b.second)) return is_data(a.second);
    return a.first < b.first;
  });
  for (const auto& [nr, kind] : by_nr) {
    auto& d = durations[kind];
    std::sort(d.begin(), d.end());
    FunctionLatency f;
    f.function = call_syscall_name(kind);
    f.count = d.size();
    f.failed = failures[kind];
    long double sum = 0;
    for (int64_t v : d) sum += v;
    f.mean_ns = static_cast<double>(sum / static_cast<long double>(d.size()));
    f.p50_ns = percentile_sorted(d, 0.50);
    f.p99_ns = percentile_sorted(d, 0.99);
    s.functions.push_back(f);
  }
  return s;
}

nlohmann::json LatencySummary::to_json() const {
  nlohmann::json j;
  j["calls"] = calls;
  j["elapsed_ns"] = elapsed_ns;
  j["functions"] = nlohmann::json::array();
  for (const auto& f : functions) {
    j["functions"].push_back({{"function", f.function}, {"count", f.count}, {"failed", f.failed},
                              {"mean_ns", f.mean_ns}, {"p50_ns", f.p50_ns}, {"p99_ns", f.p99_ns}});
  }
  return j;
}

std::string LatencySummary::line() const {
  std::string out = fmt::format("{} calls in {:.3f} s", calls, elapsed_ns / 1e9);
  char sep = ':';
  for (const auto& f : functions) {
    out += fmt::format("{} {} n={} mean={} p50={} p99={}", sep, f.function, f.count,
                       format_duration_ns(f.mean_ns), format_duration_ns(f.p50_ns),
                       format_duration_ns(f.p99_ns));
    if (f.failed > 0) out += fmt::format(" failed={}", f.failed);
    sep = ';';
  }
  return out;
}

}  // namespace rastro::workloads
