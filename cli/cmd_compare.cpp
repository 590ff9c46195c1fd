// `rastro compare ORIGINAL REPLAYED [--json] [--by-call] [--summary FILE] [--max-span-error P]
// [--min-replayed P]`: the replay fidelity report of an original trace and its replay (what
// `rastro replay` prints at the end of a run), per call class and syscall: calls, replayed,
// emulated, skipped by reason, mismatched, replay/original latency ratio, replayer overhead, span error
// (trace/analysis/replay_comparison.h). Streaming, like `rastro stats`.
//
// Exit status: 0; 3 when the report misses a threshold given (--max-span-error, --min-replayed);
// 2 when a trace is damaged (its intact prefix compared); 1 on bad input (not a replay, the replay of
// another trace, an unreadable file or summary).
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/command.h"
#include "trace/analysis/replay_comparison.h"

namespace {

using namespace rastro;

struct CompareFlags {
  std::string original, replayed, summary;
  bool json = false;
  bool by_call = false;
  std::optional<double> max_span_error, min_replayed;
};

void run_compare(const CompareFlags& o) {
  trace::FidelityReport report = trace::compare_replay(o.original, o.replayed, o.summary);
  const auto failures = trace::threshold_failures(report, {o.max_span_error, o.min_replayed});
  if (o.json) {
    nlohmann::json j = report.to_json();
    j["original"] = o.original;
    j["replayed"] = o.replayed;
    j["threshold_failures"] = failures;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    fmt::print("{} replayed as {}\n{}", o.original, o.replayed, report.to_text(o.by_call));
  }
  std::cout << std::flush;
  for (const auto& f : failures) fmt::print(stderr, "rastro compare: {}\n", f);
  if (!failures.empty()) {
    cli::set_exit_code(3);
  } else if (!report.inputs_intact) {
    cli::set_exit_code(2);
  }
}

cli::RegisterCommand register_compare{
    {"compare",
     "Fidelity of a replay: per call class and syscall, calls replayed / skipped (by reason) / mismatched, "
     "replay/original latency ratio (raw, and -b: the replayed durations minus the replayer's timer bias from "
     "REPLAYED's header), the replayer's own delay per call (ovh.us: issue time - planned time), "
     "span error (exit 3 below --min-replayed or above --max-span-error)",
     105, [](CLI::App& app) {
       auto o = std::make_shared<CompareFlags>();
       app.add_option("ORIGINAL", o->original, "The traced original (.rastro, .tsv or .csv)")->required();
       app.add_option("REPLAYED", o->replayed, "Its replay: the -o output of rastro replay or a compiled replayer")
           ->required();
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
       app.callback([o] { run_compare(*o); });
     }}};

}  // namespace
