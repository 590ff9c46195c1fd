#include "trace/analysis/replay_fidelity.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/saturating.h"
#include "trace/analysis/call_class.h"
#include "trace/analysis/class_rollup.h"

namespace rastro::trace {
namespace {

constexpr double kPpm = 1e6;
constexpr double kMaxRatioPpm = 1e15;  // a ratio beyond 10^9 is a damaged time, kept finite

void add_counts(FidelityRow& into, const FidelityRow& from) {
  into.calls += from.calls;
  into.replayed += from.replayed;
  into.emulated += from.emulated;
  into.skipped += from.skipped;
  for (const auto& [reason, n] : from.skipped_by_reason) into.skipped_by_reason[reason] += n;
  into.mismatched += from.mismatched;
  into.timed += from.timed;
  into.original_ns = sat_add(into.original_ns, from.original_ns);
  into.replay_ns = sat_add(into.replay_ns, from.replay_ns);
  into.replay_corrected_ns = sat_add(into.replay_corrected_ns, from.replay_corrected_ns);
  into.overhead_calls += from.overhead_calls;
  into.overhead_ns = sat_add(into.overhead_ns, from.overhead_ns);
}

double median_ratio(const QuantileSketch& s) { return s.count() ? s.quantile(0.5) / kPpm : 0; }

int64_t ratio_ppm(int64_t replay_ns, int64_t original_ns) {
  const double ppm = kPpm * static_cast<double>(replay_ns) / static_cast<double>(original_ns);
  return static_cast<int64_t>(std::llround(std::min(ppm, kMaxRatioPpm)));
}

std::string ratio_cell(const FidelityRow& r, double v) { return r.timed ? fmt::format("{:.2f}", v) : "-"; }

std::string overhead_cell(const FidelityRow& r) {
  return r.overhead_calls ? fmt::format("{:.1f}", r.overhead_mean_ns() / 1e3) : "-";
}

std::string reasons_text(const FidelityRow& r) {
  std::string o;
  for (const auto& [reason, n] : r.skipped_by_reason) {
    if (!o.empty()) o += ", ";
    o += fmt::format("{} {}", reason == kReasonUnknown ? "reason unknown" : reason, n);
  }
  return o;
}

}  // namespace

double FidelityRow::faithful_pct() const {
  return calls ? 100.0 * static_cast<double>(faithful()) / static_cast<double>(calls) : 100.0;
}

double FidelityRow::latency_ratio_sum() const {
  return original_ns > 0 ? static_cast<double>(replay_ns) / static_cast<double>(original_ns) : 0;
}

double FidelityRow::latency_ratio_sum_corrected() const {
  return original_ns > 0 ? static_cast<double>(replay_corrected_ns) / static_cast<double>(original_ns) : 0;
}

double FidelityRow::overhead_mean_ns() const {
  return overhead_calls ? static_cast<double>(overhead_ns) / static_cast<double>(overhead_calls) : 0;
}

nlohmann::json FidelityRow::to_json() const {
  nlohmann::json j = {{"key", key},
                      {"calls", calls},
                      {"replayed", replayed},
                      {"emulated", emulated},
                      {"skipped", skipped},
                      {"skipped_by_reason", skipped_by_reason},
                      {"mismatched", mismatched},
                      {"faithful_pct", faithful_pct()},
                      {"timed", timed},
                      {"original_ns", original_ns},
                      {"replay_ns", replay_ns},
                      {"latency_ratio_sum", latency_ratio_sum()},
                      {"latency_ratio_median", latency_ratio_median},
                      {"replay_corrected_ns", replay_corrected_ns},
                      {"latency_ratio_sum_corrected", latency_ratio_sum_corrected()},
                      {"latency_ratio_median_corrected", latency_ratio_median_corrected},
                      {"overhead_calls", overhead_calls},
                      {"overhead_mean_ns", overhead_mean_ns()}};
  if (!call_class.empty()) j["class"] = call_class;
  return j;
}

nlohmann::json TimerBias::to_json() const {
  return {{"median_ns", median_ns}, {"p10_ns", p10_ns}, {"p90_ns", p90_ns}, {"samples", samples}};
}

std::optional<TimerBias> TimerBias::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return std::nullopt;
  TimerBias b;
  b.median_ns = j.at("median_ns").get<int64_t>();
  b.p10_ns = j.at("p10_ns").get<int64_t>();
  b.p90_ns = j.at("p90_ns").get<int64_t>();
  b.samples = j.at("samples").get<uint64_t>();
  return b;
}

