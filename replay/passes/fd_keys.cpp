#include "replay/passes/fd_keys.h"

#include <fcntl.h>  // AT_FDCWD

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <unordered_map>

#include "replay/passes/fd_reuse.h"
#include "replay/passes/initial_cwd.h"
#include "replay/runtime/special_file.h"
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

void SeedCollector::add(const trace::Event& e) {
  if (!last_ || e.pid != last_pid_) {
    last_ = &acc_[e.pid];
    last_pid_ = e.pid;
  }
  Acc& a = *last_;
  // Threads interleave: a small direct-mapped cache of the (pid, tid)s already inserted.
  const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(e.pid)) << 32) | static_cast<uint32_t>(e.tid);
  auto& seen = seen_[(key * 0x9E3779B97F4A7C15ull) >> 58];
  if (!seen.first || seen.second != key) {
    a.tids.insert(e.tid);
    seen = {true, key};
  }
  const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
  if (!info) return;
  const bool dup2_like = info->fd == trace::FdEffect::kDuplicatesOnto;
  const bool fcntl_like = info->fd == trace::FdEffect::kByCommand;
  // Uses first: a call that both uses and creates (dup) uses before it creates. A call that
  // failed with EBADF found no such fd: that says nothing was inherited.
  for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs) && e.rvalue != -EBADF; ++i) {
    if (const int fd = used_fd(e, i, dup2_like); fd >= 0 && !a.created.count(fd)) a.inherited.insert(fd);
  }
  if (e.failed() || (e.flags & trace::kEventUnfinished)) return;
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

