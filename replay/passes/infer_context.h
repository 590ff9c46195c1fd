// What the inference passes read and produce (replay/passes/replay_passes.h lists them in
// order). Every per-request vector is indexed by request = position in begin order (Plan's
// request index), not by event index.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "replay/passes/csr_offsets.h"
#include "replay/passes/event_order.h"
#include "replay/passes/thread_column.h"
#include "replay/passes/time_column.h"
#include "replay/plan/path_column.h"
#include "replay/plan/plan.h"
#include "trace/model/trace.h"

namespace rastro::replay {

inline constexpr uint32_t kNoIndex = std::numeric_limits<uint32_t>::max();
inline constexpr uint8_t kStatusFailed = 1;      // rvalue is -errno
inline constexpr uint8_t kStatusUnfinished = 2;  // never returned within the trace
// With kStatusFailed: a lock attempt that found the lock held (F_SETLK, flock LOCK_NB: EAGAIN or
// EACCES). It failed, but it observed the holder's lock, so it is ordered like a success.
inline constexpr uint8_t kStatusLockHeld = 4;
// With kStatusFailed: ENOENT, the call found its path (or a directory on the way) absent.
inline constexpr uint8_t kStatusAbsent = 8;

struct InferOptions {
  Ordering ordering = Ordering::kFs;
};

// resolve_fds: one lifetime of one fd number in one fd table.
struct FdEntry {
  uint32_t creator = kNoIndex;  // request that created it; kNoIndex = inherited / opened before capture
  uint32_t ofd = kNoIndex;      // its open file description
};

// resolve_fds: an open file description (shared by dup'ed and inherited fds, with the offset).
struct Ofd {
  trace::StrId path = trace::kNoStr;  // absolute path it was opened with, when known
  uint32_t creator = kNoIndex;
};

// resolve_fds: what a request does to an fd-table entry.
enum class FdRole : uint8_t {
  kUse,     // an fd/dirfd argument
  kClose,   // the call ends the entry (close, dup2 over it)
  kCreate,  // the call created the entry
  kInherit, // a fork (no CLONE_FILES) copies the entry into the child's table
};
// 4 bytes (most requests hold one): entries are < kMaxFdEntries.
inline constexpr uint32_t kMaxFdEntries = uint32_t{1} << 30;
struct FdRef {
  FdRef(uint32_t e, FdRole r) : entry(e), role(r) {}  // (brace lists would narrow into the bit fields)
  uint32_t entry : 30;
  FdRole role : 2;
};

// The syscall number as the passes keep it: 2 bytes a request (issue #16). A number beyond int16
// is no row of the syscall table, as -1 (unknown) is not: both have no semantics.
inline int16_t compact_nr(int32_t nr) {
  return nr >= std::numeric_limits<int16_t>::min() && nr <= std::numeric_limits<int16_t>::max() ? static_cast<int16_t>(nr)
                                                                                                : int16_t{-1};
}

struct InferContext {
  InferOptions options;
  PlanTrace trace;

  // parse
  EventOrder order;                      // request -> event index
  std::vector<RequestAction> action;
  ThreadColumn thread;                   // request -> thread index
  TimeColumn times;                      // absolute traced begin/end (end = INT64_MAX if unfinished)
  // Compact copies of what later passes test on every request, so that they touch the (large)
  // events only for the calls whose arguments they need.
  std::vector<int16_t> nr;               // compact_nr(): what the passes test (semantics, table rows)
  std::vector<uint8_t> status;           // kStatus* bits
  std::vector<PlanThread> threads;       // (a request's pid is its thread's: pid_of)

  // resolve_paths
  PathColumn paths;
  uint64_t unresolved_paths = 0;
  InitPlan init;  // the initial file-system state (initial_state.h)

  // resolve_fds
  // fd_refs[fd_refs_at.begin(r), fd_refs_at.end(r)): request r's entries (sparse: most calls use
  // one fd, many none).
  CsrOffsets fd_refs_at;
  std::vector<FdRef> fd_refs;
  std::vector<FdEntry> fd_entries;
  std::vector<Ofd> ofds;
  uint64_t inherited_fds = 0;
  std::vector<ProcessSeed> processes;  // the replayers' process seeds and fd keys (fd_keys.h)
  FdKeys fd_keys;

  // infer_order: CSR dependencies, deps of request r in deps[deps_at.begin(r), deps_at.end(r))
  // (program order is none of them: replay/plan/thread_order.h)
  std::vector<Dep> deps;
  CsrOffsets deps_at;

  // uring_batches (uring_batches.h)
  UringPlan uring;

  // plan
  Plan plan;

  // Traced call succeeded, or is a lock attempt that found the lock held: what it did or saw
  // depends on the calls before it on its fds and files, and the calls after it depend on it.
  bool ordered_as_success(uint32_t r) const {
    return status[r] == 0 || status[r] == (kStatusFailed | kStatusLockHeld);
  }

  // One the engines replay and ordered as a success: the only requests that get resource
  // constraints and count as resource users.
  int32_t pid_of(uint32_t r) const { return threads[thread[r]].pid; }
  bool constrained(uint32_t r) const {
    return action[r] == RequestAction::kReplay && ordered_as_success(r);
  }
  // A replayed call that failed because its path was absent: it saw the name missing, so it comes
  // after the call that removed it and before the one that makes it again (fs order).
  bool saw_absent(uint32_t r) const {
    return action[r] == RequestAction::kReplay && status[r] == (kStatusFailed | kStatusAbsent);
  }
};

}  // namespace rastro::replay
