// `rastro stats TRACE [--json] [--top N] [-q]`: the condenser (trace/analysis/condenser.h) per
// function, thread and file (and per rank and host for a merged MPI job), the concurrency-level ECDF (SPEC §6.1) and the header counters
// (events captured / lost and why, whether the trace is complete), and the off-CPU time and context
// switches inside the calls when the backend measured them (eBPF). Exit status 2 when the trace
// file is damaged (the statistics then cover its intact prefix). One streaming pass: memory grows
// with the rows, not the events (p50/p99 from QuantileSketch, concurrency sorted with spilling).
#include <iostream>
#include <memory>
#include <span>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "common/error.h"
#include "trace/analysis/concurrency.h"
#include "trace/analysis/condenser.h"
#include "common/progress.h"
#include "trace/io/trace_reader.h"

namespace {

using rastro::trace::ConcurrencySummary;
using rastro::trace::LatencyRow;

nlohmann::json row_json(const LatencyRow& r) {
  return {{"key", r.key},         {"count", r.count},     {"unfinished", r.unfinished},
          {"errors", r.errors},   {"bytes", r.bytes},     {"mean_ns", r.mean_ns},
          {"p50_ns", r.p50_ns},   {"p99_ns", r.p99_ns},   {"max_ns", r.max_ns},
          {"offcpu_measured", r.sched_measured}, {"offcpu_ns", r.offcpu_ns},
          {"vol_switches", r.vol_switches}, {"invol_switches", r.invol_switches},
          {"gap_offcpu_ns", r.gap_offcpu_ns}};
}

nlohmann::json rows_json(const std::vector<LatencyRow>& rows) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& r : rows) a.push_back(row_json(r));
  return a;
}

nlohmann::json groups_json(const std::vector<rastro::trace::GroupRows>& groups) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& g : groups) j[g.group] = rows_json(g.rows);
  return j;
}

// Off-CPU columns, printed only for traces that measured them (the eBPF backend).
std::string sched_header(bool sched) {
  return sched ? fmt::format(" {:>11} {:>7} {:>7}", "offcpu_us", "vol_sw", "inv_sw") : std::string();
}
std::string sched_cells(bool sched, const LatencyRow& r) {
  return sched ? fmt::format(" {:>11.3f} {:>7} {:>7}", static_cast<double>(r.offcpu_ns) / 1e3, r.vol_switches,
                             r.invol_switches)
               : std::string();
}

void print_rows(std::string_view title, std::string_view key_name, const std::vector<LatencyRow>& rows,
                size_t top, bool sched) {
  fmt::print("\n{} ({} rows)\n", title, rows.size());
  size_t width = key_name.size();
  for (size_t i = 0; i < rows.size() && i < top; ++i) width = std::max(width, rows[i].key.size());
  width = std::min<size_t>(width, 60);
  fmt::print("  {:<{}} {:>10} {:>7} {:>10} {:>14} {:>11} {:>11} {:>11} {:>11}{}\n", key_name, width,
             "count", "errors", "unfinished", "bytes", "mean_us", "p50_us", "p99_us", "max_us", sched_header(sched));
  for (size_t i = 0; i < rows.size() && i < top; ++i) {
    const LatencyRow& r = rows[i];
    fmt::print("  {:<{}} {:>10} {:>7} {:>10} {:>14} {:>11.3f} {:>11.3f} {:>11.3f} {:>11.3f}{}\n",
               r.key, width, r.count, r.errors, r.unfinished, r.bytes, r.mean_ns / 1e3,
               r.p50_ns / 1e3, r.p99_ns / 1e3, static_cast<double>(r.max_ns) / 1e3, sched_cells(sched, r));
  }
  if (rows.size() > top) fmt::print("  ... {} more (--top N, or --json for all)\n", rows.size() - top);
}