double FidelityReport::span_error_pct() const {
  if (original_span_ns <= 0) return 0;
  return 100.0 * static_cast<double>(replay_span_ns - original_span_ns) / static_cast<double>(original_span_ns);
}

nlohmann::json FidelityReport::to_json() const {
  nlohmann::json classes = nlohmann::json::array(), calls = nlohmann::json::array();
  for (const auto& r : by_class) classes.push_back(r.to_json());
  for (const auto& r : by_call) calls.push_back(r.to_json());
  return {{"timing", timing},
          {"notes", notes},
          {"original_span_ns", original_span_ns},
          {"replay_span_ns", replay_span_ns},
          {"span_error_pct", span_error_pct()},
          {"timer_bias_ns", timer_bias.median_ns},
          {"timer_bias", timer_bias.to_json()},
          {"timed_with", timed_with},
          {"total", total.to_json()},
          {"by_class", classes},
          {"by_call", calls},
          {"warnings", warnings},
          {"inputs_intact", inputs_intact}};
}

std::string FidelityReport::to_text(bool with_calls) const {
  std::string o;
  o += fmt::format("fidelity: {} calls, {} replayed ({} emulated), {} skipped, {} mismatched: {:.2f} % replayed with "
                   "the traced result\n",
                   total.calls, total.replayed, total.emulated, total.skipped, total.mismatched, total.faithful_pct());
  o += fmt::format("  span: original {:.3f} ms, replay {:.3f} ms, error {:+.1f} %{}\n",
                   static_cast<double>(original_span_ns) / 1e6, static_cast<double>(replay_span_ns) / 1e6,
                   span_error_pct(), timing.empty() ? "" : fmt::format(" ({} timing)", timing));
  if (timed_with == "ebpf")
    o += "  timer bias: none, the replay was timed in the kernel (sys_enter -> sys_exit) like an eBPF capture; "
         "lat.*-b = lat.*\n";
  else if (timer_bias.samples)
    o += fmt::format("  timer bias: {} ns (p10 {}, p90 {}; {} null syscalls); lat.*-b: replayed durations minus it, "
                     "floored at 0\n",
                     timer_bias.median_ns, timer_bias.p10_ns, timer_bias.p90_ns, timer_bias.samples);
  else
    o += "  timer bias: not measured; lat.*-b = lat.*\n";
  auto row = [&o](const FidelityRow& r, std::string_view indent) {
    o += fmt::format("  {}{:<{}} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9.2f} {:>8} {:>8} {:>9} {:>9} {:>8}\n", indent,
                     r.key, 16 - indent.size(), r.calls, r.replayed, r.emulated, r.skipped, r.mismatched,
                     r.faithful_pct(), ratio_cell(r, r.latency_ratio_sum()), ratio_cell(r, r.latency_ratio_median),
                     ratio_cell(r, r.latency_ratio_sum_corrected()), ratio_cell(r, r.latency_ratio_median_corrected),
                     overhead_cell(r));
    if (r.skipped) o += fmt::format("  {}  skipped: {}\n", indent, reasons_text(r));
  };
  o += fmt::format("  {:<16} {:>8} {:>8} {:>8} {:>8} {:>8} {:>9} {:>8} {:>8} {:>9} {:>9} {:>8}\n", "class", "calls",
                   "replayed", "emulated", "skipped", "mismatch", "faithful%", "lat.sum", "lat.med", "lat.sum-b",
                   "lat.med-b", "ovh.us");
  for_each_report_row(by_class, by_call, total, with_calls, row);
  if (notes == "none" && total.skipped)
    o += "  (skip reasons unknown: the replayed trace does not carry them; give the replay's --summary-json)\n";
  for (const auto& w : warnings) o += "  warning: " + w + "\n";
  return o;
}

