// `rastro merge DIR -o job.rastro [--json]`: the per-rank traces of an MPI capture
// (`rastro capture --mpi -o DIR`) as one job trace on rank 0's clock, with every rank's clock offset
// and its uncertainty, and cross-rank order from matched messages (mpi/job_merge.h).
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "common/error.h"
#include "mpi/job_dir.h"
#include "trace/io/trace_io.h"

namespace {

using rastro::Error;

std::string us(int64_t ns) { return fmt::format("{:.1f} µs", static_cast<double>(ns) / 1e3); }
// Offsets may be seconds (hosts' clocks count from their own boots) and still be known to the µs.
std::string offset_text(int64_t ns) {
  if (std::llabs(ns) >= 1'000'000'000) return fmt::format("{:+.7f} s", static_cast<double>(ns) / 1e9);
  return fmt::format("{:+.1f} µs", static_cast<double>(ns) / 1e3);
}

void run_merge(const std::string& dir, const std::string& output, bool json) {
  rastro::mpi::MergeReport rep;
  std::vector<std::string> warnings;
  rastro::trace::Trace merged;
  try {
    rastro::mpi::rank_trace_paths(dir);
  } catch (const Error& e) {
    throw Error(fmt::format("merge: {}", e.what()), e.exit_code());
  }
  merged = rastro::mpi::merge_job_dir(dir, &rep, &warnings);
  for (const auto& w : warnings) fmt::print(stderr, "rastro: merge: {}\n", w);
  rastro::trace::write_trace(output, merged);
  if (json) {
    fmt::print("{}\n", merged.header.extra["mpi_job"].dump(2));
    return;
  }
  fmt::print("job {}: {} ranks, {} events -> {}\n", rep.job, rep.ranks.size(), rep.events, output);
  fmt::print("{:>5}  {:<16} {:>8}  {:>26}  {:>26}  {:>20}\n", "rank", "host", "pid", "offset at init ± bound",
             "offset at finalize ± bound", "drift ± bound");
  for (const auto& r : rep.ranks) {
    auto cell = [](const std::optional<rastro::mpi::OffsetEstimate>& e) {
      return e ? fmt::format("{} ± {}", offset_text(e->offset), us(e->half_width)) : std::string("-");
    };
    fmt::print("{:>5}  {:<16} {:>8}  {:>26}  {:>26}  {:>20}\n", r.rank, r.host, r.pid,
               r.rank == 0 ? "reference" : cell(r.model.init()), r.rank == 0 ? "reference" : cell(r.model.finalize()),
               fmt::format("{:.1f} ± {:.1f} ppm", r.model.drift_ppm(), r.model.drift_bound_ppm()));
  }
  fmt::print("messages matched {} (unmatched: {} sends, {} receives); collectives {} (+{} partial)\n",
             rep.messages_matched, rep.sends_unmatched, rep.recvs_unmatched, rep.collectives_matched,
             rep.collectives_partial);
  fmt::print("receive-before-send on the aligned clock: {} within the clocks' bound (order kept from the message), "
             "{} beyond it\n", rep.inversions_within_uncertainty, rep.inversions_beyond_uncertainty);
  if (rep.inversions_beyond_uncertainty > 0)
    fmt::print(stderr, "rastro: merge: {} messages contradict the clock model beyond its bound: the offsets are wrong "
               "for them (clock stepped? ranks migrated?)\n", rep.inversions_beyond_uncertainty);
}

rastro::cli::RegisterCommand register_merge{
    {"merge", "Merge the per-rank traces of an MPI capture onto rank 0's clock (offsets, message order)", 62,
     [](CLI::App& app) {
       struct Opts {
         std::string dir, output = "job.rastro";
         bool json = false;
       };
       auto o = std::make_shared<Opts>();
       app.add_option("dir", o->dir, "Directory of rank-R.rastro traces (rastro capture --mpi -o DIR)")->required();
       app.add_option("-o,--output", o->output, "Merged trace")->capture_default_str();
       app.add_flag("--json", o->json, "Print the job's clock and message report as JSON");
       app.callback([o] { run_merge(o->dir, o->output, o->json); });
     }}};

}  // namespace
