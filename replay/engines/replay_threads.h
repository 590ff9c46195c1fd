// How the engines start their replay threads, one per traced thread (the workers engine's and
// compiled replayer's run that thread's requests, the coordinator's any request of its process):
// so that the kernel sees the traced processes' fd tables. The replay threads
// of one traced process share one kernel fd table of their own, which is a copy of its parent's
// taken at the traced fork: the thread that replays the fork starts the child's first replay
// thread, which unshare(CLONE_FILES)s and only then lets the parent go on. A process the trace
// does not see created (a root) copies the starting thread's table. A process's other threads are
// started by its first one, on its table; a child made with CLONE_FILES shares its parent's.
//
// Why: in one shared table (every replay thread of the replayer's one process) every call on an
// fd pays what the kernel charges a shared table: a reference on the file and, for read, write
// and lseek, its position lock. That is 50–70 ns per call (bench/fd_table_sharing.c), lseek
// replayed 1.3–1.5 × slower than traced, which a single-threaded traced process never paid
// (docs/replay.md). ProcessTable's KernelFdTables::kPerProcess is the fd model that goes with it.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "replay/engines/engine_common.h"
#include "replay/plan/plan.h"

namespace rastro::replay::detail {

class ReplayThreads {
 public:
  // `body(t)` is plan thread t's replay thread. `own_table(t)` runs on a process's first thread t
  // once it has its own table, before the parent or the process's other threads go on
  // (ProcessTable::open_stand_ins).
  ReplayThreads(const Plan& plan, const ImplicitDeps& imp, std::function<void(size_t)> body,
                std::function<void(size_t)> own_table);
  ~ReplayThreads();  // joins
  ReplayThreads(const ReplayThreads&) = delete;
  ReplayThreads& operator=(const ReplayThreads&) = delete;

  // On the engine's thread, once: starts the root processes' first threads.
  void start();
  // On the replay thread that has just issued request r: when r created traced processes, starts
  // their first replay threads and returns once each has its copy of the caller's fd table.
  void spawned(uint32_t r) {
    if (!children_.empty()) start_children(r);
  }
  // On the engine's thread: waits for every replay thread, including those started by others.
  // Throws rastro::Error when a thread could not get a table of its own.
  void join();

 private:
  struct Process {
    size_t first = 0;                 // the plan thread started for it
    std::vector<size_t> others;       // its other plan threads, started by `first`
    bool own_table = true;            // unshare(CLONE_FILES): false for a CLONE_FILES child
  };
  void start_children(uint32_t r);
  void join_all();
  // Starts `proc`'s first thread; `ready`, when given, is set once it has its table.
  void launch(const Process& proc, std::atomic<bool>* ready);

  std::function<void(size_t)> body_;
  std::function<void(size_t)> own_table_;
  std::vector<Process> roots_;
  std::unordered_map<uint32_t, std::vector<Process>> children_;  // by the request that made them
  std::mutex mu_;
  std::deque<std::thread> threads_;
  std::atomic<int> unshare_errno_{0};
};

}  // namespace rastro::replay::detail
