// Per traced process replay state: its fd table, its cwd (traced relative paths follow it) and its
// file mappings. A traced fork copies the parent's state into the child; CLONE_FILES shares the
// fd table; threads of one process share everything (they have one pid).
//
// Every process of the trace is created before the run (from the Plan's ProcessSeeds), so replay
// threads look their process up once and never take a lock to find it.
//
// This is the replayer's *live* state, not the traced-process model the importers and passes
// share (trace/common/process_model.h): its fd tables map fd-lifetime keys the Plan already
// resolved to the replayer's own open fds, are read and written by many replay threads at once
// (lock-free slots, fd_map.h), and own real resources (fds, mappings). Which process shares or
// copies which table is replayed from the traced clone flags here; everything the trace implies
// about fds was worked out by the passes.
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

#include "replay/passes/fd_keys.h"  // process_seeds, for plans built by hand
#include "replay/plan/plan.h"
#include "replay/runtime/fd_map.h"
#include "replay/runtime/mapping_table.h"
#include "trace/model/trace.h"

namespace rastro::replay {

struct ProcessState {
  int32_t pid = 0;
  std::shared_ptr<FdTable> fds;
  std::vector<int> inherited_fds;         // fd keys
  std::vector<int> inherited_traced_fds;  // the same, as traced fd numbers

  std::string cwd() const;
  void set_cwd(std::string cwd);

  // Traced address ranges -> the replay mappings standing for them (mapping_table.h). A forked
  // child's holds the parent's ranges as inherited, without pages: they are not copied
  // (MappingTable::inherit, docs/replay.md).
  MappingTable maps;

 private:
  mutable std::mutex mu_;
  std::string cwd_ = "/";
};

class ProcessTable {
 public:
  // Creates every process with its inherited fds duplicated from /dev/null.
  // `fd_slots`: lock-free fd-table slots per process (Plan::fd_keys.count when fd keys are used).
  // `kernel`: kPerProcess when the engine runs each traced process's replay threads on a kernel
  // fd table of their own (replay_threads.h); each process's stand-ins are then opened by its
  // first replay thread, in its own table (open_stand_ins), not here: opened here, every
  // process's stand-ins would be in every table (each copied from this thread's), which made each
  // table copy and each replay thread's exit work through hundreds of fds (make: 3 per process).
  explicit ProcessTable(std::span<const ProcessSeed> seeds, int fd_slots = FdTable::kDirect,
                        KernelFdTables kernel = KernelFdTables::kShared);
  // nullptr for a pid that was not seeded.
  ProcessState* find(int32_t pid) const;
  // A traced clone/fork/vfork in `parent_pid` that created `child_tid`. A new process gets a copy
  // of the parent's fds and cwd (or shares the fd table with CLONE_FILES); a new thread nothing.
  void spawn(int32_t parent_pid, int32_t child_tid, uint64_t clone_flags, bool flags_known);
  // kPerProcess, on `pid`'s first replay thread once it has a kernel table of its own
  // (replay_threads.h). When the thread that replayed its fork (OS thread `parent_tid`, 0: none)
  // waits, copies the fds the fork brought (spawn() left the parent's numbers) from that thread's
  // table into its own (pidfd_getfd); then opens a stand-in for each inherited fd its fork did not
  // bring (all of a root process's). Returns 0, or -errno of the first fd it could not copy (that
  // slot becomes kFailed).
  int own_table(int32_t pid, int32_t parent_tid);

 private:
  std::unordered_map<int32_t, std::unique_ptr<ProcessState>> procs_;
  void open_stand_ins(ProcessState& p);

  std::unordered_map<int32_t, int32_t> tid_to_pid_;
  KernelFdTables kernel_;
};

// Whether a traced clone/fork/vfork event made a child that shares its parent's fd table
// (CLONE_FILES, known only from clone's flags), as ProcessTable::spawn replays it.
bool clone_shares_fd_table(const trace::Event& e);

// Whether this kernel lets a thread take an fd from another thread's table (pidfd_open with
// PIDFD_THREAD, Linux 6.9, and pidfd_getfd): what import_fds needs.
bool thread_fd_import_available();

// For each plan thread, the request (index into plan.requests) of the clone/fork that created it,
// or -1. A thread's first request must wait for it: the child's fd table is copied there.
std::vector<int64_t> spawn_requests(const Plan& plan);

}  // namespace rastro::replay
