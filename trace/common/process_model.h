// One model of the traced processes, with the kernel's sharing rules, for everything that
// follows fds and the cwd through a trace: the strace importer (trace/common/fd_table.h), the
// SystemTap parser's fd tracker, the inference passes (replay/passes/process_table.h) and the
// initial-state planner (replay/passes/initial_state.cpp). Each keeps its own per-fd payload
// `Slot` (a path, a lifetime entry, an open file...; it must have a `bool cloexec`) and its own
// cwd type `Cwd` (a path string, an interned id).
//
//   - a task has an fd table and a cwd; clone/fork gives the child its parent's table — shared
//     with CLONE_FILES (threads), copied otherwise — and its parent's cwd — shared with CLONE_FS,
//     copied otherwise;
//   - a child seen before its parent's clone returned (traces are in completion order) keeps
//     what it opened meanwhile, merged into the shared table or over the copy, and a cwd it
//     already set when the parent's is still the initial one;
//   - exec gives the task its own table without the close-on-exec entries (unshare_files, then
//     close-on-exec);
//   - exit forgets the task (its table lives on while shared).
//
// The replay runtime's live fd map (replay/runtime/fd_map.h) is not this model: it maps fd
// lifetimes the Plan already resolved to real fds of the replayer, concurrently, and never has to
// work out sharing from clone flags (docs/architecture.md).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>

namespace rastro::trace {

template <class Slot, class Cwd>
class ProcessModel {
 public:
  struct Files {
    std::unordered_map<int, Slot> fds;
  };
  struct Process {
    std::shared_ptr<Files> files;
    std::shared_ptr<Cwd> cwd;
  };

  explicit ProcessModel(Cwd initial_cwd = Cwd{}) : initial_cwd_(std::move(initial_cwd)) {}

  // nullptr when the task was never seen.
  Process* find(int32_t id) {
    auto it = procs_.find(id);
    return it == procs_.end() ? nullptr : &it->second;
  }
  const Process* find(int32_t id) const {
    auto it = procs_.find(id);
    return it == procs_.end() ? nullptr : &it->second;
  }

  // The task, created with an empty table and the initial cwd when first seen.
  Process& get(int32_t id) {
    auto [it, fresh] = procs_.try_emplace(id);
    if (fresh) {
      it->second.files = std::make_shared<Files>();
      it->second.cwd = std::make_shared<Cwd>(initial_cwd_);
    }
    return it->second;
  }

  // `parent` created `child` (clone/fork/vfork) with these sharing flags.
  Process& clone(int32_t parent, int32_t child, bool share_files, bool share_fs) {
    const bool existed = procs_.count(child) != 0;
    Process& p = get(parent);  // (references into an unordered_map survive its rehashing)
    Process& c = get(child);
    if (&p == &c) return c;
    std::shared_ptr<Files> early = existed ? c.files : nullptr;
    if (share_files) {
      if (early && early != p.files)
        for (auto& [fd, slot] : early->fds) p.files->fds[fd] = slot;
      c.files = p.files;
    } else {
      auto copy = std::make_shared<Files>(*p.files);
      if (early)
        for (auto& [fd, slot] : early->fds) copy->fds[fd] = slot;
      c.files = std::move(copy);
    }
    if (!existed || !(*p.cwd == initial_cwd_)) c.cwd = share_fs ? p.cwd : std::make_shared<Cwd>(*p.cwd);
    return c;
  }

  void exec(int32_t id) {
    Process& p = get(id);
    auto own = std::make_shared<Files>();
    for (const auto& [fd, slot] : p.files->fds)
      if (!slot.cloexec) own->fds.emplace(fd, slot);
    p.files = std::move(own);
  }

  void exit(int32_t id) { procs_.erase(id); }

  // Moves everything known about task `from` to `to` (a task first seen under a placeholder id).
  void rename(int32_t from, int32_t to) {
    auto it = procs_.find(from);
    if (it == procs_.end()) return;
    Process p = std::move(it->second);
    procs_.erase(it);
    procs_[to] = std::move(p);
  }

 private:
  Cwd initial_cwd_;
  std::unordered_map<int32_t, Process> procs_;
};

}  // namespace rastro::trace
