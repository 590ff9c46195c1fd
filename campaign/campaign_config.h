// A validation campaign definition (SPEC §6.3): which factors vary, how many replicates, and how
// big each run is. Stored as a readable JSON file (docs/campaign.md); unknown keys are an error
// so a typo never silently shrinks a campaign.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace rastro::campaign {

// kMpi: a multi-rank MPI job (mpi/workload/) captured with `capture --mpi`, merged, and replayed
// with `mpirun … rastro replay --mpi` (docs/campaign.md, "MPI jobs").
enum class CampaignKind { kCapture, kReplay, kMacro, kMpi };

struct CampaignConfig {
  CampaignKind kind = CampaignKind::kCapture;
  std::vector<std::string> types = {"rr", "rw", "sr", "sw"};  // micro workload types (mpi: the MPIs)
  std::vector<int> levels = {1, 2, 3, 4};                      // worker threads (load level; mpi: ranks)
  std::vector<std::string> instruments = {"reference", "strace", "ptrace", "ebpf", "stap"};
  std::vector<int> backgrounds = {0, 1};                       // CPU-hog processes during the run
  int replicates = 10;
  uint64_t ops = 2000;            // requests per thread (mpi: rounds of the workload's token ring)
  uint64_t block = 4096;
  uint64_t file_size = 16u << 20; // per-thread file
  std::vector<int> pauses_us = {0};  // pause between requests (replay: 0, 10, 50)
  // Replay campaigns.
  std::vector<std::string> replayers = {"workers", "coordinator", "compiled"};
  std::vector<std::string> orderings = {"fs", "temporal"};
  std::vector<std::string> timings = {"fullspeed"};  // "timestamp" is used for paused traces
  // Macro campaigns.
  double macro_duration_s = 5;
  int macro_files = 200;
  std::string macro_capture_instrument = "ebpf";
  // MPI campaigns: the backend of `capture --mpi` that makes the originals and the reference runs.
  std::string mpi_capture_instrument = "ptrace";
  // Cache state, an explicit factor of the design: "cold" = page/dentry/inode caches dropped after
  // the files are laid out (root only), "warm" = the files read once after layout so they are
  // cached. The legacy key "drop_caches": true/false means ["cold"]/["warm"].
  std::vector<std::string> cache = {"cold"};
  // Requests per thread excluded from every measurement at the start of a run (the file's first
  // blocks, a thread's first page faults): the same count for reference, instrument and replay.
  uint64_t warmup = 0;
  // Replay campaigns: independent original runs per cell; replicate r replays original
  // r mod originals, so the replay reference spreads over several application runs.
  int originals = 1;
  // CPUs the measured processes (workload, instrument, replayer) are pinned to; empty = no
  // pinning. Background load stays unpinned (it is started before the pinning).
  std::vector<int> cpus;
  // Capture: instruments rastro does not ship, validated like its own: NAME -> the command that
  // runs a program under it, with "{trace}" where the trace it writes goes (any format read_trace
  // reads); the workload's argv is appended. NAME may then appear in `instruments`.
  std::map<std::string, std::vector<std::string>> instrument_commands;
  // Capture: also run fio (campaign/fio_job.h) per cell, alone and under each instrument, as an
  // independent second reference.
  bool fio = false;
  uint64_t seed = 1;
  int retries = 1;                // a failed run is retried this many times, then recorded as failed

  nlohmann::json to_json() const;
};

const char* kind_name(CampaignKind kind);
// The argv prefix that runs a program under capture `instrument` writing `trace`: rastro's own
// backends through `self capture -b`, the others from instrument_commands.
std::vector<std::string> capture_command(const CampaignConfig& config, const std::string& self,
                                         const std::string& instrument, const std::string& trace);
// Throws rastro::Error naming `origin` and the offending key or value.
CampaignConfig config_from_json(const nlohmann::json& j, const std::string& origin);
CampaignConfig load_config(const std::string& path);
// Built-in definitions: the full protocol, a quick one for CI, and the demo.
CampaignConfig default_config(CampaignKind kind);
CampaignConfig quick_config(CampaignKind kind);
// The thesis design (§5.1, Tables 5.3/B.1–B.2): RR/RW/SR/SW, 5000 requests per thread, load levels
// 1–8 (the thesis characterises at 1–4 and calibrates over 1–8; here every level is both, so the
// curves span the whole range), the reference interleaved with strace, ptrace and eBPF, n = 10.
CampaignConfig thesis_capture_config();

}  // namespace rastro::campaign
