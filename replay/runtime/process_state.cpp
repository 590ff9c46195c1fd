#include "replay/runtime/process_state.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <set>

#include "replay/passes/fd_reuse.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::replay {

std::string ProcessState::cwd() const {
  std::lock_guard lock(mu_);
  return cwd_;
}

void ProcessState::set_cwd(std::string cwd) {
  std::lock_guard lock(mu_);
  cwd_ = std::move(cwd);
}

void ProcessState::add_mapping(uint64_t traced_addr, Mapping m) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = maps_.try_emplace(traced_addr, m);
  if (!inserted) {
    munmap(reinterpret_cast<void*>(it->second.replay_addr), it->second.length);
    it->second = m;
  }
}

bool ProcessState::take_mapping(uint64_t traced_addr, Mapping* out) {
  std::lock_guard lock(mu_);
  auto it = maps_.find(traced_addr);
  if (it == maps_.end()) return false;
  *out = it->second;
  maps_.erase(it);
  return true;
}

bool ProcessState::find_mapping(uint64_t traced_addr, Mapping* out) const {
  std::lock_guard lock(mu_);
  auto it = maps_.find(traced_addr);
  if (it == maps_.end()) return false;
  *out = it->second;
  return true;
}

ProcessState::~ProcessState() {
  for (auto& [addr, m] : maps_) munmap(reinterpret_cast<void*>(m.replay_addr), m.length);
}

namespace {

std::string initial_cwd(const trace::TraceHeader& h) {
  for (const auto* j : {&h.settings, &h.environment}) {
    if (j->is_object() && j->contains("cwd") && (*j)["cwd"].is_string()) {
      std::string c = (*j)["cwd"].get<std::string>();
      if (!c.empty() && c.front() == '/') return c;
    }
  }
  return "/";
}

bool is_fd_creating_fcntl(int64_t cmd) { return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC; }

}  // namespace

