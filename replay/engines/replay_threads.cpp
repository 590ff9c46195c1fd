#include "replay/engines/replay_threads.h"

#include <sched.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "replay/runtime/process_state.h"

namespace rastro::replay::detail {

ReplayThreads::ReplayThreads(const Plan& plan, const ImplicitDeps& imp, std::function<void(size_t)> body,
                             OwnTable own_table, bool thread_fd_import)
    : body_(std::move(body)), own_table_(std::move(own_table)) {
  const bool import = kFdTablePerProcess && thread_fd_import && thread_fd_import_available();
  // The plan threads of each traced process, in plan order.
  std::vector<int32_t> pids;
  std::unordered_map<int32_t, std::vector<size_t>> of_pid;
  for (size_t t = 0; t < plan.threads.size(); ++t) {
    auto [it, fresh] = of_pid.try_emplace(plan.threads[t].pid);
    if (fresh) pids.push_back(plan.threads[t].pid);
    it->second.push_back(t);
  }
  for (int32_t pid : pids) {
    const std::vector<size_t>& ts = of_pid[pid];
    // Its first thread: the one another process's clone created (the child's thread waits for
    // that clone, so waiting there cannot deadlock); a root's: its first in plan order.
    Process& proc = processes_.emplace_back();
    proc.first = ts[0];
    int64_t made_by = -1;
    for (size_t t : ts) {
      const int64_t s = imp.spawn_of_thread(t);
      if (s >= 0 && plan.threads[plan.requests[static_cast<size_t>(s)].thread].pid != pid) {
        proc.first = t;
        made_by = s;
        break;
      }
    }
    for (size_t t : ts)
      if (t != proc.first) proc.others.push_back(t);
    if (made_by < 0) continue;
    const uint32_t r = static_cast<uint32_t>(made_by);
    proc.forked = true;
    proc.own_table = !clone_shares_fd_table(plan.trace.events[plan.requests[r].event]);
    proc.early = proc.own_table && import;
    children_[r].push_back(&proc);
  }
}

ReplayThreads::~ReplayThreads() { join_all(); }

void ReplayThreads::start() {
  std::lock_guard lock(mu_);
  for (Process& p : processes_)
    if (p.early) threads_.emplace_back([this, &p] { run(p); });
}

void ReplayThreads::start_children(uint32_t r) {
  auto it = children_.find(r);
  if (it == children_.end()) return;
  for (Process* p : it->second) {
    if (p->early) {
      p->parent.store(static_cast<int32_t>(gettid()), std::memory_order_release);
      p->parent.notify_one();
    } else {
      std::lock_guard lock(mu_);
      threads_.emplace_back([this, p] { run(*p); });  // on this thread's table (pthread: CLONE_FILES)
    }
    p->ready.wait(false, std::memory_order_acquire);
  }
}

void ReplayThreads::run(Process& p) {
  if (p.own_table && kFdTablePerProcess) {
    if (::unshare(CLONE_FILES) != 0) fail(errno);
    int32_t parent = 0;
    if (p.early && p.forked) {
      p.parent.wait(0, std::memory_order_acquire);  // until the fork is replayed
      parent = p.parent.load(std::memory_order_acquire);
    }
    if (const int err = own_table_(p.first, parent); err < 0) fail(-err);
  }
  p.ready.store(true, std::memory_order_release);
  p.ready.notify_one();
  {
    std::lock_guard lock(mu_);
    for (size_t t : p.others) threads_.emplace_back(body_, t);
  }
  body_(p.first);
}

void ReplayThreads::fail(int err) {
  int none = 0;
  errno_.compare_exchange_strong(none, err);
}

// A thread is only started by a running one, so once the last one in the list is joined, none is
// left to start another.
void ReplayThreads::join_all() {
  for (size_t i = 0;; ++i) {
    std::thread th;
    {
      std::lock_guard lock(mu_);
      if (i == threads_.size()) break;
      th = std::move(threads_[i]);
    }
    if (th.joinable()) th.join();
  }
}

void ReplayThreads::join() {
  join_all();
  if (int e = errno_.load(); e != 0) {
    throw Error(std::string("replay: a traced process's replay threads did not get an fd table of their own, or ") +
                "their fork's fds (unshare(CLONE_FILES), pidfd_getfd): " + std::strerror(e));
  }
}

}  // namespace rastro::replay::detail
