#include "trace/analysis/run_comparison.h"

#include <array>
#include <map>
#include <span>
#include <utility>

#include <fmt/format.h>

#include "common/saturating.h"
#include "trace/analysis/call_class.h"
#include "trace/analysis/class_rollup.h"
#include "trace/analysis/calls_span.h"
#include "trace/analysis/quantile_sketch.h"
#include "trace/io/trace_reader.h"
#include "trace/model/trace.h"

namespace rastro::trace {
namespace {

double ratio(double b, double a) { return a > 0 && b >= 0 ? b / a : 0; }

// One syscall's tally in both runs.
struct Tally {
  RunRow row;
  std::array<QuantileSketch, 2> durations;
};

void add_into(Tally& into, const Tally& from) {
  for (int s = 0; s < 2; ++s) {
    into.row.calls[s] += from.row.calls[s];
    into.row.failed[s] += from.row.failed[s];
    into.row.timed[s] += from.row.timed[s];
    into.row.sum_ns[s] = sat_add(into.row.sum_ns[s], from.row.sum_ns[s]);
    into.durations[s].merge(from.durations[s]);
  }
}

RunRow with_medians(const Tally& t) {
  RunRow r = t.row;
  for (int s = 0; s < 2; ++s) r.median_ns[s] = t.durations[s].count() ? t.durations[s].quantile(0.5) : 0;
  return r;
}

// Reads run `side` into `calls`, and its path, instrument and span into `out` (a damaged input noted).
void read_run(const std::string& path, int side, std::map<std::string, Tally, std::less<>>& calls,
              RunComparison& out) {
  auto reader = open_trace_reader(path);
  CallsSpan span;
  std::span<const Event> block;
  while (reader->next_events(&block)) {
    for (const Event& e : block) {
      Tally& t = tally_of(calls, function_name(e, reader->strings()), e);
      ++t.row.calls[side];
      if (e.failed()) ++t.row.failed[side];
      const bool unfinished = e.flags & kEventUnfinished;
      if (const int64_t d = checked_elapsed(e.begin_ns, e.end_ns); !unfinished && d > 0) {
        ++t.row.timed[side];
        t.row.sum_ns[side] = sat_add(t.row.sum_ns[side], d);
        t.durations[side].add(d);
      }
      span.add(e);
    }
  }
  out.paths[side] = path;
  out.backends[side] = reader->header().backend;
  out.span_ns[side] = span.ns();
  if (!reader->report().intact) {
    out.inputs_intact = false;
    out.warnings.push_back(fmt::format("{}: damaged, compared its intact prefix ({})", path, reader->report().problem));
  }
}

std::string ratio_cell(double v) { return v > 0 ? fmt::format("{:.2f}", v) : "-"; }
std::string us_cell(uint64_t timed, double ns) { return timed ? fmt::format("{:.2f}", ns / 1e3) : "-"; }

}  // namespace

double RunRow::latency_ratio_sum() const {
  return timed[0] && timed[1] ? ratio(static_cast<double>(sum_ns[1]), static_cast<double>(sum_ns[0])) : 0;
}

double RunRow::latency_ratio_median() const { return timed[0] && timed[1] ? ratio(median_ns[1], median_ns[0]) : 0; }

nlohmann::json RunRow::to_json() const {
  nlohmann::json j = {{"key", key},
                      {"calls", calls},
                      {"failed", failed},
                      {"timed", timed},
                      {"sum_ns", sum_ns},
                      {"median_ns", median_ns},
                      {"latency_ratio_sum", latency_ratio_sum()},
                      {"latency_ratio_median", latency_ratio_median()}};
  if (!call_class.empty()) j["class"] = call_class;
  return j;
}

double RunComparison::span_error_pct() const {
  if (span_ns[0] <= 0) return 0;
  return 100.0 * static_cast<double>(span_ns[1] - span_ns[0]) / static_cast<double>(span_ns[0]);
}

nlohmann::json RunComparison::to_json() const {
  nlohmann::json j = {{"mode", "runs"},
                      {"runs", paths},
                      {"backends", backends},
                      {"span_ns", span_ns},
                      {"span_error_pct", span_error_pct()},
                      {"total", total.to_json()},
                      {"by_class", nlohmann::json::array()},
                      {"by_call", nlohmann::json::array()},
                      {"warnings", warnings},
                      {"inputs_intact", inputs_intact}};
  for (const auto& r : by_class) j["by_class"].push_back(r.to_json());
  for (const auto& r : by_call) j["by_call"].push_back(r.to_json());
  return j;
}

std::string RunComparison::to_text(bool with_calls) const {
  std::string o;
  o += fmt::format("runs: A {} calls ({} failed), B {} calls ({} failed); two runs side by side, no call paired\n",
                   total.calls[0], total.failed[0], total.calls[1], total.failed[1]);
  o += fmt::format("  span: A {:.3f} ms, B {:.3f} ms, error {:+.1f} %\n", static_cast<double>(span_ns[0]) / 1e6,
                   static_cast<double>(span_ns[1]) / 1e6, span_error_pct());
  o += "  lat.sum: B's summed durations / A's; lat.med: B's median duration / A's (over finished calls that took "
       "time)\n";
  auto row = [&o](const RunRow& r, std::string_view indent) {
    o += fmt::format("  {}{:<{}} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8}\n", indent, r.key,
                     16 - indent.size(), r.calls[0], r.calls[1], r.failed[0], r.failed[1],
                     us_cell(r.timed[0], r.median_ns[0]), us_cell(r.timed[1], r.median_ns[1]),
                     ratio_cell(r.latency_ratio_sum()), ratio_cell(r.latency_ratio_median()));
  };
  o += fmt::format("  {:<16} {:>8} {:>8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8}\n", "class", "calls.A", "calls.B",
                   "failed.A", "failed.B", "med.A.us", "med.B.us", "lat.sum", "lat.med");
  for_each_report_row(by_class, by_call, total, with_calls, row);
  for (const auto& w : warnings) o += "  warning: " + w + "\n";
  return o;
}

RunComparison compare_runs(const std::string& a, const std::string& b) {
  RunComparison out;
  std::map<std::string, Tally, std::less<>> calls;
  read_run(a, 0, calls, out);
  read_run(b, 1, calls, out);
  if (out.backends[0] != out.backends[1])
    out.warnings.push_back(fmt::format(
        "A was recorded by {} and B by {}: their durations are two instruments' (docs/metrology.md), not only two "
        "runs'",
        out.backends[0].empty() ? "an unknown instrument" : out.backends[0],
        out.backends[1].empty() ? "an unknown instrument" : out.backends[1]));
  auto rows = roll_up_by_class(calls, add_into, with_medians,
                               [](const RunRow& r) { return r.calls[0] + r.calls[1]; });
  out.by_call = std::move(rows.by_call);
  out.by_class = std::move(rows.by_class);
  out.total = std::move(rows.total);
  return out;
}

bool is_replay_output(const std::string& path) {
  auto reader = open_trace_reader(path);
  std::span<const Event> block;
  while (reader->next_events(&block))
    if (!block.empty()) return (block.front().flags & kEventReplayed) != 0;
  return false;
}

}  // namespace rastro::trace
