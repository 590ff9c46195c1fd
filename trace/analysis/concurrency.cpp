#include "trace/analysis/concurrency.h"

#include <algorithm>
#include <limits>
#include <map>

namespace rastro::trace {

std::vector<uint32_t> concurrency_levels(std::span<const int64_t> begins,
                                         std::span<const int64_t> ends) {
  const size_t n = std::min(begins.size(), ends.size());
  std::vector<int64_t> b(begins.begin(), begins.begin() + static_cast<ptrdiff_t>(n));
  std::vector<int64_t> e(n);
  for (size_t i = 0; i < n; ++i) e[i] = std::max(ends[i], begins[i]);
  std::vector<int64_t> sb = b, se = e;
  std::sort(sb.begin(), sb.end());
  std::sort(se.begin(), se.end());
  std::vector<uint32_t> levels(n);
  for (size_t i = 0; i < n; ++i) {
    // Requests started at or before b[i] minus those already ended by then: since end >= begin,
    // every request ended by b[i] also started by then.
    auto started = std::upper_bound(sb.begin(), sb.end(), b[i]) - sb.begin();
    auto ended = std::upper_bound(se.begin(), se.end(), b[i]) - se.begin();
    auto level = static_cast<uint32_t>(started - ended);
    if (e[i] == b[i]) ++level;  // a zero-length request was not counted by the half-open rule
    levels[i] = level;
  }
  return levels;
}

std::vector<uint32_t> concurrency_levels(const Trace& trace) {
  std::vector<int64_t> b, e;
  b.reserve(trace.events.size());
  e.reserve(trace.events.size());
  for (const Event& ev : trace.events) {
    b.push_back(ev.begin_ns);
    e.push_back((ev.flags & kEventUnfinished) ? std::numeric_limits<int64_t>::max() : ev.end_ns);
  }
  return concurrency_levels(b, e);
}

ConcurrencySummary summarize_concurrency(std::span<const uint32_t> levels) {
  ConcurrencySummary s;
  s.requests = levels.size();
  if (levels.empty()) return s;
  std::map<uint32_t, uint64_t> counts;
  double sum = 0;
  for (uint32_t l : levels) {
    ++counts[l];
    sum += l;
  }
  s.mean = sum / static_cast<double>(levels.size());
  uint64_t acc = 0;
  bool have_median = false, have_p99 = false;
  for (auto [level, count] : counts) {
    acc += count;
    double cum = static_cast<double>(acc) / static_cast<double>(levels.size());
    s.ecdf.push_back({level, count, cum});
    // Compare counts, not doubles, so 0.5 of an even number of requests is exact.
    if (!have_median && acc * 2 >= levels.size()) {
      s.median = level;
      have_median = true;
    }
    if (!have_p99 && acc * 100 >= levels.size() * 99) {
      s.p99 = level;
      have_p99 = true;
    }
    s.max = level;
  }
  return s;
}

}  // namespace rastro::trace
