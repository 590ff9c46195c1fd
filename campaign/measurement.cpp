#include "campaign/measurement.h"

#include <cmath>

#include "common/error.h"

namespace rastro::campaign {

double ResponseTimes::standard_error() const {
  return ns.size() > 1 ? sd / std::sqrt(static_cast<double>(ns.size())) : 0.0;
}

ResponseTimes response_times(const trace::Trace& trace, const EventFilter& filter) {
  ResponseTimes r;
  for (const auto& e : trace.events) {
    if (e.flags & trace::kEventUnfinished) continue;
    if (filter.skip_replay_skipped && (e.flags & trace::kEventSkipped)) continue;
    if (filter.successful_only && e.failed()) continue;
    if (!filter.tids.empty() && !filter.tids.count(e.tid)) continue;
    if (!filter.functions.count(std::string(trace::function_name(e, trace.strings)))) continue;
    r.ns.push_back(static_cast<double>(e.duration_ns()));
  }
  if (r.ns.empty()) return r;
  double sum = 0;
  for (double v : r.ns) sum += v;
  r.mean = sum / static_cast<double>(r.ns.size());
  double ss = 0;
  for (double v : r.ns) ss += (v - r.mean) * (v - r.mean);
  r.sd = r.ns.size() > 1 ? std::sqrt(ss / static_cast<double>(r.ns.size() - 1)) : 0.0;
  return r;
}

std::string micro_function(const std::string& type) {
  if (type == "rr") return "pread64";
  if (type == "rw") return "pwrite64";
  if (type == "sr") return "read";
  if (type == "sw") return "write";
  throw Error("unknown micro-benchmark type '" + type + "'");
}

std::set<int> threads_issuing(const trace::Trace& trace, const std::string& function) {
  std::set<int> out;
  for (const auto& e : trace.events)
    if (trace::function_name(e, trace.strings) == function) out.insert(e.tid);
  return out;
}

}  // namespace rastro::campaign
