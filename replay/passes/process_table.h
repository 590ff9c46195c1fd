// Per traced process, for the inference passes: the one process model (trace/common/
// process_model.h: fd table and cwd with the kernel's sharing rules for fork, CLONE_FILES,
// CLONE_FS and exec) keyed by pid, plus who forked whom, learnt up front from the clone results,
// because a child's first event may be recorded before its parent's clone returns. Used by
// resolve_paths (fd -> path) and resolve_fds (fd -> lifetime entry) with their own per-fd
// payload, which must have a `bool cloexec` member.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "trace/common/process_model.h"
#include "replay/passes/event_order.h"
#include "replay/plan/plan_trace.h"
#include "trace/model/trace.h"

namespace rastro::replay {

template <class Slot>
class TracedProcessTable {
 public:
  using Model = trace::ProcessModel<Slot, trace::StrId>;
  using Files = typename Model::Files;
  using Process = typename Model::Process;

  explicit TracedProcessTable(trace::StrId initial_cwd) : model_(initial_cwd) {}

  // Learns parentage from the clone/fork results (the child's pid). Call once, before get(): a
  // child's first event may be recorded before its parent's clone returns. `nr` is the
  // requests' syscall numbers and `order` their events (only clone events are read).
  void learn_births(const PlanTrace& t, const std::vector<int16_t>& nr, const EventOrder& order,
                    bool (*is_clone)(int)) {
    for (size_t r = 0; r < nr.size(); ++r) {
      if (!is_clone(nr[r])) continue;
      const trace::Event& e = t.events[order[r]];
      if (e.rvalue <= 0 || e.rvalue > INT32_MAX) continue;
      uint64_t flags = 0;
      if (e.nargs > 0 && e.arg(0).type == trace::ArgType::kCloneFlags) flags = static_cast<uint64_t>(e.arg(0).value);
      births_.emplace(static_cast<int32_t>(e.rvalue), Birth{e.pid, flags});
    }
  }

  // The process, created on first sight from its parent's state at that moment (or empty, in
  // the initial cwd, when its birth was not traced).
  Process& get(int32_t pid) {
    if (Process* p = model_.find(pid)) return *p;
    auto b = births_.find(pid);
    if (b == births_.end() || b->second.parent == pid) return model_.get(pid);
    const Birth birth = b->second;
    births_.erase(b);  // a pid-reuse loop in a bad trace must not recurse forever
    get(birth.parent);
    return model_.clone(birth.parent, pid, birth.flags & kCloneFiles, birth.flags & kCloneFs);
  }

  // A successful clone (`e`): its child gets its parent's table and cwd as they are now, not at
  // its first event — by then the parent may have closed the pipe end the child goes on to use
  // (a shell's `a | b`: the parent closes both ends right after the forks).
  void clone_returned(const trace::Event& e) {
    if (e.rvalue > 0 && e.rvalue <= INT32_MAX && births_.contains(static_cast<int32_t>(e.rvalue)))
      get(static_cast<int32_t>(e.rvalue));
  }

  // A successful exec: the table is unshared and loses its close-on-exec entries.
  void exec(int32_t pid) {
    get(pid);
    model_.exec(pid);
  }

 private:
  static constexpr uint64_t kCloneFs = 0x00000200;     // linux/sched.h
  static constexpr uint64_t kCloneFiles = 0x00000400;
  struct Birth {
    int32_t parent;
    uint64_t flags;
  };
  std::unordered_map<int32_t, Birth> births_;
  Model model_;
};

}  // namespace rastro::replay
