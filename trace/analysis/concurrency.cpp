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
  std::map<uint32_t, uint64_t> counts;
  for (uint32_t l : levels) ++counts[l];
  return summarize_concurrency(counts);
}

ConcurrencySummary summarize_concurrency(const std::map<uint32_t, uint64_t>& counts) {
  ConcurrencySummary s;
  double sum = 0;
  for (auto [level, count] : counts) {
    s.requests += count;
    sum += static_cast<double>(level) * static_cast<double>(count);
  }
  if (s.requests == 0) return s;
  const uint64_t n = s.requests;
  s.mean = sum / static_cast<double>(n);
  uint64_t acc = 0;
  bool have_median = false, have_p99 = false;
  for (auto [level, count] : counts) {
    acc += count;
    double cum = static_cast<double>(acc) / static_cast<double>(n);
    s.ecdf.push_back({level, count, cum});
    // Compare counts, not doubles, so 0.5 of an even number of requests is exact.
    if (!have_median && acc * 2 >= n) {
      s.median = level;
      have_median = true;
    }
    if (!have_p99 && acc * 100 >= n * 99) {
      s.p99 = level;
      have_p99 = true;
    }
    s.max = level;
  }
  return s;
}

ConcurrencyCounter::ConcurrencyCounter(size_t memory_values)
    : begins_(memory_values), zero_begins_(memory_values), ends_(memory_values) {}

void ConcurrencyCounter::add(const Event& e) {
  add(e.begin_ns, (e.flags & kEventUnfinished) ? std::numeric_limits<int64_t>::max() : e.end_ns);
}

void ConcurrencyCounter::add(int64_t begin, int64_t end) {
  end = std::max(end, begin);
  (end == begin ? zero_begins_ : begins_).add(begin);
  ends_.add(end);
}

std::map<uint32_t, uint64_t> ConcurrencyCounter::requests_per_level() {
  begins_.start_reading();
  zero_begins_.start_reading();
  ends_.start_reading();
  std::map<uint32_t, uint64_t> counts;
  uint64_t started = 0, ended = 0;
  for (;;) {
    // The next begin time t, and how many requests of each kind start at t.
    int64_t b = 0, z = 0, t = 0;
    bool has_b = begins_.peek(&b), has_z = zero_begins_.peek(&z);
    if (!has_b && !has_z) break;
    t = !has_z ? b : !has_b ? z : std::min(b, z);
    uint64_t lasting = 0, zero = 0;
    while (begins_.peek(&b) && b == t) begins_.next(&b), ++lasting;
    while (zero_begins_.peek(&z) && z == t) zero_begins_.next(&z), ++zero;
    started += lasting + zero;
    for (int64_t e = 0; ends_.peek(&e) && e <= t;) ends_.next(&e), ++ended;
    // As concurrency_levels(): started by t minus ended by t; a zero-length request adds itself.
    auto level = static_cast<uint32_t>(started - ended);
    if (lasting) counts[level] += lasting;
    if (zero) counts[level + 1] += zero;
  }
  return counts;
}

}  // namespace rastro::trace
