#include "trace/analysis/replay_comparison.h"

#include <fstream>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "trace/analysis/replay_pairing.h"
#include "trace/io/trace_reader.h"
#include "trace/model/trace.h"

namespace rastro::trace {
namespace {

nlohmann::json read_summary_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(fmt::format("--summary {}: cannot open", path));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("--summary {}: not JSON: {}", path, e.what()));
  }
}

std::map<std::string, ReplayerCallNote, std::less<>> call_notes(const nlohmann::json& by_call) {
  std::map<std::string, ReplayerCallNote, std::less<>> notes;
  for (const auto& row : by_call) {
    ReplayerCallNote n;
    n.calls = row.at("calls").get<uint64_t>();
    n.replayed = row.at("replayed").get<uint64_t>();
    n.skipped = row.at("skipped").get<uint64_t>();
    n.emulated = row.at("emulated").get<uint64_t>();
    for (const auto& [reason, count] : row.at("skipped_by_reason").items()) n.skipped_by_reason[reason] = count.get<uint64_t>();
    notes[row.at("key").get<std::string>()] = std::move(n);
  }
  return notes;
}

// Takes the skip reasons and emulated counts from the replayer's summary `s` (described by
// `source`) into `acc`, then finishes the report. A summary of another replay is an error when the
// user gave it, a warning when it came with the trace.
FidelityReport finish_with_summary(FidelityAccumulator& acc, uint64_t pairs, const nlohmann::json& s,
                                   const std::string& source, bool given) {
  std::vector<std::string> warnings;
  auto report_with = [&](FidelityReport r, std::string notes) {
    r.notes = std::move(notes);
    r.warnings.insert(r.warnings.end(), warnings.begin(), warnings.end());
    return r;
  };
  if (!s.is_object()) return report_with(acc.finish(), "none");
  try {
    if (s.contains("requests") && s.at("requests").get<uint64_t>() != pairs) {
      std::string why = fmt::format("{}: the summary of a replay of {} calls, not of these {}", source,
                                    s.at("requests").get<uint64_t>(), pairs);
      if (given) throw Error(why);
      warnings.push_back(why + ": skip reasons unknown");
      return report_with(acc.finish(), "none");
    }
    if (s.contains("fidelity")) {
      for (const auto& name : acc.apply_notes(call_notes(s.at("fidelity").at("by_call"))))
        warnings.push_back(fmt::format("{}: its counts of {} differ from the traces': those skip reasons unknown",
                                       source, name));
      return report_with(acc.finish(), "summary");
    }
    FidelityReport r = acc.finish();
    if (!s.contains("skipped_by_reason") || s.value("skipped", uint64_t{0}) != r.total.skipped)
      return report_with(std::move(r), "none");
    r.total.skipped_by_reason.clear();
    for (const auto& [reason, count] : s.at("skipped_by_reason").items())
      r.total.skipped_by_reason[reason] = count.get<uint64_t>();
    r.total.emulated = s.value("emulated", uint64_t{0});
    return report_with(std::move(r), "summary totals");
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: not a replay summary: {}", source, e.what()));
  }
}

// The replayer's timer bias as its trace's header (settings.timer_bias) or its summary
// (fidelity.timer_bias) gives it; none from an older replayer.
TimerBias timer_bias_of(const TraceHeader& h, const nlohmann::json& summary, const std::string& source) {
  std::optional<TimerBias> b;
  try {
    if (h.settings.is_object() && h.settings.contains("timer_bias")) b = TimerBias::from_json(h.settings["timer_bias"]);
    if (!b && summary.is_object() && summary.contains("fidelity") && summary["fidelity"].is_object() &&
        summary["fidelity"].contains("timer_bias"))
      b = TimerBias::from_json(summary["fidelity"]["timer_bias"]);
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: a damaged timer_bias: {}", source, e.what()));
  }
  if (b && (b->median_ns < 0 || b->p10_ns < 0 || b->p90_ns < 0))
    throw Error(fmt::format("{}: a damaged timer_bias: negative ({} ns)", source, b->median_ns));
  return b.value_or(TimerBias{});
}

}  // namespace

FidelityReport compare_replay(const std::string& original, const std::string& replayed,
                              const std::string& summary_path) {
  auto o = open_trace_reader(original);
  auto r = open_trace_reader(replayed);
  const TraceHeader& h = r->header();
  const bool given = !summary_path.empty();
  nlohmann::json summary;
  if (given) {
    summary = read_summary_file(summary_path);
  } else if (h.extra.is_object() && h.extra.contains("replay_summary")) {
    summary = h.extra["replay_summary"];
  }
  FidelityAccumulator acc(timer_bias_of(h, summary, replayed));
  // A replayer that stores its summary in the header also flags each emulated call (kEventEmulated).
  const bool flags_emulation = h.extra.is_object() && h.extra.contains("replay_summary");
  const uint64_t pairs = pair_replay({o.get(), original}, {r.get(), replayed},
                                     [&acc, flags_emulation](const Event& oe, const StringTable& os, const Event& re) {
                                       const Emulation em = (re.flags & kEventEmulated) ? Emulation::kEmulated
                                                            : flags_emulation       ? Emulation::kExecuted
                                                                                    : Emulation::kUnknown;
                                       acc.add(oe, function_name(oe, os), ReplayedCall{re.begin_ns, re.end_ns, re.flags, {}, em, re.planned_ns});
                                     });
  FidelityReport report =
      finish_with_summary(acc, pairs, summary, given ? summary_path : replayed + " (its header's summary)", given);
  if (h.settings.contains("timing") && h.settings["timing"].is_string()) {
    report.timing = h.settings["timing"].get<std::string>();
  } else if (summary.is_object() && summary.contains("timing") && summary["timing"].is_string()) {
    report.timing = summary["timing"].get<std::string>();
  }
  if (h.settings.contains("timed_with") && h.settings["timed_with"].is_string())
    report.timed_with = h.settings["timed_with"].get<std::string>();
  for (const auto& [reader, path] : {std::pair{o.get(), original}, std::pair{r.get(), replayed}})
    if (!reader->report().intact) {
      report.inputs_intact = false;
      report.warnings.push_back(fmt::format("{}: damaged, compared its intact prefix ({})", path, reader->report().problem));
    }
  return report;
}

}  // namespace rastro::trace
