// `rastro compare ORIGINAL REPLAYED [--json] [--by-call] [--summary FILE] [--max-span-error P]
// [--min-replayed P]`: the replay fidelity report of an original trace and its replay (what
// `rastro replay` prints at the end of a run), per call class and syscall: calls, replayed,
// emulated, skipped by reason, mismatched, replay/original latency ratio, replayer overhead, span error
// (trace/analysis/replay_comparison.h). When neither trace is a replay (two captures: two runs of a
// program), or both are (two replayers' replays of one trace), the two runs side by side instead: calls, failed calls, median durations and the
// latency ratios B/A per class and syscall, span error (trace/analysis/run_comparison.h).
// Streaming, like `rastro stats`. With more pairs (`O1 R1 O2 R2 ...`), one per round: per class the
// rounds' latency ratios, their geometric mean and its interval, and a verdict against ±--within %
// (compare_rounds.h).
//
// Exit status: 0; 3 when the report misses a threshold given (--max-span-error, --min-replayed),
// or over rounds when a class or the span is shown beyond --within;
// 2 when a trace is damaged (its intact prefix compared); 1 on bad input (the replay of another
// trace, an original that is a replay, an unreadable file or summary, a replay-only option on two
// runs).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.h"
#include "cli/compare_rounds.h"
#include "common/error.h"
#include "trace/analysis/replay_comparison.h"
#include "trace/analysis/run_comparison.h"