std::vector<ProcessSeed> SeedCollector::take(const trace::TraceHeader& header) {
  const std::string cwd = initial_cwd_or_root(header);
  std::vector<ProcessSeed> seeds;
  for (auto& [pid, a] : acc_) {
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
  *this = SeedCollector{};
  return seeds;
}

std::vector<ProcessSeed> process_seeds(const PlanTrace& trace) {
  SeedCollector seeds;
  CompactEvents::Reader read(trace.events);
  for (size_t k = 0; k < trace.events.size(); ++k) seeds.add(read(k));
  return seeds.take(trace.header);
}

// An fd's current key in a process's table: the key while the lifetime is open, ~key once it was
// closed (a later use is still "use after close" of that lifetime, not "use before open").
static int32_t live_key(int32_t stored) { return stored >= 0 ? stored : ~stored; }

FdKeyAssigner::FdKeyAssigner(const PlanTrace& trace, const EventOrder& events, std::vector<ProcessSeed>& seeds)
    : trace_(trace), events_(events) {
  for (ProcessSeed& s : seeds) {
    auto& cur = current_[s.pid];
    for (int& fd : s.inherited_fds) {
      int32_t k = out_.count++;
      cur[fd] = k;
      fd = k;
    }
    for (int32_t t : s.tids) tid_to_pid_[t] = s.pid;
  }
  creator_of_key_.assign(static_cast<size_t>(out_.count), kNoIndex);
  out_.keys.reserve(events.size());
}

int32_t FdKeyAssigner::new_key(uint32_t creator) {
  creator_of_key_.push_back(creator);
  return out_.count++;
}

void FdKeyAssigner::skip() {
  keys_.fill(-1);
  out_.keys.push_back(keys_);
}

void FdKeyAssigner::add(uint32_t r, const trace::Event& e) {
  keys_.fill(-1);
  add_keys(r, e);
  out_.keys.push_back(keys_);
}

void FdKeyAssigner::add_keys(uint32_t r, const trace::Event& e) {
  if (!cur_of_last_ || e.pid != last_pid_) {  // (unordered_map references stay valid)
    cur_of_last_ = &current_[e.pid];
    last_pid_ = e.pid;
  }
  auto& cur = *cur_of_last_;
  const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
  if (!info) return;
  const bool dup2_like = info->fd == trace::FdEffect::kDuplicatesOnto;
  const bool fcntl_like = info->fd == trace::FdEffect::kByCommand;
  const bool ok = !e.failed() && !(e.flags & trace::kEventUnfinished);
  auto early_key = [&](int fd) -> int32_t {
    if (early_.empty()) return -1;
    auto it = early_.find({e.pid, fd});
    return it == early_.end() || r > it->second.release ? -1 : it->second.key;
  };
  for (int i = 0; i < std::min<int>(e.nargs, trace::kMaxArgs); ++i) {
    const int fd = used_fd(e, i, dup2_like);
    if (fd < 0) continue;
    if (int32_t k = early_key(fd); k >= 0) {
      keys_[static_cast<size_t>(i)] = k;
      continue;
    }
    auto it = cur.find(fd);
    keys_[static_cast<size_t>(i)] = it != cur.end() ? live_key(it->second) : new_key(kNoIndex);
  }
  // An open of /dev/fd/N (bash's `<(cmd)`) opens fd N's file anew: the path argument's slot gets
  // N's key, for the replay to reopen its own fd there (special_file.h).
  if (info->path == trace::PathEffect::kOpens) {
    const int pi = info->path_arg(0);
    if (pi >= 0 && pi < e.nargs && e.arg(pi).str != trace::kNoStr) {
      if (const int fd = own_fd_named(trace_.str(e.arg(pi).str), e.pid); fd >= 0) {
        if (int32_t k = early_key(fd); k >= 0) {
          keys_[static_cast<size_t>(pi)] = k;
        } else if (auto it = cur.find(fd); it != cur.end() && it->second >= 0) {
          keys_[static_cast<size_t>(pi)] = live_key(it->second);
        }
      }
    }
  }
  // Closes first: dup2 onto an open fd ends the old lifetime before creating the new one.
  if (ok && touches_fds(e.nr)) {
    const FdEffects fx = fd_effects(e, semantics(e.nr));
    for (int i = 0; i < fx.ncloses; ++i) {
      if (auto x = early_.find({e.pid, fx.closes[i]}); x != early_.end() && x->second.release == r) {
        early_.erase(x);  // the old lifetime, already replaced in `cur` by the create
        continue;
      }
      auto it = cur.find(fx.closes[i]);
      if (it == cur.end() || it->second < 0) continue;
      if (auto d = deferred_.find({e.pid, fx.closes[i]}); d != deferred_.end()) {
        it->second = d->second;
        deferred_.erase(d);
      } else {
        it->second = ~it->second;
      }
    }
  }
  const auto n = static_cast<uint32_t>(events_.size());
  auto event_of = [&](uint32_t j) -> trace::Event { return trace_.events[events_[j]]; };
  auto create = [&](int fd, size_t slot) {
    int32_t k = new_key(r);
    keys_[slot] = k;
    if (!ok) return;
    if (auto held = cur.find(fd); held != cur.end() && held->second >= 0) {
      const HeldFdFate fate = held_fd_fate(r, n, fd, creator_of_key_[static_cast<size_t>(held->second)], event_of);
      if (fate.kind == HeldFdFate::kDeferred) deferred_[{e.pid, fd}] = held->second;
      if (fate.kind == HeldFdFate::kReleasedEarly) early_[{e.pid, fd}] = Early{fate.release, held->second};
    }
    cur[fd] = k;
  };
  if (info->ret == trace::ReturnKind::kFd || (fcntl_like && e.nargs > 1 && trace::is_dup_fd_command(e.arg(1).value))) {
    create(static_cast<int>(e.rvalue), FdKeys::kRet);
  }
  if (dup2_like && e.nargs > 1) {
    if (e.arg(0).value == e.arg(1).value) {
      keys_[1] = keys_[0];
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
    auto t = tid_to_pid_.find(static_cast<int32_t>(e.rvalue));
    int32_t child = t == tid_to_pid_.end() ? static_cast<int32_t>(e.rvalue) : t->second;
    if (child != e.pid) {
      auto& ch = current_[child];
      std::map<int, int32_t> copy = cur;
      for (auto& [fd, k] : ch) copy.try_emplace(fd, k);  // the child's own unknown-origin fds
      ch = std::move(copy);
    }
  }
}

FdKeys compute_fd_keys(const PlanTrace& trace, std::span<const uint32_t> events, std::vector<ProcessSeed>* seeds) {
  *seeds = process_seeds(trace);
  const EventOrder order(std::vector<uint32_t>(events.begin(), events.end()));
  FdKeyAssigner keys(trace, order, *seeds);
  CompactEvents::Reader read(trace.events);  // (held_fd_fate reads its look-ahead through copies)
  for (uint32_t r = 0; r < order.size(); ++r) keys.add(r, read(order[r]));
  return keys.take();
}

bool has_fd_keys(const Plan& plan) {
  return plan.fd_keys.keys.size() == plan.requests.size() && (plan.requests.empty() || !plan.processes.empty());
}

}  // namespace rastro::replay
