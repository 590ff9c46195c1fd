#include "cli/compare_rounds.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "metrology/ratio_equivalence.h"
#include "trace/analysis/call_class.h"
#include "trace/analysis/replay_comparison.h"
#include "trace/analysis/run_comparison.h"

namespace rastro::cli {
namespace {

// One round's figures: per class, the latency ratio and how many calls it is over; the span ratio.
struct RoundFigures {
  bool replay = false;  // an original and its replay (else two runs)
  std::map<std::string, std::pair<double, uint64_t>, std::less<>> classes;
  double span_ratio = 0;
  bool intact = true;
};

// A replay: the median of its per-call ratios, corrected for the replayer's timer bias (the same as
// raw when the replay was timed in the kernel or the bias is not known). Two runs: B's median
// duration over A's (no per-call pairing between two runs).
RoundFigures figures_of(const std::string& a, const std::string& b) {
  RoundFigures f;
  f.replay = trace::is_replay_output(a) != trace::is_replay_output(b);
  if (f.replay) {
    const trace::FidelityReport r = trace::compare_replay(a, b);
    for (const auto& row : r.by_class) f.classes[row.key] = {row.latency_ratio_median_corrected, row.timed};
    if (r.original_span_ns > 0) f.span_ratio = static_cast<double>(r.replay_span_ns) / static_cast<double>(r.original_span_ns);
    f.intact = r.inputs_intact;
  } else {
    const trace::RunComparison r = trace::compare_runs(a, b);
    for (const auto& row : r.by_class) f.classes[row.key] = {row.latency_ratio_median(), std::min(row.timed[0], row.timed[1])};
    if (r.span_ns[0] > 0) f.span_ratio = static_cast<double>(r.span_ns[1]) / static_cast<double>(r.span_ns[0]);
    f.intact = r.inputs_intact;
  }
  return f;
}

struct Judged {
  std::string key;
  std::vector<double> ratios;  // the rounds that count, in round order
  std::optional<metrology::RatioEstimate> estimate;  // none: fewer than two rounds count
  metrology::Equivalence verdict = metrology::Equivalence::kUndecided;

