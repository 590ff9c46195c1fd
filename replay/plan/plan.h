// The replay plan (SPEC §4): passive data, no methods (the two readers at the end, deps_of and
// trace_times, read what a request does not store). Inference produces it; the event-based
// engines and the compiler read only this. A new ordering policy changes how a Plan is built,
// never the replayers (thesis §2.4.2).
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <array>
#include <cstddef>  // (trace/model/event.h uses size_t without it)
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/saturating.h"
#include "replay/plan/packed_fd_keys.h"
#include "replay/plan/path_column.h"
#include "replay/plan/plan_trace.h"
#include "trace/model/trace.h"

namespace rastro::replay {

enum class Ordering : uint8_t { kThread, kFs, kTemporal };

// Why an edge exists (thread = program order, which the plan never stores: replay/plan/
// thread_order.h; fd-stage/fd-seq/file/path = ARTC ROOT resource rules; temporal =
// completed-before-began in the trace).
enum class EdgeKind : uint8_t { kThread, kFdStage, kFdSeq, kFile, kPath, kTemporal, kMapping };
inline constexpr int kEdgeKinds = 7;

// 4 bytes (a plan holds one or more per request): requests are < kMaxRequests.
inline constexpr uint32_t kMaxRequests = uint32_t{1} << 29;
struct Dep {
  Dep() = default;
  Dep(uint32_t r, EdgeKind k) : request(r), kind(k) {}  // (brace lists would narrow into the bit fields)
  uint32_t request : 29 = 0;  // index into Plan::requests that must complete first
  EdgeKind kind : 3 = EdgeKind::kThread;
};

// What an engine does with a request (decided from the syscall table classes). Every traced
// event is a request so that thread order and counts stay exact; engines issue only kReplay and
// count the others by action (and by syscall name) as skipped, marking them complete at once.
// The mmap family and page faults (kEventPageFault) are kReplay: the runtime maps and touches.
enum class RequestAction : uint8_t {
  kReplay,          // a file-system call the engine issues
  kSkipUnknown,     // syscall not in the syscall table
  kSkipUnfinished,  // never returned within the trace
  kLifecycle,       // clone/fork/exec/exit: the plan's threads stand for them
};
inline constexpr int kRequestActions = 4;

// 24 bytes (issue #16: infer and replay 100 M events in memory). What the packed event or the
// CSR already holds is not repeated: the traced times are the event's (trace_times below), and
// the dependencies end where the next request's begin (deps_of below).
struct Request {
  uint32_t event;        // index into Plan::trace.events
  uint32_t thread;       // index into Plan::threads
  uint32_t deps_begin;   // this request's dependencies are deps[deps_begin, next request's deps_begin)
  // Added by inference (note for the engines): the action. (The call's resolved paths are
  // Plan::paths[r].)
  RequestAction action = RequestAction::kReplay;
};
static_assert(sizeof(Request) == 16);

struct PlanThread {
  int32_t pid = 0;
  int32_t tid = 0;
  std::vector<uint32_t> requests;  // indices into Plan::requests, in program order
};

struct PlanFigures {
  uint64_t edges_by_kind[kEdgeKinds] = {};
  int64_t critical_path_ns = 0;   // longest dependency chain of traced durations (fullspeed bound)
  uint32_t max_parallelism = 0;
  double mean_parallelism = 0;
  uint64_t unconstrained = 0;     // requests with no dependencies at all
  // Added by inference:
  uint64_t requests = 0;
  uint64_t by_action[kRequestActions] = {};  // requests per RequestAction
  uint64_t failed = 0;            // replayable requests that failed in the trace (unconstrained)
  uint64_t inherited_fds = 0;     // fds used without a traced creator (0/1/2, opened before capture)
  uint64_t unresolved_paths = 0;  // relative paths/dirfds resolved against an unknown directory
};

// One key per traced fd lifetime, per plan request (pass resolve_fds, replay/passes/fd_keys.h):
// keys[r][i] for fd/dirfd argument i (uses, and dup2/dup3's target, which is created),
// keys[r][kRet] for an fd the call returns, keys[r][kPair2] for the second fd of a
// pipe/socketpair. -1 = no fd there. The replayers' fd tables are indexed by these keys, so a
// traced fd number reused by a later open is a different slot.
struct FdKeys {
  static constexpr int kRet = 6;
  static constexpr int kPair2 = 7;
  PackedFdKeys keys;  // keys[r] is request r's 8 slots
  int32_t count = 0;  // keys 0..count-1 exist
};

// What the replayers create for a traced process before the first call (pass resolve_fds).
struct ProcessSeed {
  int32_t pid = 0;
  std::string cwd = "/";             // traced cwd at the start of the trace (initial_cwd.h's rule)
  std::vector<int> inherited_fds;    // used but never created in the trace (0/1/2 and others)
  std::vector<int> inherited_traced_fds;  // the same as traced fd numbers (inherited_fds may be keys)
  std::vector<int32_t> tids;         // its threads as seen in the trace
};

// The initial file-system state the trace needs (`--init`; pass resolve_paths,
// replay/passes/initial_state.h); replay/runtime/fs_init.h creates it inside a root.
struct InitEntry {
  enum class Kind : uint8_t { kDir, kFile, kSymlink };
  Kind kind = Kind::kFile;
  std::string path;    // absolute traced path (normalised)
  uint64_t size = 0;   // files: minimum size
  mode_t mode = 0644;  // files: 0755 when the trace found them executable (access X_OK, exec)
  std::string target;  // symlinks: a placeholder of the traced readlink length
};

struct InitPlan {
  std::vector<InitEntry> entries;  // parents before children
  uint64_t bytes = 0;
};

// io_uring requests (trace events with kEventUring: begin = submission, end = completion) for the
// ring replay (replay/runtime/exec_uring.h; pass replay/passes/uring_batches.h). Empty when the
// trace has none. A *ring request* is one the engines issue (kReplay) and the ring can submit:
// an equivalent pread64/pwrite64/preadv/pwritev/fsync/sync_file_range/fallocate/fadvise64.
struct UringPlan {
  // Per plan request: its traced queue depth — the ring requests of its thread submitted and not
  // yet completed when it was submitted, itself included; 0 when it is no ring request.
  std::vector<uint32_t> depth;
  // Per plan request: 1 when it ends its batch (the requests one io_uring_enter of its thread
  // submitted, consecutive in program order): the ring submits after it.
  std::vector<uint8_t> batch_end;
  // CSR, per plan request r: awaits[awaits_begin[r], awaits_begin[r+1]) are the ring requests of
  // r's thread that completed in the trace before r began and that no earlier request of the
  // thread awaits. r is issued only once they completed in the replay too (the traced overlap is
  // kept: what was in flight with r in the trace is all that can be in flight with it here).
  std::vector<uint32_t> awaits_begin;
  std::vector<uint32_t> awaits;
  // Per PlanThread: its largest depth (its ring's size); 0 = no ring requests.
  std::vector<uint32_t> thread_depth;

