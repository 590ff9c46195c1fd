// Per traced process: its fd table and cwd, with the kernel's sharing rules. A child process
// starts with a copy of its parent's table and cwd (fork), or shares them (CLONE_FILES /
// CLONE_FS); threads share their process's (they have the same pid). exec drops close-on-exec
// entries and unshares the table. Used by resolve_paths (fd -> path) and resolve_fds (fd ->
// lifetime entry) with their own per-fd payload, which must have a `bool cloexec` member.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "trace/model/trace.h"

namespace rastro::replay {

template <class Slot>
class TracedProcessTable {
 public:
  struct Files {
    std::unordered_map<int, Slot> fds;
  };
  struct Process {
    std::shared_ptr<Files> files;
    std::shared_ptr<trace::StrId> cwd;
  };

  explicit TracedProcessTable(trace::StrId initial_cwd) : initial_cwd_(initial_cwd) {}

  // Learns parentage from the clone/fork results (the child's pid). Call once, before get(): a
  // child's first event may be recorded before its parent's clone returns. `nr` is the
  // requests' syscall numbers and `order` their events (only clone events are read).
  void learn_births(const trace::Trace& t, const std::vector<int32_t>& nr, const std::vector<uint32_t>& order,
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

  Process& get(int32_t pid) {
    auto it = procs_.find(pid);
    if (it != procs_.end()) return it->second;
    Process p;
    auto b = births_.find(pid);
    if (b != births_.end() && b->second.parent != pid) {
      const Birth birth = b->second;
      births_.erase(b);  // a pid-reuse loop in a bad trace must not recurse forever
      Process& parent = get(birth.parent);
      p.files = (birth.flags & kCloneFiles) ? parent.files : std::make_shared<Files>(*parent.files);
      p.cwd = (birth.flags & kCloneFs) ? parent.cwd : std::make_shared<trace::StrId>(*parent.cwd);
    } else {
      p.files = std::make_shared<Files>();
      p.cwd = std::make_shared<trace::StrId>(initial_cwd_);
    }
    return procs_.emplace(pid, std::move(p)).first->second;
  }

  // A successful exec: the table is unshared and loses its close-on-exec entries.
  void exec(int32_t pid) {
    Process& p = get(pid);
    auto files = std::make_shared<Files>();
    for (const auto& [fd, slot] : p.files->fds)
      if (!slot.cloexec) files->fds.emplace(fd, slot);
    p.files = std::move(files);
  }

 private:
  static constexpr uint64_t kCloneFs = 0x00000200;     // linux/sched.h
  static constexpr uint64_t kCloneFiles = 0x00000400;
  struct Birth {
    int32_t parent;
    uint64_t flags;
  };
  trace::StrId initial_cwd_;
  std::unordered_map<int32_t, Birth> births_;
  std::unordered_map<int32_t, Process> procs_;
};

}  // namespace rastro::replay
