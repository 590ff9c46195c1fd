#include "replay/passes/resolve_fds.h"

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "replay/passes/fd_keys.h"
#include "replay/passes/fd_reuse.h"
#include "replay/passes/process_table.h"
#include "replay/passes/resolve_paths.h"
#include "replay/passes/syscall_semantics.h"

namespace rastro::replay {

namespace {

struct EntrySlot {
  uint32_t entry = kNoIndex;
  bool cloexec = false;
  // A lifetime whose creator returned this fd later (fd_reuse.h): it takes the fd when `entry`
  // is closed.
  uint32_t deferred = kNoIndex;
  bool deferred_cloexec = false;
};

class FdResolver {
 public:
  // c.processes (resolve_paths) become the seeds with their inherited fds as keys.
  explicit FdResolver(InferContext& c)
      : c_(c), read_(c.trace.events), keys_(c.trace, c.order, c.processes), table_(trace::kNoStr) {
    table_.learn_births(c.trace, c.nr, c.order, [](int nr) { return semantics(nr) == Sem::kClone; });
    for (const ProcessSeed& p : c.processes) pids_.insert(p.pid);
  }

  void run() {
    const auto n = c_.order.size();
    c_.fd_refs_at = CsrOffsets{};
    c_.fd_refs_at.reserve(static_cast<uint32_t>(n));
    c_.fd_refs.reserve(n + n / 4);
    // One decode of each event serves both the lifetime entries and the fd keys.
    for (uint32_t r = 0; r < n; ++r) {
      c_.fd_refs_at.push_back(static_cast<uint32_t>(c_.fd_refs.size()));
      if (trace::syscall_by_nr(c_.nr[r]) == nullptr) {  // no fds known: nothing to decode
        keys_.skip();
        continue;
      }
      const trace::Event& e = read_(c_.order[r]);
      keys_.add(r, e);
      if (!c_.ordered_as_success(r)) continue;  // failed, unfinished
      if (touches_fds(c_.nr[r])) {
        visit(r, e);
      } else if (semantics(c_.nr[r]) == Sem::kClone) {
        fork(e);
      }
    }
    c_.fd_refs_at.finish(static_cast<uint32_t>(c_.fd_refs.size()));
    c_.fd_keys = keys_.take();
  }

  bool too_many_entries() const { return too_many_; }

 private:
  uint32_t new_ofd(trace::StrId path, uint32_t creator) {
    c_.ofds.push_back(Ofd{path, creator});
    return static_cast<uint32_t>(c_.ofds.size() - 1);
  }
  uint32_t new_entry(uint32_t creator, uint32_t ofd) {
    // (beyond the limit the pass fails after the walk; until then entry numbers only wrap)
    if (c_.fd_entries.size() >= kMaxFdEntries) too_many_ = true;
    c_.fd_entries.push_back(FdEntry{creator, ofd});
    return static_cast<uint32_t>(c_.fd_entries.size() - 1);
  }

  // The entry of `fd`, creating an inherited one (no creator) on first sight.
  uint32_t lookup(TracedProcessTable<EntrySlot>::Process& proc, const trace::Event& e, uint32_t r, int fd) {
    if (uint32_t early = early_entry(r, e.pid, fd); early != kNoIndex) return early;
    auto [it, fresh] = proc.files->fds.try_emplace(fd);
    if (!fresh) return it->second.entry;
    ++c_.inherited_fds;
    trace::StrId path = trace::kNoStr;
    for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
      const auto& a = e.arg(i);
      if ((a.type == trace::ArgType::kFd || a.type == trace::ArgType::kDirFd) && a.value == fd && a.str != trace::kNoStr) {
        std::string_view s = c_.trace.str(a.str);
        if (!s.empty() && s[0] == '/') path = c_.trace.strings.intern(normalize_path("/", s));
      }
    }
    it->second.entry = new_entry(kNoIndex, new_ofd(path, kNoIndex));
    return it->second.entry;
  }

