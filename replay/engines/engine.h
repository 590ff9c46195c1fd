// The event-based replayer's engines (SPEC §4). Both read only the Plan and run every request
// through the shared runtime (replay/runtime/): sandbox, fd map, executor, timing, output records.
//
//   workers      (thesis §6.2.2) one replay thread per traced thread, owning its requests in
//                program order; each request has a completion flag its dependants wait on
//                (spin, then futex). No central component on the hot path.
//   coordinator  (thesis Fig. 6.1-6.2) a coordinator thread keeps each request unavailable ->
//                available -> replayed; workers take available requests from a Boost.Lockfree
//                queue and hand completions back through another.
//
// Program order within a traced thread is implicit (the plan does not store same-thread edges),
// and a thread's first request also waits for the clone/fork that created it (its fd table is
// copied there).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "replay/plan/plan.h"
#include "replay/runtime/call_executor.h"
#include "replay/runtime/exec_uring.h"
#include "replay/runtime/replay_output.h"
#include "replay/runtime/sandbox_resolver.h"
#include "replay/runtime/timing.h"

namespace rastro::replay {

enum class EngineKind : uint8_t { kWorkers, kCoordinator };
Result<EngineKind> parse_engine(std::string_view name);
std::string_view engine_name(EngineKind k);

// Synchronisation with replays outside this process (`rastro replay --mpi`: the other ranks of a
// job, mpi/replay/). The replay thread of request r calls before_issue(r) once r's dependencies
// completed, before its timing (returns whether it had to wait), and after_complete(r) once r
// completed, before r's dependants may start.
class RequestHooks {
 public:
  virtual ~RequestHooks() = default;
  virtual bool before_issue(uint32_t request) = 0;
  virtual void after_complete(uint32_t request) = 0;
};

struct EngineOptions {
  TimingSpec timing;
  bool realtime = false;  // SCHED_FIFO replay threads (warns if not permitted)
  RequestHooks* hooks = nullptr;
  UringReplay* uring = nullptr;  // io_uring requests through rings (exec_uring.h); nullptr: plain calls
  // coordinator engine: a worker that finished a request runs its thread's next one itself when
  // nothing else that one depends on is outstanding, instead of handing both through the
  // coordinator (the thesis design, the default, passes every request through it: two thread
  // wake-ups per request); and only completions another thread waits for are reported to it.
  bool coordinator_chain = false;
  bool record_os_threads = false;  // fill EngineResult::os_threads (--time-with ebpf)
  // Give a forked child's replay threads their fds by pidfd_getfd from the forking thread when the
  // kernel can (Linux 6.9+, PIDFD_THREAD); false: start the child's first thread at the fork and
  // let unshare(CLONE_FILES) copy the table, as on older kernels (replay_threads.h).
  bool thread_fd_import = true;
  // Each traced process replayed in an OS process of its own, forked where the trace forks
  // (replay_threads.h), not as threads of one: its memory calls get an address space of their
  // own. Every engine and the compiled replayer; not with `hooks` (MPI), io_uring rings,
  // or a ThreadSanitizer build (check_processes).
  bool processes = false;
};

struct EngineResult {
  RecordLog log;  // one record per plan request (record_log.h); reads the plan: it must outlive it
  std::vector<RequestRecord> records() const { return log.decode(); }  // indexed by request
  ExecStats stats;
  uint64_t dependency_waits = 0;       // requests that found a dependency not yet done
  uint64_t handoffs = 0;               // coordinator: requests it made available through its queue
  uint64_t completions_reported = 0;   // coordinator: completions its workers reported to it
  int64_t start_ns = 0;                // trace offset 0 maps here
  int64_t wall_ns = 0;
  std::vector<std::string> warnings;
  // With EngineOptions::record_os_threads, per request the OS thread (gettid) that issued it
  // (0: none); else empty. `--time-with ebpf` takes only that thread's calls (kernel_timing.h).
  std::vector<int32_t> os_threads;
  // How many OS processes ran replay threads: 1, or with EngineOptions::processes one per traced
  // process (its threads and CLONE_FILES children in it).
  size_t replay_processes = 0;
};

// Runs the plan in `sandbox` (the fs state must already be prepared).
EngineResult run_engine(EngineKind kind, const Plan& plan, const SandboxResolver& sandbox,
                        const EngineOptions& options);

EngineResult run_workers(const Plan& plan, const SandboxResolver& sandbox, const EngineOptions& options);
EngineResult run_coordinator(const Plan& plan, const SandboxResolver& sandbox, const EngineOptions& options);

// Throws rastro::Error naming why `options.processes` cannot be honoured (no
// `hooks`, no active ring in `uring`, a build whose sanitizer cannot follow fork); nothing when
// it is off.
void check_processes(const EngineOptions& options, const UringReplay& uring);

// Shared by both engines (and usable by generated code): SCHED_FIFO for the calling thread.
bool make_realtime(std::string* why);

// The plan's source event index of every request (compute_fd_keys' input, for a hand-made plan).
std::vector<uint32_t> request_events(const Plan& plan);

}  // namespace rastro::replay
