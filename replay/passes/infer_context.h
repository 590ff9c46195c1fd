// What the inference passes read and produce (replay/passes/replay_passes.h lists them in
// order). Every per-request vector is indexed by request = position in begin order (Plan's
// request index), not by event index.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "replay/plan/plan.h"
#include "trace/model/trace.h"

namespace rastro::replay {

inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

struct InferOptions {
  Ordering ordering = Ordering::kFs;
};

// resolve_fds: one lifetime of one fd number in one fd table.
struct FdEntry {
  uint32_t creator = kNone;  // request that created it; kNone = inherited / opened before capture
  uint32_t ofd = kNone;      // its open file description
};

// resolve_fds: an open file description (shared by dup'ed and inherited fds, with the offset).
struct Ofd {
  trace::StrId path = trace::kNoStr;  // absolute path it was opened with, when known
  uint32_t creator = kNone;
};

struct RequestFds {
  uint8_t nuses = 0;
  uint32_t uses[4] = {kNone, kNone, kNone, kNone};  // entries of the fd/dirfd arguments
  uint8_t ncreated = 0;
  uint32_t created[2] = {kNone, kNone};
  uint8_t ncloses = 0;
  uint32_t closes[2] = {kNone, kNone};              // entries the call ends
};

struct InferContext {
  InferOptions options;
  trace::Trace trace;

  // parse
  std::vector<uint32_t> order;           // request -> event index
  std::vector<RequestAction> action;
  std::vector<uint32_t> thread;          // request -> thread index
  std::vector<int64_t> begin_ns;         // absolute traced begin/end (end = INT64_MAX if unfinished)
  std::vector<int64_t> end_ns;
  std::vector<PlanThread> threads;

  // resolve_paths
  std::vector<std::array<trace::StrId, 2>> paths;
  uint64_t unresolved_paths = 0;

  // resolve_fds
  std::vector<RequestFds> fds;
  std::vector<FdEntry> fd_entries;
  std::vector<Ofd> ofds;
  uint64_t inherited_fds = 0;

  // infer_order: CSR dependencies, deps of request r in deps[deps_begin[r], deps_begin[r+1])
  std::vector<Dep> deps;
  std::vector<uint32_t> deps_begin;

  // plan
  Plan plan;

  // Traced call succeeded and is one the engines replay: the only requests that get resource
  // constraints and count as resource users.
  bool constrained(uint32_t r) const {
    return action[r] == RequestAction::kReplay && !trace.events[order[r]].failed();
  }
};

}  // namespace rastro::replay