rastro::cli::RegisterCommand register_stats{
    {"stats",
     "Condense a trace: count, bytes, latency mean/p50/p99/max and errors per function, thread "
     "and file; off-CPU time and context switches inside calls (eBPF); concurrency-level ECDF; "
     "events captured/lost",
     40, [](CLI::App& app) {
       auto path = std::make_shared<std::string>();
       auto json = std::make_shared<bool>(false);
       auto top = std::make_shared<size_t>(20);
       app.add_option("TRACE", *path, "Trace file (.rastro, .tsv or .csv)")->required();
       app.add_flag("--json", *json, "Print everything as one JSON object (all rows)");
       app.add_option("--top", *top, "Rows shown per table in text output")->capture_default_str();
       auto quiet = std::make_shared<bool>(false);
       app.add_flag("-q,--quiet", *quiet, "No progress line on stderr (shown on a terminal for long runs)");
       app.callback([path, json, top, quiet] {
         auto reader = rastro::trace::open_trace_reader(*path);
         rastro::Progress progress("rastro stats", !*quiet);
         progress.set_total(reader->remaining_hint());
         rastro::trace::Condenser condenser;
         rastro::trace::ConcurrencyCounter concurrency;
         std::span<const rastro::trace::Event> block;
         while (reader->next_events(&block)) {
           condenser.add(block);
           for (const auto& e : block) concurrency.add(e);
           progress.update(reader->events_read());
         }
         progress.finish();
         const uint64_t events = reader->events_read();
         const rastro::trace::ReadReport& rep = reader->report();
         const auto& h = reader->header();
         rastro::trace::Condensed c = condenser.finish(h, reader->strings());
         ConcurrencySummary cs = rastro::trace::summarize_concurrency(concurrency.requests_per_level());
         if (*json) {
           nlohmann::json ecdf = nlohmann::json::array();
           for (const auto& s : cs.ecdf)
             ecdf.push_back({{"level", s.level}, {"count", s.count}, {"cumulative", s.cumulative}});
           nlohmann::json j = {
               {"trace", *path},
               {"backend", h.backend},
               {"complete", h.complete},
               {"intact", rep.intact},
               {"problem", rep.problem},
               {"events", events},
               {"events_captured", h.events_captured},
               {"events_lost", h.events_lost},
               {"lost_reasons", h.lost_reasons},
               {"total", row_json(c.total)},
               {"by_function", rows_json(c.by_function)},
               {"by_thread", rows_json(c.by_thread)},
               {"by_file", rows_json(c.by_file)},
               {"by_group", groups_json(c.by_group)},
               {"concurrency",
                {{"requests", cs.requests},
                 {"mean", cs.mean},
                 {"median", cs.median},
                 {"p99", cs.p99},
                 {"max", cs.max},
                 {"ecdf", ecdf}}},
           };
           std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
         } else {
           fmt::print("trace {}: {} events, backend {}, {}\n", *path, events,
                      h.backend.empty() ? "?" : h.backend,
                      h.complete ? "complete" : "INCOMPLETE (the writer did not finish)");
           fmt::print("events captured {}, lost {}", h.events_captured, h.events_lost);
           if (!h.lost_reasons.empty()) fmt::print(" ({})", h.lost_reasons.dump());
           fmt::print("\n");
           if (!rep.intact) fmt::print("DAMAGED: {}\n", rep.problem);
           const auto& r = c.total;
           fmt::print("total: {} events, {} errors, {} unfinished, {} bytes; latency mean {:.3f} us, "
                      "p50 {:.3f} us, p99 {:.3f} us, max {:.3f} us\n",
                      r.count, r.errors, r.unfinished, r.bytes, r.mean_ns / 1e3, r.p50_ns / 1e3,
                      r.p99_ns / 1e3, static_cast<double>(r.max_ns) / 1e3);
           const bool sched = r.sched_measured > 0;
           if (sched)
             fmt::print("off-CPU inside calls: {:.3f} ms over {} measured events; context switches {} "
                        "voluntary (blocked), {} involuntary (preempted); off-CPU between calls: {:.3f} ms\n",
                        static_cast<double>(r.offcpu_ns) / 1e6, r.sched_measured, r.vol_switches,
                        r.invol_switches, static_cast<double>(r.gap_offcpu_ns) / 1e6);
           print_rows("By function", "function", c.by_function, *top, sched);
           print_rows("By thread", "pid/tid", c.by_thread, *top, sched);
           print_rows("By file", "file", c.by_file, *top, sched);
           for (const auto& g : c.by_group) print_rows("By " + g.group, g.group, g.rows, *top, sched);
           fmt::print("\nConcurrency level (requests in flight at each request's start, itself "
                      "included): mean {:.3f}, median {}, p99 {}, max {}\n",
                      cs.mean, cs.median, cs.p99, cs.max);
           fmt::print("  {:>6} {:>10} {:>8}\n", "level", "requests", "ECDF");
           for (size_t i = 0; i < cs.ecdf.size() && i < *top; ++i)
             fmt::print("  {:>6} {:>10} {:>8.4f}\n", cs.ecdf[i].level, cs.ecdf[i].count,
                        cs.ecdf[i].cumulative);
           if (cs.ecdf.size() > *top) fmt::print("  ... {} more levels\n", cs.ecdf.size() - *top);
         }
         if (!rep.intact) {
           fmt::print(stderr, "rastro stats: {}: statistics cover only the intact prefix: {}\n", *path,
                      rep.problem);
           rastro::cli::set_exit_code(2);
         }
       });
     }}};

}  // namespace