  bool empty() const { return depth.empty(); }
};

struct Plan {
  Ordering ordering = Ordering::kFs;
  PlanTrace trace;                 // the input trace (header, strings, events packed)
  // One per trace event, in begin order (stable by seq): every dependency points to an earlier
  // request, so the index order is a topological order of the DAG.
  std::vector<Request> requests;
  // CSR storage of every request's dependencies: request r's are deps[requests[r].deps_begin,
  // requests[r + 1].deps_begin), the last request's run to the end (deps_begin never decreases).
  std::vector<Dep> deps;
  // Added by inference: request r's path arguments resolved to absolute, lexically normalised
  // traced paths (traced cwd from chdir/fchdir, dirfds from the opens that made them); slot i is
  // the i-th path argument that names a file (a symlink's target string is not one); kNoStr when
  // the call has fewer paths. Empty in a plan built by hand (every request: none).
  PathColumn paths;
  int64_t trace_t0_ns = 0;         // the traced begin the requests' times are relative to (the first's)
  std::vector<PlanThread> threads;
  PlanFigures figures;
  // Added by inference for the replayers (empty in a plan built by hand, see
  // replay/passes/fd_keys.h): the traced processes, in pid order, with inherited_fds as fd keys;
  // the fd keys of every request; the initial file-system state.
  std::vector<ProcessSeed> processes;
  FdKeys fd_keys;
  InitPlan init;
  UringPlan uring;  // (pass uring_batches)
};

// Where request r's dependencies end in plan.deps (unchecked).
inline size_t deps_end(const Plan& plan, uint32_t r) {
  return r + 1 < plan.requests.size() ? plan.requests[r + 1].deps_begin : plan.deps.size();
}

// Request r's dependencies. An empty range where deps_begin is out of order or beyond deps (a
// plan built by hand; compute_figures refuses such a plan, naming the request).
inline std::span<const Dep> deps_of(const Plan& plan, uint32_t r) {
  const size_t begin = plan.requests[r].deps_begin;
  const size_t end = deps_end(plan, r);
  if (begin > end || end > plan.deps.size()) return {};
  return {plan.deps.data() + begin, end - begin};
}

// Request r's traced begin and end relative to plan.trace_t0_ns, from its event. Saturating: t0
// and a later begin are untrusted (a hostile trace can hold -2^63 and 2^63-1), and a plain
// difference would be signed overflow. An unfinished call ends where it begins; an end before
// the begin is taken as the begin.
struct TracedTimes {
  int64_t begin_ns;
  int64_t end_ns;
  int64_t duration_ns() const { return sat_sub(end_ns, begin_ns); }
};
inline TracedTimes trace_times(const Plan& plan, uint32_t r) {
  const CompactEvents::Fields f = plan.trace.events.fields(plan.requests[r].event);
  const int64_t begin = sat_sub(f.begin_ns, plan.trace_t0_ns);
  if (f.flags & trace::kEventUnfinished) return {begin, begin};
  return {begin, sat_sub(std::max(f.end_ns, f.begin_ns), plan.trace_t0_ns)};
}

}  // namespace rastro::replay
