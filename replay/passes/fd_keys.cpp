#include "replay/passes/fd_keys.h"

#include <fcntl.h>  // AT_FDCWD

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "replay/passes/fd_reuse.h"
#include "replay/passes/initial_cwd.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

namespace {

// The fd argument i of `e` uses (an fd, or a dirfd other than AT_FDCWD), or -1. dup2/dup3's
// target (argument 1) is created, not used.
int used_fd(const trace::Event& e, int i, bool dup2_like) {
  const trace::Arg& a = e.arg(i);
  const bool use = a.type == trace::ArgType::kFd || (a.type == trace::ArgType::kDirFd && a.value != AT_FDCWD);
  if (!use || (dup2_like && i == 1) || a.value < 0 || a.value > INT32_MAX) return -1;
  return static_cast<int>(a.value);
}

}  // namespace

std::vector<ProcessSeed> process_seeds(const PlanTrace& trace) {
  struct Acc {
    std::set<int> created, inherited;
    std::set<int32_t> tids;
  };
  std::map<int32_t, Acc> acc;
  Acc* last = nullptr;  // consecutive events are mostly of one process and thread
  int32_t last_pid = 0, last_tid = 0;
  CompactEvents::Reader read(trace.events);
  for (size_t k = 0; k < trace.events.size(); ++k) {
    const trace::Event& e = read(k);
    if (!last || e.pid != last_pid) {
      last = &acc[e.pid];
      last_pid = e.pid;
      last_tid = e.tid;
      last->tids.insert(e.tid);
    } else if (e.tid != last_tid) {
      last->tids.insert(e.tid);
      last_tid = e.tid;
    }
    Acc& a = *last;
    const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
    if (!info) continue;
    const bool dup2_like = info->fd == trace::FdEffect::kDuplicatesOnto;
    const bool fcntl_like = info->fd == trace::FdEffect::kByCommand;
    // Uses first: a call that both uses and creates (dup) uses before it creates.
    for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
      if (const int fd = used_fd(e, i, dup2_like); fd >= 0 && !a.created.count(fd)) a.inherited.insert(fd);
    }
    if (e.failed() || (e.flags & trace::kEventUnfinished)) continue;
    if (info->ret == trace::ReturnKind::kFd && e.rvalue >= 0) a.created.insert(static_cast<int>(e.rvalue));
    if (dup2_like && e.nargs > 1) a.created.insert(static_cast<int>(e.arg(1).value));
    if (fcntl_like && e.nargs > 1 && trace::is_dup_fd_command(e.arg(1).value) && e.rvalue >= 0) {
      a.created.insert(static_cast<int>(e.rvalue));
    }
    for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
      if (e.arg(i).type == trace::ArgType::kFdPair) {
        auto v = static_cast<uint64_t>(e.arg(i).value);
        a.created.insert(static_cast<int>(v & 0xffffffffu));
        a.created.insert(static_cast<int>(v >> 32));
      }
    }
  }
  const std::string cwd = initial_cwd_or_root(trace.header);
  std::vector<ProcessSeed> seeds;
  for (auto& [pid, a] : acc) {
    ProcessSeed s;
    s.pid = pid;
    s.cwd = cwd;
    // Inherited: 0/1/2, and fds used but never created in this process. An fd used before the
    // call that creates it is an inconsistent trace: not inherited, so that use is skipped.
    for (int fd : a.inherited) {
      if (fd <= 2 || !a.created.count(fd)) s.inherited_fds.push_back(fd);
    }
    s.inherited_traced_fds = s.inherited_fds;
    s.tids.assign(a.tids.begin(), a.tids.end());
    seeds.push_back(std::move(s));
  }
  return seeds;
}

// An fd's current key in a process's table: the key while the lifetime is open, ~key once it was
// closed (a later use is still "use after close" of that lifetime, not "use before open").
static int32_t live_key(int32_t stored) { return stored >= 0 ? stored : ~stored; }

