// Replaying io_uring requests through io_uring (liburing): one ring per traced thread that
// submitted any, sized to the thread's traced queue depth (Plan::uring, pass uring_batches).
//
// A ring request (uring_batches.h: is_ring_call) is prepared with its sandboxed fd, traced offset
// and length, and a page-aligned buffer of the ring's own (in-flight reads of one ring share one
// buffer the replayer never reads; writes take the deterministic pattern); the requests one
// io_uring_enter submitted are submitted together. Its record's begin is the submission, its end
// the completion as the ring's reaper thread saw the CQE, its result the CQE's res, and it keeps
// the kEventUring flag, so a replayed trace compares 1:1 with its original.
//
// How the engines use it, the same in workers, coordinator and the compiled replayer:
//   - a request's completion flag (the engines' `done`) means *submitted* for a ring request:
//     its thread goes on with the next call while it is in flight;
//   - await(r) before r's timing waits for the ring requests r must find completed: those of its
//     thread that completed in the trace before r began (UringPlan::awaits) and those among its
//     dependencies of other threads — so no more is in flight than was in the trace;
//   - issue(r) in place of issue_request(); it says whether r's record is provisional, to be
//     logged as "completes later" (record_log.h); drain(thread) / drain_all() before a replay
//     thread exits (the kernel cancels io-wq work its submitter left behind); finish() once every
//     replay thread has joined gives the log the completions and counts the mismatches.
// Without ring requests, or in plain mode, every call is issue_request() and nothing else runs.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "replay/plan/plan.h"
#include "replay/runtime/call_executor.h"
#include "replay/runtime/record_log.h"
#include "replay/runtime/shared_array.h"

namespace rastro::replay {

// ring: through io_uring (an error when a ring cannot be set up); plain: as the equivalent plain
// calls, one after the other in the submitting thread; auto (the default): ring when the plan has
// ring requests and the kernel gives a ring, else plain with a warning.
enum class UringMode : uint8_t { kAuto, kRing, kPlain };
Result<UringMode> parse_uring_mode(std::string_view text);  // "ring" | "plain" | "auto"
std::string_view uring_mode_name(UringMode m);
// Empty when this kernel gives an io_uring; else why not (e.g. kernel.io_uring_disabled).
std::string io_uring_missing();

class UringReplay {
 public:
  // Throws rastro::Error in ring mode when io_uring_queue_init fails, naming the cause.
  UringReplay(const Plan& plan, UringMode mode);
  ~UringReplay();
  UringReplay(const UringReplay&) = delete;
  UringReplay& operator=(const UringReplay&) = delete;

  bool active() const { return !rings_.empty(); }
  // Set when auto mode fell back to plain calls.
  const std::string& warning() const { return warning_; }

  // Before request r's timing (its dependencies' flags are set): waits for the ring requests it
  // must find completed. Returns whether it had to wait.
  bool await(uint32_t r);
  // Issues request r: submits a ring request to its thread's ring (or prepares it, when the next
  // request is of the same batch), anything else through issue_request(). Returns true for a
  // submitted ring request: `rec` is provisional and finish() supplies its completion.
  bool issue(uint32_t r, const CallExecutor& exec, const int32_t* fd_keys, ProcessState* proc, ThreadScratch& scratch,
             RequestRecord* rec);
  // `--time-with ebpf`: from now on, issue() keeps where each request began before its timed
  // region was narrowed to the call (request_runner.h), for apply_kernel_timing to find the
  // sandbox's resolution of a name. Off by default: a plain replay keeps no side array.
  // `across_processes`: the replay runs in processes of their own (EngineOptions::processes): the
  // side array is a shared mapping, so the engine's process reads what they wrote.
  void keep_issue_begins(bool across_processes = false);
  // Indexed by request; 0 where none was kept (ring requests). Read after every thread joined.
  std::span<const int64_t> issue_begins() const {
    return issue_begins_.size() ? std::span<const int64_t>(&issue_begins_[0], issue_begins_.size()) : std::span<const int64_t>();
  }
  // Waits until the ring requests of plan thread `thread` / of every thread completed.
  void drain(uint32_t thread);
  void drain_all();
  // After every replay thread joined: the ring requests' completions into `log` (begin =
  // submission, end = completion, rvalue = res), mismatches into `stats`; stops the reapers.
  void finish(RecordLog& log, ExecStats& stats);

  // Largest number of requests one ring had in flight (submitted, CQE not yet reaped) during the
  // run, and the traced depth it kept (valid after finish).
  uint32_t max_in_flight() const { return max_in_flight_; }
  uint32_t traced_depth() const { return traced_depth_; }

  struct Ring;

 private:
  void submit_pending(Ring& ring);
  Ring* ring_of_request(uint32_t r) const;
  bool ring_request(uint32_t r) const;  // submitted through a ring (Plan::uring depth, a ring for its thread)

  const Plan& plan_;
  std::string warning_;
  std::vector<std::unique_ptr<Ring>> rings_;
  std::vector<int32_t> ring_of_thread_;  // per plan thread: index into rings_, -1 = none
  SharedArray<int64_t> issue_begins_;    // per request, when keep_issue_begins() (each written by one thread)
  std::vector<uint8_t> submit_after_;    // per request: submit the ring's pending requests after it
  struct Slot;
  std::unique_ptr<Slot[]> slots_;        // per request (ring requests only)
  uint32_t max_in_flight_ = 0, traced_depth_ = 0;
};

}  // namespace rastro::replay
