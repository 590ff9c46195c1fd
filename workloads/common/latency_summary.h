// The one-line summary both benches print: total requests, then per function the count and the
// mean / median / 99th-percentile response time (end - begin) of the reference timings.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "workloads/common/thread_calls.h"

namespace rastro::workloads {

struct FunctionLatency {
  std::string function;  // syscall name
  uint64_t count = 0;
  uint64_t failed = 0;
  double mean_ns = 0;
  double p50_ns = 0;
  double p99_ns = 0;
};

struct LatencySummary {
  uint64_t calls = 0;
  double elapsed_ns = 0;  // first begin to last end
  std::vector<FunctionLatency> functions;  // in first-seen syscall-table order

  nlohmann::json to_json() const;
  // e.g. "4002 calls in 0.012 s: read n=4000 mean=1.2us p50=0.9us p99=5.0us; openat n=2 ..."
  std::string line() const;
};

LatencySummary summarize(const WorkloadRun& run);

// Nearest-rank percentile (q in [0,1]) of a sorted sample; 0 for an empty one.
double percentile_sorted(const std::vector<int64_t>& sorted, double q);

}  // namespace rastro::workloads