void FidelityAccumulator::add(const Event& original, std::string_view name, const ReplayedCall& replayed) {
  CallTally& t = tally_of(calls_, name, original);
  FidelityRow& r = t.row;
  ++r.calls;
  const bool unfinished = original.flags & kEventUnfinished;
  if (replayed.flags & kEventSkipped) {
    ++r.skipped;
    ++r.skipped_by_reason[std::string(replayed.skip_reason.empty() ? kReasonUnknown : replayed.skip_reason)];
  } else {
    ++r.replayed;
    if (replayed.emulation == Emulation::kEmulated) ++r.emulated;
    if (replayed.flags & kEventMismatch) {
      ++r.mismatched;
    } else if (replayed.emulation != Emulation::kEmulated && !unfinished) {
      const int64_t original_ns = checked_elapsed(original.begin_ns, original.end_ns);
      const int64_t replay_ns = checked_elapsed(replayed.begin_ns, replayed.end_ns);
      if (original_ns > 0 && replay_ns >= 0) {
        ++r.timed;
        r.original_ns = sat_add(r.original_ns, original_ns);
        r.replay_ns = sat_add(r.replay_ns, replay_ns);
        const int64_t corrected_ns = std::max<int64_t>(0, replay_ns - bias_.median_ns);
        r.replay_corrected_ns = sat_add(r.replay_corrected_ns, corrected_ns);
        t.ratio_ppm.add(ratio_ppm(replay_ns, original_ns));
        t.corrected_ratio_ppm.add(ratio_ppm(corrected_ns, original_ns));
        if (const int64_t overhead = checked_elapsed(replayed.planned_ns, replayed.begin_ns);
            replayed.planned_ns > 0 && overhead >= 0) {
          ++r.overhead_calls;
          r.overhead_ns = sat_add(r.overhead_ns, overhead);
        }
      }
    }
  }
  original_span_.add(original);
  replay_span_.add(replayed.begin_ns, replayed.end_ns);
}

std::vector<std::string> FidelityAccumulator::apply_notes(
    const std::map<std::string, ReplayerCallNote, std::less<>>& notes) {
  std::vector<std::string> disagreed;
  for (auto& [name, t] : calls_) {
    FidelityRow& r = t.row;
    auto it = notes.find(name);
    const bool agrees = it != notes.end() && it->second.calls == r.calls && it->second.replayed == r.replayed &&
                        it->second.skipped == r.skipped;
    if (!agrees) {
      if (r.skipped) disagreed.push_back(name);
      continue;
    }
    const ReplayerCallNote& n = it->second;
    r.emulated = std::min(n.emulated, r.replayed);
    uint64_t explained = 0;
    for (const auto& entry : n.skipped_by_reason) explained += entry.second;
    if (explained == r.skipped) r.skipped_by_reason = n.skipped_by_reason;
    if (r.replayed > 0 && r.emulated == r.replayed) {  // all emulated: no kernel latency to compare
      r.timed = 0;
      r.original_ns = r.replay_ns = r.replay_corrected_ns = 0;
      r.overhead_calls = 0;
      r.overhead_ns = 0;
      t.ratio_ppm = QuantileSketch{};
      t.corrected_ratio_ppm = QuantileSketch{};
    }
  }
  return disagreed;
}

FidelityReport FidelityAccumulator::finish() const {
  FidelityReport rep;
  rep.total.key = "total";
  rep.timer_bias = bias_;
  // Class and total rows: counts summed, medians over the merged per-call sketches.
  auto add_tally = [](CallTally& into, const CallTally& from) {
    add_counts(into.row, from.row);
    into.ratio_ppm.merge(from.ratio_ppm);
    into.corrected_ratio_ppm.merge(from.corrected_ratio_ppm);
  };
  auto with_medians = [](const CallTally& t) {
    FidelityRow r = t.row;
    r.latency_ratio_median = median_ratio(t.ratio_ppm);
    r.latency_ratio_median_corrected = median_ratio(t.corrected_ratio_ppm);
    return r;
  };
  auto rows = roll_up_by_class(calls_, add_tally, with_medians, [](const FidelityRow& r) { return r.calls; });
  rep.by_call = std::move(rows.by_call);
  rep.by_class = std::move(rows.by_class);
  rep.total = std::move(rows.total);
  if (!original_span_.empty()) {
    rep.original_span_ns = original_span_.ns();
    rep.replay_span_ns = replay_span_.ns();
  }
  return rep;
}

std::vector<std::string> threshold_failures(const FidelityReport& report, const FidelityThresholds& thresholds) {
  std::vector<std::string> out;
  if (auto span = span_error_beyond(report.span_error_pct(), thresholds.max_span_error_pct)) out.push_back(*span);
  if (thresholds.min_replayed_pct && report.total.faithful_pct() < *thresholds.min_replayed_pct)
    out.push_back(fmt::format("{:.2f} % of the calls replayed with the traced result, below {} %",
                              report.total.faithful_pct(), *thresholds.min_replayed_pct));
  return out;
}

}  // namespace rastro::trace