  std::string verdict_name() const {
    return estimate ? std::string(metrology::equivalence_name(verdict)) : "too few rounds";
  }
  bool beyond() const { return estimate && verdict == metrology::Equivalence::kBeyond; }
};

Judged judge(std::string key, std::vector<double> ratios, const RoundsFlags& o) {
  Judged j{std::move(key), std::move(ratios), std::nullopt};
  if (j.ratios.size() < 2) return j;
  auto e = metrology::estimate_ratio(j.ratios, o.confidence_pct / 100);
  if (!e) throw Error(fmt::format("class {}: {}", j.key, e.error()));
  j.estimate = *e;
  j.verdict = metrology::judge_equivalence(*e, o.within_pct / 100);
  return j;
}

nlohmann::json to_json(const Judged& j) {
  nlohmann::json out{{"key", j.key}, {"rounds", j.ratios.size()}, {"ratios", j.ratios}, {"verdict", j.verdict_name()}};
  if (j.estimate) {
    out["geometric_mean"] = j.estimate->geometric_mean;
    out["log_sd"] = j.estimate->log_sd;
    out["ci"] = {j.estimate->ci_low, j.estimate->ci_high};
  }
  return out;
}

std::string to_text(const Judged& j) {
  std::string per_round;
  for (double r : j.ratios) per_round += fmt::format(" {:.2f}", r);
  if (!j.estimate) return fmt::format("  {:<12} {:>6} {:>9} {:>19}  {:<15}{}\n", j.key, j.ratios.size(), "-", "-", j.verdict_name(), per_round);
  return fmt::format("  {:<12} {:>6} {:>9.3f} {:>8.3f} .. {:<8.3f}  {:<15}{}\n", j.key, j.ratios.size(),
                     j.estimate->geometric_mean, j.estimate->ci_low, j.estimate->ci_high, j.verdict_name(), per_round);
}

}  // namespace

int compare_rounds(const RoundsFlags& o) {
  if (!(o.within_pct > 0 && o.within_pct < 100))
    throw Error(fmt::format("--within {}: a tolerance in percent, above 0 and below 100", o.within_pct));
  if (!(o.confidence_pct > 0 && o.confidence_pct < 100))
    throw Error(fmt::format("--confidence {}: a level in percent, above 0 and below 100", o.confidence_pct));
  std::vector<RoundFigures> rounds;
  for (const auto& [a, b] : o.pairs) {
    rounds.push_back(figures_of(a, b));
    if (rounds.back().replay != rounds.front().replay)
      throw Error(fmt::format("round {} ({} and {}) is {}, round 1 {}: every round must be of one kind", rounds.size(),
                              a, b, rounds.back().replay ? "an original and its replay" : "two runs",
                              rounds.front().replay ? "an original and its replay" : "two runs"));
  }
  // The classes in the order every report lists them; a round counts for a class when it timed
  // o.min_calls of its calls or more.
  std::map<size_t, std::string> order;
  for (const auto& r : rounds)
    for (const auto& c : r.classes) order.emplace(trace::call_class_rank(c.first), c.first);
  std::vector<Judged> judged;
  for (const auto& entry : order) {
    std::vector<double> ratios;
    for (const auto& r : rounds) {
      auto it = r.classes.find(entry.second);
      if (it != r.classes.end() && it->second.second >= o.min_calls && it->second.first > 0) ratios.push_back(it->second.first);
    }
    judged.push_back(judge(entry.second, std::move(ratios), o));
  }
  std::vector<double> spans;
  for (const auto& r : rounds)
    if (r.span_ratio > 0) spans.push_back(r.span_ratio);
  const Judged span = judge("span", std::move(spans), o);

  const bool replay = rounds.front().replay;
  const std::string what = replay ? "replay/original: median of the per-call latency ratios (timer bias corrected)"
                                  : "B/A: median duration of run B over run A's";
  const bool beyond =
      span.beyond() || std::any_of(judged.begin(), judged.end(), [](const Judged& j) { return j.beyond(); });
  const bool intact = std::all_of(rounds.begin(), rounds.end(), [](const RoundFigures& r) { return r.intact; });
  if (o.json) {
    nlohmann::json j{{"kind", replay ? "replay" : "runs"},
                     {"ratio", what},
                     {"within_pct", o.within_pct},
                     {"confidence_pct", o.confidence_pct},
                     {"min_calls", o.min_calls},
                     {"inputs_intact", intact},
                     {"span", to_json(span)}};
    for (const auto& [a, b] : o.pairs) j["pairs"].push_back({a, b});
    for (const auto& c : judged) j["by_class"].push_back(to_json(c));
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    fmt::print("{} rounds, each {}\n", rounds.size(), replay ? "an original and its replay" : "two runs");
    for (size_t i = 0; i < o.pairs.size(); ++i) fmt::print("  round {}: {} {}\n", i + 1, o.pairs[i].first, o.pairs[i].second);
    fmt::print("ratio: {}; per class over the rounds that timed {} calls of it or more: the geometric mean and its "
               "{:g} % interval; verdict: the interval inside ±{:g} % (within), wholly outside (beyond), or neither "
               "(undecided)\n",
               what, o.min_calls, o.confidence_pct, o.within_pct);
    fmt::print("  {:<12} {:>6} {:>9} {:>19}  {:<15}{}\n", "class", "rounds", "geo.mean", "interval", "verdict", " per round");
    for (const auto& c : judged) fmt::print("{}", to_text(c));
    fmt::print("{}", to_text(span));
  }
  std::cout << std::flush;
  if (beyond) return 3;
  return intact ? 0 : 2;
}

}  // namespace rastro::cli
