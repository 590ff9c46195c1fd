// The replayers' fd data, worked out once by the resolve_fds pass and stored in the Plan
// (Plan::processes, Plan::fd_keys; replay/plan/plan.h): which processes exist with which
// inherited fds and initial cwd, and one key per traced fd lifetime for every request.
//
// Keys are computed in plan (begin) order per traced process: a fork copies the parent's current
// lifetimes into the child; a use with no earlier creation in its process gets a fresh key that is
// never created ("use before open"), except inherited fds, which get their key up front. A failed
// create still gets a key of its own (never opened), so its uses replay as traced. Fd numbers
// reused across threads follow fd_reuse.h, as resolve_fds' lifetime entries do.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "replay/passes/event_order.h"
#include "replay/plan/plan.h"
#include "trace/model/trace.h"

namespace rastro::replay {

// Every process of the trace with its threads, its inherited fds (0/1/2 and fds used but never
// created, as traced fd numbers) and the initial cwd (initial_cwd.h).
std::vector<ProcessSeed> process_seeds(const PlanTrace& trace);

// process_seeds one event at a time, for a walk over the trace that decodes each event for other
// reasons too (the resolve_paths pass's initial-state walk): add() every event in trace order.
class SeedCollector {
 public:
  void add(const trace::Event& e);
  std::vector<ProcessSeed> take(const trace::TraceHeader& header);

 private:
  struct Acc {
    std::set<int> created, inherited;
    std::set<int32_t> tids;
  };
  std::map<int32_t, Acc> acc_;
  Acc* last_ = nullptr;  // consecutive events are mostly of one process
  int32_t last_pid_ = 0;
  std::array<std::pair<bool, uint64_t>, 64> seen_{};  // (pid << 32 | tid)s already in their Acc
};

// The fd keys of the requests whose events are `events` (request -> event index, begin order).
// Also returns the process seeds, with inherited_fds expressed as keys.
FdKeys compute_fd_keys(const PlanTrace& trace, std::span<const uint32_t> events, std::vector<ProcessSeed>* seeds);

// compute_fd_keys one request at a time, for a walk in request order that decodes the events for
// other reasons too (the resolve_fds pass): the constructor turns `seeds`' inherited fds into
// keys; then add() (or skip(), for a call not in the syscall table) each request in order.
class FdKeyAssigner {
 public:
  FdKeyAssigner(const PlanTrace& trace, const EventOrder& events, std::vector<ProcessSeed>& seeds);
  void add(uint32_t r, const trace::Event& e);  // e = request r's event
  void skip();
  FdKeys take() { return std::move(out_); }

 private:
  int32_t new_key(uint32_t creator);
  void add_keys(uint32_t r, const trace::Event& e);

  const PlanTrace& trace_;
  const EventOrder& events_;
  FdKeys out_;
  PackedFdKeys::Row keys_;  // the request's keys, complete (and packed) after its add()
  std::unordered_map<int32_t, std::map<int, int32_t>> current_;  // pid -> traced fd -> key (~key: closed)
  std::unordered_map<int32_t, int32_t> tid_to_pid_;
  // Lifetimes a later-begun request releases before an earlier-begun create (fd_reuse.h):
  // (pid, traced fd) -> (the releasing request, the old lifetime's key). Until the release, the
  // process's uses of the fd are the old lifetime's.
  struct Early {
    uint32_t release;
    int32_t key;
  };
  std::map<std::pair<int32_t, int>, Early> early_;
  // Lifetimes whose creator returned the fd after a later-begun create (fd_reuse.h):
  // (pid, traced fd) -> the key that takes the fd back when the current lifetime closes.
  std::map<std::pair<int32_t, int>, int32_t> deferred_;
  std::vector<uint32_t> creator_of_key_;  // request, kNoIndex = inherited
  std::map<int, int32_t>* cur_of_last_ = nullptr;
  int32_t last_pid_ = 0;
};

// Whether `plan` carries its fd data (one built by infer_plan does; one built by hand in a test or
// benchmark does not, and the engines then compute it with compute_fd_keys once, before the run).
bool has_fd_keys(const Plan& plan);

}  // namespace rastro::replay
