// Concurrency level (SPEC §6.1, thesis Fig. 6.7): for each request, the number of requests in
// flight at its start, itself included. Request j is in flight at time t when
// begin_j <= t < end_j (half-open), so requests starting at the same nanosecond count each other
// and a request that ended exactly when another started does not. A zero-length request counts
// itself, so every level is >= 1 and a purely sequential trace has level 1 everywhere.
//
// Used by `rastro stats`, and to compare capture with replay (their ECDFs) in replay/campaign.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "trace/analysis/spilling_sorter.h"
#include "trace/model/trace.h"

namespace rastro::trace {

// levels[i] for request i given parallel arrays of begin/end times (end < begin is taken as
// end == begin). O(n log n).
std::vector<uint32_t> concurrency_levels(std::span<const int64_t> begins,
                                         std::span<const int64_t> ends);

// Over every event of a trace; an unfinished event (kEventUnfinished) stays in flight until the
// end of the trace.
std::vector<uint32_t> concurrency_levels(const Trace& trace);

// One step of an empirical CDF: the fraction of requests whose level is <= `level`.
struct EcdfStep {
  uint32_t level = 0;
  uint64_t count = 0;       // requests with exactly this level
  double cumulative = 0.0;  // P(L <= level)
};

struct ConcurrencySummary {
  uint64_t requests = 0;
  double mean = 0.0;
  uint32_t max = 0;
  uint32_t median = 0;  // smallest level with P(L <= level) >= 0.5
  uint32_t p99 = 0;     // smallest level with P(L <= level) >= 0.99
  std::vector<EcdfStep> ecdf;  // one step per distinct level, ascending
};

ConcurrencySummary summarize_concurrency(std::span<const uint32_t> levels);
// The same from the number of requests at each level.
ConcurrencySummary summarize_concurrency(const std::map<uint32_t, uint64_t>& requests_per_level);

// The levels of a stream of requests, in memory independent of their number: the begins and ends
// are sorted apart (spilling to temporary files beyond `memory_values` each, spilling_sorter.h)
// and swept in time order. Gives exactly the levels concurrency_levels() gives, as a histogram.
class ConcurrencyCounter {
 public:
  explicit ConcurrencyCounter(size_t memory_values = size_t{1} << 21);
  // An unfinished event (kEventUnfinished) stays in flight until the end of the trace.
  void add(const Event& e);
  void add(int64_t begin, int64_t end);
  // Ends adding: the number of requests at each level.
  std::map<uint32_t, uint64_t> requests_per_level();

 private:
  SpillingSorter begins_;       // of requests lasting > 0 ns
  SpillingSorter zero_begins_;  // of zero-length requests (they count themselves)
  SpillingSorter ends_;
};

}  // namespace rastro::trace