namespace {

using namespace rastro;

struct CompareFlags {
  std::string original, replayed, summary;
  std::vector<std::string> more;  // further rounds: ORIGINAL REPLAYED pairs
  cli::RoundsFlags rounds;
  bool rounds_option_given = false;  // --within, --confidence, --min-calls
  bool json = false;
  bool by_call = false;
  std::optional<double> max_span_error, min_replayed;
};

// Prints the report (`json`, or `text` under its `heading`), then its threshold failures on stderr,
// and sets the exit status.
void emit(const CompareFlags& o, nlohmann::json json, const std::string& heading, const std::string& text,
          const std::vector<std::string>& failures, bool intact) {
  if (o.json) {
    json["threshold_failures"] = failures;
    std::cout << json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    fmt::print("{}\n{}", heading, text);
  }
  std::cout << std::flush;
  for (const auto& f : failures) fmt::print(stderr, "rastro compare: {}\n", f);
  if (!failures.empty()) {
    cli::set_exit_code(3);
  } else if (!intact) {
    cli::set_exit_code(2);
  }
}

// Two captures: two runs of the program, side by side.
void compare_two_runs(const CompareFlags& o) {
  if (!o.summary.empty() || o.min_replayed)
    throw Error(fmt::format("{} and {} are compared as two runs (both captures, or both replays): {} needs an "
                            "original and its replay",
                            o.original, o.replayed, !o.summary.empty() ? "--summary" : "--min-replayed"));
  const trace::RunComparison report = trace::compare_runs(o.original, o.replayed);
  std::vector<std::string> failures;
  if (auto span = trace::span_error_beyond(report.span_error_pct(), o.max_span_error)) failures.push_back(*span);
  emit(o, report.to_json(), fmt::format("{} (A) and {} (B), two runs", o.original, o.replayed),
       report.to_text(o.by_call), failures, report.inputs_intact);
}

// Several rounds: the per-class verdicts over them.
void compare_over_rounds(const CompareFlags& o) {
  if (o.more.size() % 2 != 0)
    throw Error(fmt::format("{} file(s) after the first pair: rounds come in pairs ORIGINAL REPLAYED, and {} has none",
                            o.more.size(), o.more.back()));
  if (!o.summary.empty() || o.by_call || o.max_span_error || o.min_replayed)
    throw Error("over rounds, --summary, --by-call, --max-span-error and --min-replayed do not apply (each replay's "
                "summary comes from its header; compare one pair for its whole report)");
  cli::RoundsFlags r = o.rounds;
  r.json = o.json;
  r.pairs.emplace_back(o.original, o.replayed);
  for (size_t i = 0; i + 1 < o.more.size(); i += 2) r.pairs.emplace_back(o.more[i], o.more[i + 1]);
  cli::set_exit_code(cli::compare_rounds(r));
}

void run_compare(const CompareFlags& o) {
  if (!o.more.empty()) return compare_over_rounds(o);
  if (o.rounds_option_given)
    throw Error("--within, --confidence and --min-calls judge several rounds: give two pairs ORIGINAL REPLAYED or more");
  // A replay's original is never itself a replay: a replay given first before a capture is a swap,
  // which compare_replay points out. Two captures, or two replays (of one trace by two replayers,
  // say), are two runs.
  if (trace::is_replay_output(o.original) == trace::is_replay_output(o.replayed)) return compare_two_runs(o);
  trace::FidelityReport report = trace::compare_replay(o.original, o.replayed, o.summary);
  nlohmann::json j = report.to_json();
  j["original"] = o.original;
  j["replayed"] = o.replayed;
  emit(o, std::move(j), fmt::format("{} replayed as {}", o.original, o.replayed), report.to_text(o.by_call),
       trace::threshold_failures(report, {o.max_span_error, o.min_replayed}), report.inputs_intact);
}

cli::RegisterCommand register_compare{
    {"compare",
     "Fidelity of a replay: per call class and syscall, calls replayed / skipped (by reason) / mismatched, "
     "replay/original latency ratio (raw, and -b: the replayed durations minus the replayer's timer bias from "
     "REPLAYED's header), the replayer's own delay per call (ovh.us: issue time - planned time), "
     "span error (exit 3 below --min-replayed or above --max-span-error); of two captures (or two replays): the "
     "two runs side by side, per class and syscall calls, failed calls, median durations, latency ratios B/A, "
     "span error; over several rounds (O1 R1 O2 R2 ...): per class the geometric mean of the rounds' ratios, its "
     "interval and whether they show it within ±--within % (exit 3 when shown beyond)",
     105, [](CLI::App& app) {
       auto o = std::make_shared<CompareFlags>();
       app.add_option("ORIGINAL", o->original,
                      "The traced original (.rastro, .tsv or .csv); or run A of two captures (or two replays)")
           ->required();
       app.add_option("REPLAYED", o->replayed, "Its replay: the -o output of rastro replay or a compiled replayer; or run B, "
                      "another capture of the same program (or another replay of the same trace)")
           ->required();
       app.add_option("MORE", o->more,
                      "Further rounds, each a pair ORIGINAL REPLAYED (a new capture and its replay, or two runs): "
                      "then the report is per class over the rounds");
       app.add_option("--summary", o->summary,
                      "The replay's --summary-json file: skip reasons and emulated calls (default: the summary "
                      "stored in REPLAYED's header)");
       app.add_flag("--json", o->json, "Print the report as JSON (every class and syscall)");
       app.add_flag("--by-call", o->by_call, "Text: also a row per syscall under its class");
       app.add_option("--max-span-error", o->max_span_error,
                      "Exit 3 when |span error| exceeds this many percent");
       app.add_option("--min-replayed", o->min_replayed,
                      "Exit 3 when fewer than this percent of the original's calls were replayed with the traced "
                      "result");
       auto* within = app.add_option("--within", o->rounds.within_pct,
                                     "Over rounds: the verdict's bounds, in percent of the original (ratio in "
                                     "[1 - P/100, 1 + P/100])")
                          ->capture_default_str();
       auto* confidence = app.add_option("--confidence", o->rounds.confidence_pct,
                                         "Over rounds: the interval's confidence level in percent (90: the two "
                                         "one-sided tests of equivalence at 5 %)")
                              ->capture_default_str();
       auto* min_calls = app.add_option("--min-calls", o->rounds.min_calls,
                                        "Over rounds: a round counts for a class when this many of its calls were "
                                        "timed in it")
                             ->capture_default_str();
       app.callback([o, within, confidence, min_calls] {
         o->rounds_option_given = within->count() + confidence->count() + min_calls->count() > 0;
         run_compare(*o);
       });
     }}};

}  // namespace
