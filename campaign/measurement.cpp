#include "campaign/measurement.h"

#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "metrology/descriptive.h"

namespace rastro::campaign {

double ResponseTimes::standard_error() const {
  return ns.size() > 1 ? sd / std::sqrt(static_cast<double>(ns.size())) : 0.0;
}

namespace {

// Whether `filter` counts event `e` of `trace`.
bool selected(const trace::Event& e, const trace::Trace& trace, const EventFilter& filter) {
  if (e.flags & trace::kEventUnfinished) return false;
  if (filter.skip_replay_skipped && (e.flags & trace::kEventSkipped)) return false;
  if (filter.successful_only && e.failed()) return false;
  if (!filter.tids.empty() && !filter.tids.count(e.tid)) return false;
  return filter.functions.count(std::string(trace::function_name(e, trace.strings))) > 0;
}

// Calls `filter` selects, in trace order, after each thread's first `filter.warmup` of them.
template <class F>
void for_each_measured(const trace::Trace& trace, const EventFilter& filter, F&& f) {
  std::map<int, uint64_t> seen;
  for (const auto& e : trace.events) {
    if (!selected(e, trace, filter)) continue;
    if (seen[e.tid]++ < filter.warmup) continue;
    f(e);
  }
}

// Durations of the calls `filter` measures, per thread, in trace order.
std::map<int, std::vector<double>> durations_by_thread(const trace::Trace& trace, const EventFilter& filter) {
  std::map<int, std::vector<double>> out;
  for_each_measured(trace, filter, [&](const trace::Event& e) { out[e.tid].push_back(static_cast<double>(e.duration_ns())); });
  return out;
}

}  // namespace

ResponseTimes response_times(const trace::Trace& trace, const EventFilter& filter) {
  ResponseTimes r;
  for_each_measured(trace, filter, [&](const trace::Event& e) { r.ns.push_back(static_cast<double>(e.duration_ns())); });
  // Durations are integers, so these never fail for a non-empty sample; n = 1 has no spread.
  if (auto m = metrology::mean(r.ns)) r.mean = *m;
  if (auto sd = metrology::sample_sd(r.ns)) r.sd = *sd;
  return r;
}

Result<PairedDifference> paired_difference(const trace::Trace& measured, const trace::Trace& reference,
                                           const EventFilter& filter) {
  const auto m = durations_by_thread(measured, filter), r = durations_by_thread(reference, filter);
  std::vector<double> differences;
  for (const auto& [tid, ref] : r) {
    auto it = m.find(tid);
    const size_t got = it == m.end() ? 0 : it->second.size();
    if (got != ref.size())
      return fail(fmt::format("thread {}: the trace holds {} of the application's {} calls", tid, got, ref.size()));
    for (size_t i = 0; i < ref.size(); ++i) differences.push_back(it->second[i] - ref[i]);
  }
  for (const auto& [tid, calls] : m)
    if (!r.count(tid)) return fail(fmt::format("thread {}: {} calls the application did not time", tid, calls.size()));
  auto mean = metrology::mean(differences);
  if (!mean) return fail("no calls to pair");
  return PairedDifference{differences.size(), *mean};
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