FdKeys compute_fd_keys(const PlanTrace& trace, std::span<const uint32_t> events, std::vector<ProcessSeed>* seeds) {
  FdKeys out;
  *seeds = process_seeds(trace);
  std::unordered_map<int32_t, std::map<int, int32_t>> current;  // pid -> traced fd -> key (~key: closed)
  std::unordered_map<int32_t, int32_t> tid_to_pid;
  for (ProcessSeed& s : *seeds) {
    auto& cur = current[s.pid];
    for (int& fd : s.inherited_fds) {
      int32_t k = out.count++;
      cur[fd] = k;
      fd = k;
    }
    for (int32_t t : s.tids) tid_to_pid[t] = s.pid;
  }
  // Lifetimes a later-begun request releases before an earlier-begun create (fd_reuse.h):
  // (pid, traced fd) -> (the releasing request, the old lifetime's key). Until the release, the
  // process's uses of the fd are the old lifetime's.
  struct Early {
    uint32_t release;
    int32_t key;
  };
  std::map<std::pair<int32_t, int>, Early> early;
  // Lifetimes whose creator returned the fd after a later-begun create (fd_reuse.h):
  // (pid, traced fd) -> the key that takes the fd back when the current lifetime closes.
  std::map<std::pair<int32_t, int>, int32_t> deferred;
  std::vector<uint32_t> creator_of_key(static_cast<size_t>(out.count), kNone);  // request, kNone = inherited
  auto new_key = [&](uint32_t creator) {
    creator_of_key.push_back(creator);
    return out.count++;
  };
  const auto n = static_cast<uint32_t>(events.size());
  auto event_of = [&](uint32_t j) -> trace::Event { return trace.events[events[j]]; };
  out.keys.reserve(events.size());
  std::map<int, int32_t>* cur_of_last = nullptr;
  int32_t last_pid = 0;
  // Request r's keys are complete after its iteration (later requests never change them): each
  // is packed then.
  PackedFdKeys::Row keys;
  CompactEvents::Reader read(trace.events);  // (event_of makes copies: held_fd_fate holds two at once)
  for (uint32_t r = 0; r < n; out.keys.push_back(keys), ++r) {
    const trace::Event& e = read(events[r]);
    keys.fill(-1);
    if (!cur_of_last || e.pid != last_pid) {  // (unordered_map references stay valid)
      cur_of_last = &current[e.pid];
      last_pid = e.pid;
    }
    auto& cur = *cur_of_last;
    const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
    if (!info) continue;
    const bool dup2_like = info->fd == trace::FdEffect::kDuplicatesOnto;
    const bool fcntl_like = info->fd == trace::FdEffect::kByCommand;
    bool ok = !e.failed() && !(e.flags & trace::kEventUnfinished);
    auto early_key = [&](int fd) -> int32_t {
      if (early.empty()) return -1;
      auto it = early.find({e.pid, fd});
      return it == early.end() || r > it->second.release ? -1 : it->second.key;
    };
    for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
      const int fd = used_fd(e, i, dup2_like);
      if (fd < 0) continue;
      if (int32_t k = early_key(fd); k >= 0) {
        keys[static_cast<size_t>(i)] = k;
        continue;
      }
      auto it = cur.find(fd);
      keys[static_cast<size_t>(i)] = it != cur.end() ? live_key(it->second) : new_key(kNone);
    }
    // Closes first: dup2 onto an open fd ends the old lifetime before creating the new one.
    if (ok && touches_fds(e.nr)) {
      const FdEffects fx = fd_effects(e, semantics(e.nr));
      for (int i = 0; i < fx.ncloses; ++i) {
        if (auto x = early.find({e.pid, fx.closes[i]}); x != early.end() && x->second.release == r) {
          early.erase(x);  // the old lifetime, already replaced in `cur` by the create
          continue;
        }
        auto it = cur.find(fx.closes[i]);
        if (it == cur.end() || it->second < 0) continue;
        if (auto d = deferred.find({e.pid, fx.closes[i]}); d != deferred.end()) {
          it->second = d->second;
          deferred.erase(d);
        } else {
          it->second = ~it->second;
        }
      }
    }
    auto create = [&](int fd, size_t slot) {
      int32_t k = new_key(r);
      keys[slot] = k;
      if (!ok) return;
      if (auto held = cur.find(fd); held != cur.end() && held->second >= 0) {
        const HeldFdFate fate = held_fd_fate(r, n, fd, creator_of_key[static_cast<size_t>(held->second)], event_of);
        if (fate.kind == HeldFdFate::kDeferred) deferred[{e.pid, fd}] = held->second;
        if (fate.kind == HeldFdFate::kReleasedEarly) early[{e.pid, fd}] = Early{fate.release, held->second};
      }
      cur[fd] = k;
    };
    if (info->ret == trace::ReturnKind::kFd || (fcntl_like && e.nargs > 1 && trace::is_dup_fd_command(e.arg(1).value))) {
      create(static_cast<int>(e.rvalue), FdKeys::kRet);
    }
    if (dup2_like && e.nargs > 1) {
      if (e.arg(0).value == e.arg(1).value) {
        keys[1] = keys[0];
      } else {
        create(static_cast<int>(e.arg(1).value), 1);
      }
    }
    for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
      if (e.arg(i).type != trace::ArgType::kFdPair) continue;
      auto v = static_cast<uint64_t>(e.arg(i).value);
      create(static_cast<int>(v & 0xffffffffu), static_cast<size_t>(i));
      create(static_cast<int>(v >> 32), FdKeys::kPair2);
    }
    if (info->ret == trace::ReturnKind::kPid && ok && e.rvalue > 0) {
      auto t = tid_to_pid.find(static_cast<int32_t>(e.rvalue));
      int32_t child = t == tid_to_pid.end() ? static_cast<int32_t>(e.rvalue) : t->second;
      if (child != e.pid) {
        auto& ch = current[child];
        std::map<int, int32_t> copy = cur;
        for (auto& [fd, k] : ch) copy.try_emplace(fd, k);  // the child's own unknown-origin fds
        ch = std::move(copy);
      }
    }
  }
  return out;
}

bool has_fd_keys(const Plan& plan) {
  return plan.fd_keys.keys.size() == plan.requests.size() && (plan.requests.empty() || !plan.processes.empty());
}

}  // namespace rastro::replay
