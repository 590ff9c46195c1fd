// Per traced process replay state: its fd table, its cwd (traced relative paths follow it) and its
// file mappings. A traced fork copies the parent's state into the child; CLONE_FILES shares the
// fd table; threads of one process share everything (they have one pid).
//
// Every process of the trace is created before the run (from ProcessSeeds), so replay threads look
// their process up once and never take a lock to find it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "replay/plan/plan.h"
#include "replay/runtime/fd_map.h"
#include "trace/model/trace.h"

namespace rastro::replay {

// What the runtime needs to know about a traced process before replaying it. The compiled
// replayer computes these at compile time and embeds them.
struct ProcessSeed {
  int32_t pid = 0;
  std::string cwd = "/";             // traced cwd at the start of the trace
  std::vector<int> inherited_fds;    // used but never created in the trace (0/1/2 and others)
  std::vector<int> inherited_traced_fds;  // the same as traced fd numbers (inherited_fds may be keys)
  std::vector<int32_t> tids;         // its threads as seen in the trace
};

std::vector<ProcessSeed> process_seeds(const trace::Trace& trace);

struct Mapping {
  uint64_t replay_addr = 0;
  uint64_t length = 0;
};

struct ProcessState {
  int32_t pid = 0;
  std::shared_ptr<FdTable> fds;
  std::vector<int> inherited_fds;

  std::string cwd() const;
  void set_cwd(std::string cwd);

  // Traced mmap address -> replay mapping.
  void add_mapping(uint64_t traced_addr, Mapping m);
  bool take_mapping(uint64_t traced_addr, Mapping* out);
  bool find_mapping(uint64_t traced_addr, Mapping* out) const;
  ~ProcessState();

 private:
  mutable std::mutex mu_;
  std::string cwd_ = "/";
  std::map<uint64_t, Mapping> maps_;
};

class ProcessTable {
 public:
  // Creates every process with its inherited fds duplicated from /dev/null.
  // `fd_slots`: lock-free fd-table slots per process (FdKeys::count when fd keys are used).
  explicit ProcessTable(std::span<const ProcessSeed> seeds, int fd_slots = FdTable::kDirect);
  // nullptr for a pid that was not seeded.
  ProcessState* find(int32_t pid) const;
  // A traced clone/fork/vfork in `parent_pid` that created `child_tid`. A new process gets a copy
  // of the parent's fds and cwd (or shares the fd table with CLONE_FILES); a new thread nothing.
  void spawn(int32_t parent_pid, int32_t child_tid, uint64_t clone_flags, bool flags_known);

 private:
  std::unordered_map<int32_t, std::unique_ptr<ProcessState>> procs_;
  std::unordered_map<int32_t, int32_t> tid_to_pid_;
};

// One key per traced fd lifetime, per plan request: keys[r][i] for fd/dirfd argument i (uses, and
// dup2/dup3's target, which is created), keys[r][kRet] for an fd the call returns, keys[r][kPair2]
// for the second fd of a pipe/socketpair. -1 = no fd there. Computed in plan (begin) order per
// traced process (fork copies the parent's current lifetimes). A use with no earlier creation in
// its process gets a fresh key that is never created ("use before open"), except inherited fds.
struct FdKeys {
  static constexpr int kRet = 6;
  static constexpr int kPair2 = 7;
  std::vector<std::array<int32_t, 8>> keys;
  int32_t count = 0;
};
// Also returns the process seeds with inherited_fds expressed as keys.
FdKeys plan_fd_keys(const Plan& plan, std::vector<ProcessSeed>* seeds);

// For each plan thread, the request (index into plan.requests) of the clone/fork that created it,
// or -1. A thread's first request must wait for it: the child's fd table is copied there.
std::vector<int64_t> spawn_requests(const Plan& plan);

}  // namespace rastro::replay
