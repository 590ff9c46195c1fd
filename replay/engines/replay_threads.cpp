#include "replay/engines/replay_threads.h"

#include <sched.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "replay/runtime/process_state.h"

namespace rastro::replay::detail {

ReplayThreads::ReplayThreads(const Plan& plan, const ImplicitDeps& imp, std::function<void(size_t)> body,
                             std::function<void(size_t)> own_table)
    : body_(std::move(body)), own_table_(std::move(own_table)) {
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
    // that clone, so starting it there cannot deadlock); a root's: its first in plan order.
    size_t first = ts[0];
    int64_t made_by = -1;
    for (size_t t : ts) {
      const int64_t s = imp.spawn_of_thread(t);
      if (s >= 0 && plan.threads[plan.requests[static_cast<size_t>(s)].thread].pid != pid) {
        first = t;
        made_by = s;
        break;
      }
    }
    Process proc;
    proc.first = first;
    for (size_t t : ts)
      if (t != first) proc.others.push_back(t);
    if (made_by < 0) {
      roots_.push_back(std::move(proc));
      continue;
    }
    const uint32_t r = static_cast<uint32_t>(made_by);
    proc.own_table = !clone_shares_fd_table(plan.trace.events[plan.requests[r].event]);
    children_[r].push_back(std::move(proc));
  }
}

ReplayThreads::~ReplayThreads() { join_all(); }

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

void ReplayThreads::start() {
  std::lock_guard lock(mu_);
  for (const Process& p : roots_) threads_.emplace_back([this, &p] { launch(p, nullptr); });
}

void ReplayThreads::start_children(uint32_t r) {
  auto it = children_.find(r);
  if (it == children_.end()) return;
  for (const Process& p : it->second) {
    std::atomic<bool> ready{false};
    {
      std::lock_guard lock(mu_);
      threads_.emplace_back([this, &p, &ready] { launch(p, &ready); });
    }
    ready.wait(false);
  }
}

// Runs on the process's first replay thread, which the starting thread created on its own table.
void ReplayThreads::launch(const Process& proc, std::atomic<bool>* ready) {
  if (proc.own_table) {
    if (::unshare(CLONE_FILES) != 0) {
      int none = 0;
      unshare_errno_.compare_exchange_strong(none, errno);
    }
    own_table_(proc.first);
  }
  if (ready) {
    ready->store(true, std::memory_order_release);
    ready->notify_one();
  }
  {
    std::lock_guard lock(mu_);
    for (size_t t : proc.others) threads_.emplace_back(body_, t);
  }
  body_(proc.first);
}

void ReplayThreads::join() {
  join_all();
  if (int e = unshare_errno_.load(); e != 0) {
    throw Error(std::string("replay: unshare(CLONE_FILES) failed: ") + std::strerror(e) +
                " (a traced process's replay threads did not get an fd table of their own)");
  }
}

}  // namespace rastro::replay::detail
