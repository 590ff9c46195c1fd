// How the engines start their replay threads, one per traced thread (the workers engine's and
// compiled replayer's run that thread's requests, the coordinator's any request of its process):
// so that the kernel sees the traced processes' fd tables. The replay threads
// of one traced process share one kernel fd table of their own, which holds its parent's fds as
// they were at the traced fork. Every process's first replay thread is started before the replay
// begins and unshare(CLONE_FILES)s; at the fork, the thread that replays it wakes the child's,
// which copies the parent's fds from that thread's table (pidfd_getfd, ProcessTable::import_fds)
// and only then lets the parent go on. A process the trace does not see created (a root) starts
// from the starting thread's table. A process's other threads are started by its first one, on its
// table; a child made with CLONE_FILES (sharing its parent's table) is started at the fork by the
// thread that replays it. Without PIDFD_THREAD (Linux < 6.9) every child is started at its fork
// and copies the table with unshare(CLONE_FILES) there.
//
// Threads are started before the replay because starting one during it (a stack to map, a clone)
// slowed the other replay threads' mmap calls: make's `memory` class replayed at 1.21 of traced
// with each child's thread started at its fork, 1.06 with all started before (docs/replay.md).
//
// With use_processes() (EngineOptions::processes), each traced process is replayed in an OS process
// of its own instead, forked where the trace forks: by the replay thread that replays the fork, so
// the child starts with its parent's fds and memory as the traced child did. A root process is
// forked before the replay. A traced process's threads (and a CLONE_FILES child) stay threads of
// their process's replay process. Why: as threads of one replayer, the traced processes' mmap and
// munmap calls share one address space — one mmap_lock, and TLB shootdowns to every CPU running a
// sibling — which made the memory calls of programs whose processes run side by side replay
// 1.3-1.5 times slower (make, a tar pipeline: docs/replay.md "r16"). The replay processes share
// only the completion flags and the schedule (shared mappings: shared_array.h); each leaves its
// threads' outcomes (ThreadOutcomes::encode) in a file of the replay's own temporary directory
// when it ends, which join() adopts. The engine's process watches them (pidfds): one that ends
// without its outcome (a crash, a kill) ends the replay with an error naming its traced process,
// after the others are killed, rather than leaving them waiting on its requests for ever. The
// other way round, each replay process watches the engine's process (a pidfd it inherits from the
// fork): when that process ends first (killed, crashed), the replay processes end too, and the
// last of them removes the replay's temporary directory.
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
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "replay/engines/engine_common.h"
#include "replay/plan/plan.h"
#include "replay/runtime/fd_map.h"
#include "replay/runtime/shared_array.h"

namespace rastro::replay::detail {

// ThreadSanitizer models fds by number, one table per process: two replay threads of different
// traced processes using "fd 5" of their own tables look to it like a race on one fd. A TSan build
// keeps every replay thread on the replayer's one table (KernelFdTables::kShared, children started
// at their fork); it checks the threads' synchronisation, the other builds the fd tables.
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kFdTablePerProcess = false;
#else
inline constexpr bool kFdTablePerProcess = true;
#endif
inline constexpr KernelFdTables kEngineFdTables =
    kFdTablePerProcess ? KernelFdTables::kPerProcess : KernelFdTables::kShared;

// ThreadSanitizer does not follow a multi-threaded process into fork: a TSan build replays every
// traced process as threads of one process (EngineOptions::processes is refused).
#if defined(__SANITIZE_THREAD__)
inline constexpr bool kProcessesAvailable = false;
#else
inline constexpr bool kProcessesAvailable = true;
#endif

class ReplayThreads {
 public:
  // `body(t)` is plan thread t's replay thread. `own_table(t, parent_tid)` runs on a process's
  // first thread t once it has its own table, before the parent or the process's other threads go
  // on: it imports the fds of the fork from OS thread `parent_tid` (0: none to import, a root or a
  // table the kernel copied) and opens the stand-ins (ProcessTable::import_fds, open_stand_ins);
  // it returns 0 or -errno.
  using OwnTable = std::function<int(size_t t, int32_t parent_tid)>;
  // `thread_fd_import`: EngineOptions::thread_fd_import (used only where the kernel has it).
  ReplayThreads(const Plan& plan, const ImplicitDeps& imp, std::function<void(size_t)> body, OwnTable own_table,
                bool thread_fd_import = true);
  ~ReplayThreads();  // joins
  ReplayThreads(const ReplayThreads&) = delete;
  ReplayThreads& operator=(const ReplayThreads&) = delete;