std::vector<ProcessSeed> process_seeds(const trace::Trace& trace) {
  struct Acc {
    std::set<int> created, inherited;
    std::set<int32_t> tids;
  };
  std::map<int32_t, Acc> acc;
  for (const trace::Event& e : trace.events) {
    Acc& a = acc[e.pid];
    a.tids.insert(e.tid);
    const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
    if (!info) continue;
    const bool dup2_like = info->fd == trace::FdEffect::kDuplicatesOnto;
    const bool fcntl_like = info->fd == trace::FdEffect::kByCommand;
    // Uses first: a call that both uses and creates (dup) uses before it creates.
    for (int i = 0; i < e.nargs; ++i) {
      const trace::Arg& arg = e.arg(i);
      if (dup2_like && i == 1) continue;  // the target of dup2 is created, not used
      bool use = arg.type == trace::ArgType::kFd ||
                 (arg.type == trace::ArgType::kDirFd && arg.value != AT_FDCWD);
      if (use && arg.value >= 0 && arg.value <= INT32_MAX) {
        int fd = static_cast<int>(arg.value);
        if (!a.created.count(fd)) a.inherited.insert(fd);
      }
    }
    if (e.failed() || (e.flags & trace::kEventUnfinished)) continue;
    if (info->ret == trace::ReturnKind::kFd && e.rvalue >= 0) a.created.insert(static_cast<int>(e.rvalue));
    if (dup2_like && e.nargs > 1) a.created.insert(static_cast<int>(e.arg(1).value));
    if (fcntl_like && e.nargs > 1 && is_fd_creating_fcntl(e.arg(1).value) && e.rvalue >= 0) {
      a.created.insert(static_cast<int>(e.rvalue));
    }
    for (int i = 0; i < e.nargs; ++i) {
      if (e.arg(i).type == trace::ArgType::kFdPair) {
        auto v = static_cast<uint64_t>(e.arg(i).value);
        a.created.insert(static_cast<int>(v & 0xffffffffu));
        a.created.insert(static_cast<int>(v >> 32));
      }
    }
  }
  std::string cwd = initial_cwd(trace.header);
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

// An inherited fd of unknown origin becomes its own open of /dev/null (its own file status
// flags, as separately redirected stdout/stderr have), read-only for stdin, write-only for
// stdout/stderr, read-write otherwise; so F_GETFL/F_SETFL replay as traced.
static int open_inherited_stand_in(int traced_fd) {
  const int mode = traced_fd == 0 ? O_RDONLY : traced_fd <= 2 ? O_WRONLY : O_RDWR;
  return ::open("/dev/null", mode | O_CLOEXEC);
}

ProcessTable::ProcessTable(std::span<const ProcessSeed> seeds, int fd_slots) {
  for (const ProcessSeed& s : seeds) {
    auto p = std::make_unique<ProcessState>();
    p->pid = s.pid;
    p->fds = std::make_shared<FdTable>(fd_slots);
    p->inherited_fds = s.inherited_fds;
    p->set_cwd(s.cwd);
    for (size_t i = 0; i < s.inherited_fds.size(); ++i) {
      const int fd = s.inherited_fds[i];
      int d = open_inherited_stand_in(i < s.inherited_traced_fds.size() ? s.inherited_traced_fds[i] : fd);
      if (d >= 0) {
        p->fds->set_open(fd, d, false, "/dev/null");
      } else {
        p->fds->set_state(fd, FdState::kFailed);
      }
    }
    for (int32_t tid : s.tids) tid_to_pid_[tid] = s.pid;
    procs_[s.pid] = std::move(p);
  }
}

ProcessState* ProcessTable::find(int32_t pid) const {
  auto it = procs_.find(pid);
  return it == procs_.end() ? nullptr : it->second.get();
}

void ProcessTable::spawn(int32_t parent_pid, int32_t child_tid, uint64_t clone_flags, bool flags_known) {
  auto t = tid_to_pid_.find(child_tid);
  int32_t child_pid = t == tid_to_pid_.end() ? child_tid : t->second;
  if (child_pid == parent_pid) return;  // a new thread: shares everything already
  if (flags_known && (clone_flags & CLONE_THREAD)) return;
  ProcessState* parent = find(parent_pid);
  ProcessState* child = find(child_pid);
  if (!parent || !child) return;  // the child did nothing we replay
  if (flags_known && (clone_flags & CLONE_FILES)) {
    child->fds = parent->fds;
  } else {
    std::shared_ptr<FdTable> copy = parent->fds->copy();
    // fds the child uses that the parent never had (unknown origin) stay /dev/null duplicates.
    for (int fd : child->inherited_fds) {
      FdLookup mine = child->fds->get(fd);
      if (copy->get(fd).state == FdState::kNone && mine.state == FdState::kOpen) {
        int d = fcntl(mine.fd, F_DUPFD_CLOEXEC, 0);
        if (d >= 0) copy->set_open(fd, d, false, "/dev/null");
      }
    }
    child->fds = std::move(copy);
  }
  child->set_cwd(parent->cwd());
}

// An fd's current key in a process's table: the key while the lifetime is open, ~key once it was
// closed (a later use is still "use after close" of that lifetime, not "use before open").
static int32_t live_key(int32_t stored) { return stored >= 0 ? stored : ~stored; }

FdKeys plan_fd_keys(const Plan& plan, std::vector<ProcessSeed>* seeds) {
  FdKeys out;
  *seeds = process_seeds(plan.trace);
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
  const auto n = static_cast<uint32_t>(plan.requests.size());
  auto event_of = [&](uint32_t j) -> const trace::Event& { return plan.trace.events[plan.requests[j].event]; };
  out.keys.assign(plan.requests.size(), {-1, -1, -1, -1, -1, -1, -1, -1});
  for (uint32_t r = 0; r < n; ++r) {
    const trace::Event& e = event_of(r);
    auto& keys = out.keys[r];
    auto& cur = current[e.pid];
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
    for (int i = 0; i < e.nargs; ++i) {
      const trace::Arg& a = e.arg(i);
      bool use = a.type == trace::ArgType::kFd || (a.type == trace::ArgType::kDirFd && a.value != AT_FDCWD);
      if (!use || (dup2_like && i == 1) || a.value < 0 || a.value > INT32_MAX) continue;
      const int fd = static_cast<int>(a.value);
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
    if (info->ret == trace::ReturnKind::kFd || (fcntl_like && e.nargs > 1 && is_fd_creating_fcntl(e.arg(1).value))) {
      create(static_cast<int>(e.rvalue), FdKeys::kRet);
    }
    if (dup2_like && e.nargs > 1) {
      if (e.arg(0).value == e.arg(1).value) {
        keys[1] = keys[0];
      } else {
        create(static_cast<int>(e.arg(1).value), 1);
      }
    }
    for (int i = 0; i < e.nargs; ++i) {
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

std::vector<int64_t> spawn_requests(const Plan& plan) {
  std::unordered_map<int32_t, size_t> thread_of_tid;
  for (size_t t = 0; t < plan.threads.size(); ++t) thread_of_tid[plan.threads[t].tid] = t;
  std::vector<int64_t> out(plan.threads.size(), -1);
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    const trace::Event& e = plan.trace.events[plan.requests[r].event];
    const trace::SyscallInfo* info = trace::syscall_by_nr(e.nr);
    if (!info || info->ret != trace::ReturnKind::kPid || e.rvalue <= 0) continue;
    auto it = thread_of_tid.find(static_cast<int32_t>(e.rvalue));
    if (it == thread_of_tid.end() || it->second == plan.requests[r].thread) continue;
    if (out[it->second] < 0) out[it->second] = static_cast<int64_t>(r);
  }
  return out;
}

}  // namespace rastro::replay
