#include "campaign/duration_estimate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "campaign/run_matrix.h"

namespace rastro::campaign {

namespace {

// Measured on the development VM (2 vCPU, ext4 on virtio): a 1000-request SR run takes 0.2-0.3 s
// alone, 0.6-0.75 s under eBPF (attach), 0.6-0.85 s under strace; `rastro demo` (320 runs) took
// 4 min 11 s. Seconds of fixed cost per run (child processes, preparation, cache drop) and
// microseconds per request.
constexpr double kRunOverheadS = 0.5;
constexpr double kEbpfAttachS = 0.4;       // loading and attaching the BPF programs
constexpr double kPrepareBytesPerS = 300e6;  // writing the workload's files, then sync
constexpr double kCompileS = 25;           // one `rastro compile --build` per replay cell
// An MPI job run (campaign kind mpi): mpirun starting the ranks, their MPI start-up (~2 000 calls
// each, most of the run under ptrace), the merge; per rank. The cell's original costs one more.
constexpr double kMpiRankS = 1.0;

double per_call_us(const std::string& instrument) {
  static const std::map<std::string, double> us = {
      {"reference", 6}, {"ebpf", 9}, {"ptrace", 90}, {"strace", 150}, {"stap", 20},
      {"workers", 8},   {"coordinator", 10}, {"compiled", 7}};
  auto it = us.find(instrument);
  return it == us.end() ? 10 : it->second;
}

}  // namespace

double estimated_duration_s(const CampaignConfig& c) {
  constexpr double kCores = 2;
  double total = 0;
  std::map<std::string, bool> compiled_cells;
  std::set<std::string> mpi_originals;  // cells whose original job is already counted
  for (const auto& run : expand_runs(c)) {
    double s = kRunOverheadS;
    if (run.instrument == "ebpf") s += kEbpfAttachS;
    if (c.kind == CampaignKind::kMpi) {
      s += kMpiRankS * run.level;
      if (mpi_originals.insert(run.type + std::to_string(run.level)).second) s += kMpiRankS * run.level;
    } else if (c.kind == CampaignKind::kMacro) {
      s += c.macro_duration_s;
    } else {
      s += static_cast<double>(c.file_size) * run.level / kPrepareBytesPerS;
      s += static_cast<double>(c.ops) * run.level * per_call_us(run.instrument) * 1e-6 / std::min<double>(run.level, kCores);
      s += run.pause_us * 1e-6 * static_cast<double>(c.ops);
    }
    if (run.instrument == "compiled" && !compiled_cells[run.cell]) {
      compiled_cells[run.cell] = true;
      s += kCompileS;
    }
    total += s;
  }
  return total;
}

std::string duration_text(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} s", s);
}

}  // namespace rastro::campaign
