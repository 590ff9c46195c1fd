// Background load for selectivity studies (SPEC §5, §6.1): `level` CPU hogs (busy-loop
// processes, thesis levels 0 and 1) or `level` streaming writers (I/O hogs). Each hog is a
// forked child process, so it competes with the workload as a separate task the way the thesis's
// hog did; it dies with its parent (PR_SET_PDEATHSIG) and stops on its own after `duration`.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace rastro::workloads {

enum class LoadKind { kCpu, kIo };

struct LoadOptions {
  LoadKind kind = LoadKind::kCpu;
  int level = 1;                      // number of hog processes; 0 = none
  int64_t duration_ns = 0;            // 0 = until stopped
  std::string dir = ".";              // I/O hogs write here
  uint64_t io_block = 1u << 20;       // bytes per write
  uint64_t io_file_size = 256u << 20; // a writer wraps to offset 0 after this many bytes
};

Result<LoadKind> parse_load_kind(std::string_view text);  // "cpu" | "io"
std::string_view load_kind_name(LoadKind k);

class LoadHandle {
 public:
  LoadHandle(LoadOptions o, std::vector<pid_t> pids);
  ~LoadHandle();  // stops the hogs
  LoadHandle(const LoadHandle&) = delete;
  LoadHandle& operator=(const LoadHandle&) = delete;

  // Sends SIGTERM to every hog still running and reaps them. Idempotent.
  void stop();
  // Reaps hogs that ended on their own; true while any is running.
  bool running();
  // Blocks until every hog ended (for runs with a duration).
  void wait();
  const std::vector<pid_t>& pids() const { return pids_; }
  // {kind, level, duration_ns, pids}: the background-load record of an experiment.
  nlohmann::json describe() const;

 private:
  LoadOptions o_;
  std::vector<pid_t> pids_;
  std::vector<bool> reaped_;
};

// Starts the hogs. Throws rastro::Error for a bad level/duration or an unusable --dir (I/O).
std::unique_ptr<LoadHandle> start_load(const LoadOptions& o);

}  // namespace rastro::workloads
