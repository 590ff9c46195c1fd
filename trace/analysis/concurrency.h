// Concurrency level (SPEC §6.1, thesis Fig. 6.7): for each request, the number of requests in
// flight at its start, itself included. Request j is in flight at time t when
// begin_j <= t < end_j (half-open), so requests starting at the same nanosecond count each other
// and a request that ended exactly when another started does not. A zero-length request counts
// itself, so every level is >= 1 and a purely sequential trace has level 1 everywhere.
//
// Used by `rastro stats`, and to compare capture with replay (their ECDFs) in replay/campaign.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

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

}  // namespace rastro::trace