  void visit(uint32_t r, const trace::Event& e) {
    const Sem sem = semantics(e.nr);
    const FdEffects fx = fd_effects(e, sem);
    auto& proc = process(e.pid);
    auto& refs = c_.fd_refs;
    const size_t first = refs.size();
    uint32_t dup_ofd[2] = {kNoIndex, kNoIndex};
    for (int i = 0; i < fx.nuses; ++i) {
      const uint32_t en = lookup(proc, e, r, fx.uses[i]);
      bool seen = false;
      for (size_t k = first; k < refs.size(); ++k) seen |= refs[k].entry == en;
      if (!seen) refs.push_back(FdRef{en, FdRole::kUse});
      for (int k = 0; k < fx.ncreated; ++k)
        if (fx.created[k].dup_of == fx.uses[i]) dup_ofd[k] = c_.fd_entries[en].ofd;
    }
    auto& fds = proc.files->fds;
    for (int i = 0; i < fx.ncloses; ++i) {
      if (uint32_t early = take_early_entry(r, e.pid, fx.closes[i]); early != kNoIndex) {
        refs.push_back(FdRef{early, FdRole::kClose});  // released before an earlier-begun create
        continue;
      }
      auto it = fds.find(fx.closes[i]);
      if (it == fds.end()) continue;
      refs.push_back(FdRef{it->second.entry, FdRole::kClose});
      if (it->second.deferred != kNoIndex) {
        it->second = EntrySlot{it->second.deferred, it->second.deferred_cloexec};
      } else {
        fds.erase(it);
      }
    }
    for (int i = 0; i < fx.ncreated; ++i) {
      const auto& cr = fx.created[i];
      uint32_t ofd = dup_ofd[i];
      if (ofd == kNoIndex) ofd = new_ofd(fx.opens_path && i == 0 ? c_.paths[r][0] : trace::kNoStr, r);
      const uint32_t en = new_entry(r, ofd);
      // An fd returned while the table still holds it: its release overlaps this call and began
      // later (fd_reuse.h), or it was not captured and the old lifetime simply ends here.
      EntrySlot slot{en, cr.cloexec};
      if (auto held = fds.find(cr.fd); held != fds.end()) {
        auto event_of = [&](uint32_t k) -> trace::Event { return c_.trace.events[c_.order[k]]; };
        const HeldFdFate fate = held_fd_fate(r, static_cast<uint32_t>(c_.order.size()), cr.fd,
                                             c_.fd_entries[held->second.entry].creator, event_of);
        if (fate.kind == HeldFdFate::kDeferred) {
          slot.deferred = held->second.entry;
          slot.deferred_cloexec = held->second.cloexec;
        } else if (fate.kind == HeldFdFate::kReleasedEarly) {
          early_.push_back(EarlyRelease{fate.release, e.pid, cr.fd, held->second.entry});
        }
      }
      fds[cr.fd] = slot;
      refs.push_back(FdRef{en, FdRole::kCreate});
    }
    if (fx.setfd >= 0) {
      auto it = fds.find(fx.setfd);
      if (it != fds.end()) it->second.cloexec = fx.setfd_cloexec;
    }
    if (fx.exec) table_.exec(e.pid);
  }

  // A new process gets a copy of the parent's table when the clone runs: the fork is ordered
  // after the creators of the entries it copies, and their closes after it (infer_order.cpp),
  // or a replay could fork before another thread's open and the child would lack the fd.
  void fork(const trace::Event& e) {
    table_.clone_returned(e);
    // (a thread has no table of its own; clone3's flags are not recorded, its child's pid says it)
    if (e.rvalue <= 0 || e.rvalue > INT32_MAX || !pids_.contains(static_cast<int32_t>(e.rvalue))) return;
    if (e.nargs > 0 && e.arg(0).type == trace::ArgType::kCloneFlags && (e.arg(0).value & kCloneFiles)) return;
    const size_t first = c_.fd_refs.size();
    for (const auto& [fd, slot] : process(e.pid).files->fds) c_.fd_refs.push_back(FdRef{slot.entry, FdRole::kInherit});
    std::sort(c_.fd_refs.begin() + static_cast<std::ptrdiff_t>(first), c_.fd_refs.end(),
              [](const FdRef& a, const FdRef& b) { return a.entry < b.entry; });  // (a hash table's order)
  }
  static constexpr int64_t kCloneFiles = 0x00000400;  // linux/sched.h

  TracedProcessTable<EntrySlot>::Process& process(int32_t pid) {
    if (pid != last_pid_ || last_proc_ == nullptr) {
      last_proc_ = &table_.get(pid);
      last_pid_ = pid;
    }
    return *last_proc_;
  }

  // Old lifetimes that a later-begun request releases (fd_reuse.h): until that request, the
  // process's uses of the fd and the release itself refer to `entry`, not to the table's
  // current one (the new lifetime does not exist before the release). Few and short-lived.
  struct EarlyRelease {
    uint32_t release;
    int32_t pid;
    int fd;
    uint32_t entry;
  };
  uint32_t early_entry(uint32_t r, int32_t pid, int fd) const {
    for (const EarlyRelease& x : early_)
      if (x.fd == fd && x.pid == pid && r <= x.release) return x.entry;
    return kNoIndex;
  }
  uint32_t take_early_entry(uint32_t r, int32_t pid, int fd) {
    for (size_t i = 0; i < early_.size(); ++i) {
      if (early_[i].release != r || early_[i].pid != pid || early_[i].fd != fd) continue;
      const uint32_t en = early_[i].entry;
      early_.erase(early_.begin() + static_cast<std::ptrdiff_t>(i));
      return en;
    }
    return kNoIndex;
  }

  InferContext& c_;
  CompactEvents::Reader read_;  // the event being visited
  FdKeyAssigner keys_;
  bool too_many_ = false;  // more fd lifetimes than an FdRef can name
  std::vector<EarlyRelease> early_;
  TracedProcessTable<EntrySlot> table_;
  std::unordered_set<int32_t> pids_;  // the traced processes (a clone's child among them is a new process)
  int32_t last_pid_ = 0;
  TracedProcessTable<EntrySlot>::Process* last_proc_ = nullptr;
};

Result<Done> run_resolve_fds(InferContext& c) {
  FdResolver fds(c);
  fds.run();
  if (fds.too_many_entries()) return fail(fmt::format("trace has too many fd lifetimes for one plan (at most {})", kMaxFdEntries));
  return Done{};
}

}  // namespace

Pass CreateResolveFdsPass() {
  return Pass{"resolve_fds", {"requests", "paths", "processes"}, {"fds", "fd_keys"}, run_resolve_fds};
}

}  // namespace rastro::replay
