// The measurand (SPEC §6): file-system response time, per event end − begin; an experiment's
// result is the mean response time of its requests of one operation class.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "trace/model/trace.h"

namespace rastro::campaign {

struct ResponseTimes {
  std::vector<double> ns;  // one per request
  double mean = 0;
  double sd = 0;
  double standard_error() const;  // sd / sqrt(n): the standard uncertainty of the mean
};

// Which events count for a measurement.
struct EventFilter {
  std::set<std::string> functions;  // e.g. {"pread64"}
  std::set<int> tids;               // empty = any thread
  bool successful_only = true;
  bool skip_replay_skipped = true;
  uint64_t warmup = 0;              // the first N selected calls of each thread are not counted
};

ResponseTimes response_times(const trace::Trace& trace, const EventFilter& filter);

// Mean per-call difference measured − reference over the same calls: the i-th matching call of
// each thread in one trace paired with the i-th of that thread in the other (both record the
// calls of one run in issue order). Fails naming the thread when the two traces hold different
// numbers of calls for it: pairing them by position would compare different calls.
struct PairedDifference {
  size_t n = 0;
  double mean_ns = 0;
};
Result<PairedDifference> paired_difference(const trace::Trace& measured, const trace::Trace& reference,
                                           const EventFilter& filter);
// The data operation of a micro-benchmark type: rr → pread64, rw → pwrite64, sr → read, sw → write.
std::string micro_function(const std::string& type);
// Threads that issued `function` in a trace (the workload's worker threads).
std::set<int> threads_issuing(const trace::Trace& trace, const std::string& function);

}  // namespace rastro::campaign