  // What a replay process hands the engine's process before it exits: `encode(threads)` (on the
  // replay process: the outcomes of the plan threads it ran, ThreadOutcomes::encode), and
  // `adopt(bytes)` (on the engine's process, in join()).
  struct ProcessOutcomes {
    std::function<std::string(std::span<const size_t>)> encode;
    std::function<void(std::string_view)> adopt;
  };
  // Before start(): each traced process in an OS process of its own (above). Throws rastro::Error
  // when the replay's temporary directory cannot be made.
  void use_processes(ProcessOutcomes outcomes);

  // On the engine's thread, once: starts every process's first thread that can start before the
  // replay (all but the children started at their fork); with use_processes(), forks the roots.
  void start();
  // On the replay thread that has just issued request r: when r created traced processes, gives
  // them their fds (wakes or starts their first threads) and returns once each has them.
  void spawned(uint32_t r) {
    if (!children_.empty()) start_children(r);
  }
  // On the engine's thread: waits for every replay thread, including those started by others
  // (with use_processes(): for every replay process, and adopts their outcomes). Throws
  // rastro::Error when a process could not get a table of its own or its fork's fds, or a replay
  // process failed or ended without its outcome.
  void join();

 private:
  struct Process {
    size_t first = 0;                 // the plan thread started for it
    std::vector<size_t> others;       // its other plan threads, started by `first`
    bool own_table = true;            // unshare(CLONE_FILES): false for a CLONE_FILES child
    bool forked = false;              // created by a traced fork the replay replays
    bool early = true;                // started before the replay (else at its fork)
    std::atomic<int32_t> parent{0};   // early and forked: the OS thread of its fork, once replayed
    std::atomic<bool> ready{false};   // forked: it has its table; the parent may go on
    int slot = -1;                    // use_processes(): its replay process's slot (-1: a thread)
    int32_t traced_pid = 0;
  };
  // What one OS process (the engine's, or a replay process) started: written by its threads.
  struct Local {
    std::mutex mu;
    std::deque<std::thread> threads;
    std::vector<size_t> plan_threads;  // the plan threads its threads run
    std::vector<int32_t> children;     // the replay processes it forked
    std::string error;                 // a fork that failed
  };
  // A replay process, as the engine's process watches it (shared mapping).
  struct Slot {
    std::atomic<int32_t> pid{0};
    std::atomic<uint32_t> state{kNotStarted};
  };
  static constexpr uint32_t kNotStarted = 0, kRunning = 1, kFinished = 2, kFailed = 3;

  void start_children(uint32_t r);
  void join_all();
  void run(Process& p);  // on p's first thread
  void fail(int err);
  void fork_process(Process& p);
  [[noreturn]] void run_process(Process& p);  // in the forked process
  std::string outcome_path(int slot) const;
  std::string outcome(int slot) const;
  void watch_processes();  // on the engine's process: until every replay process ended
  void join_processes();

  std::function<void(size_t)> body_;
  OwnTable own_table_;
  std::deque<Process> processes_;
  std::unordered_map<uint32_t, std::vector<Process*>> children_;  // by the request that made them
  Local engine_local_;
  Local* local_ = &engine_local_;  // this OS process's (a forked replay process makes its own)
  std::atomic<int> errno_{0};
  bool processes_mode_ = false;
  ProcessOutcomes outcomes_;
  SharedArray<Slot> slots_;
  std::string dir_;  // where each replay process leaves its outcome (a file per slot)
  int engine_pidfd_ = -1;  // the engine's process, as its replay processes watch it (end_with_engine)
};

}  // namespace rastro::replay::detail
