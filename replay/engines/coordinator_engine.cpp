// The `coordinator` engine (thesis Fig. 6.1-6.2), kept as the thesis built it so its cost can be
// measured (+150 % bias on sequential reads in the thesis): a coordinator thread owns the state
// of every request (unavailable -> available -> replayed). It counts each request's outstanding
// dependencies, pushes the ones that reach zero to a lock-free "available" queue, and consumes
// the workers' completions from a lock-free "replayed" queue. Workers (one per traced thread, so
// an available request never waits for a free worker) pop, apply the timing policy, issue, and
// push the request back. Idle threads sleep on a doorbell (doorbell.h) rung by each push.
// Workers run the requests of one traced process each (one worker per traced thread of it, from
// its own "available" queue), so that each process's workers share a kernel fd table of their
// own, as the traced process had (replay_threads.h).
// With EngineOptions::coordinator_chain, a request whose only dependency is its thread's previous
// one skips the coordinator: the worker that ran the previous one runs it next.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <boost/lockfree/queue.hpp>

#include "common/clock.h"
#include "replay/engines/doorbell.h"
#include "replay/engines/engine.h"
#include "replay/engines/engine_common.h"
#include "replay/engines/issue_schedule.h"
#include "replay/engines/replay_threads.h"
#include "replay/runtime/completion_flag.h"
#include "replay/runtime/process_state.h"
#include "replay/runtime/request_runner.h"

// Boost.Lockfree's freelist reads a node's tagged `next` pointer non-atomically while another
// thread may recycle the node; the value read then fails the CAS and is discarded, which is the
// algorithm's design (a known ThreadSanitizer false positive of boost::lockfree::queue). Only that
// library frame is suppressed; races in rastro's own code still halt the TSan run.
#if defined(__SANITIZE_THREAD__)
extern "C" const char* __tsan_default_suppressions() {
  return "race:boost::lockfree::detail::tagged_ptr\n"
         "race:boost::lockfree::detail::freelist_stack\n";
}
#endif

namespace rastro::replay {
namespace {

// A traced process's available requests and the doorbell its idle workers sleep on.
struct ProcessQueue {
  explicit ProcessQueue(size_t capacity) : available(std::max<size_t>(capacity, 16)) {}
  boost::lockfree::queue<uint32_t> available;
  detail::Doorbell bell;
  size_t workers = 0;  // the traced process's threads
};

}  // namespace

EngineResult run_coordinator(const Plan& plan, const SandboxResolver& sandbox, const EngineOptions& options) {
  EngineResult res;
  const size_t n = plan.requests.size();
  res.log = RecordLog(plan.requests);
  detail::EngineSetup setup(plan, sandbox);
  UringReplay plain_uring(plan, UringMode::kPlain);
  UringReplay& uring = options.uring ? *options.uring : plain_uring;
  check_processes("coordinator", options, uring);

  // The coordinator hands a thread's requests to any worker of its process, so it keeps each one's
  // predecessor.
  const std::vector<uint32_t> prev = detail::thread_predecessors(plan);
  // Reverse edges (dependants) in CSR form, and each request's count of outstanding dependencies.
  std::vector<uint32_t> remaining(n, 0);
  std::vector<uint32_t> out_begin(n + 1, 0);
  auto for_each_dep = [&](uint32_t r, auto&& f) {
    if (prev[r] != detail::kNoRequest) f(prev[r]);
    if (const int64_t s = setup.imp.spawn(r); s >= 0) f(static_cast<uint32_t>(s));
    for (const Dep& dep : deps_of(plan, r)) {
      const uint32_t d = dep.request;
      if (d != r) f(d);
    }
  };
  for (uint32_t r = 0; r < n; ++r) {
    for_each_dep(r, [&](uint32_t d) {
      ++remaining[r];
      ++out_begin[d + 1];
    });
  }
  for (size_t i = 0; i < n; ++i) out_begin[i + 1] += out_begin[i];
  // --coordinator-chain: chain[r] = the next request of r's thread when r is its only dependency
  // (kNone otherwise). The worker that ran r runs it right away; the coordinator leaves it out.
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> chain(n, kNone);
  if (options.coordinator_chain) {
    for (uint32_t s = 0; s < n; ++s) {
      const uint32_t p = prev[s];
      bool only_prev = p != detail::kNoRequest;
      for_each_dep(s, [&](uint32_t d) { only_prev = only_prev && d == p; });
      if (only_prev) chain[p] = s;
    }
  }
  std::vector<uint32_t> out(out_begin[n]);
  {
    std::vector<uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
    for (uint32_t r = 0; r < n; ++r) for_each_dep(r, [&](uint32_t d) { out[fill[d]++] = r; });
  }

  constexpr uint32_t kStop = std::numeric_limits<uint32_t>::max() - 1;
  // One available queue per traced process, sized to its requests; plan thread t's worker pops
  // from queue_of_thread[t].
  std::vector<std::unique_ptr<ProcessQueue>> queues;
  std::vector<uint32_t> queue_of_thread(plan.threads.size());
  {
    std::unordered_map<int32_t, uint32_t> of_pid;
    std::vector<size_t> capacity;
    for (size_t t = 0; t < plan.threads.size(); ++t) {
      auto [it, fresh] = of_pid.try_emplace(plan.threads[t].pid, static_cast<uint32_t>(capacity.size()));
      if (fresh) capacity.push_back(0);
      queue_of_thread[t] = it->second;
      capacity[it->second] += plan.threads[t].requests.size();
    }
    for (size_t c : capacity) queues.push_back(std::make_unique<ProcessQueue>(c));
    for (size_t t = 0; t < plan.threads.size(); ++t) ++queues[queue_of_thread[t]]->workers;
  }
  boost::lockfree::queue<uint32_t> replayed(std::max<size_t>(n, 16));
  detail::Doorbell replayed_bell;  // the idle coordinator sleeps here

  detail::IssueSchedule schedule(plan, setup.imp, options.timing);
  CompletionFlag go;
  std::mutex merge_mu;

  if (options.record_os_threads) res.os_threads.assign(n, 0);
  detail::ReplayThreads* threads = nullptr;
  auto worker = [&](size_t t) {
    ProcessQueue& mine = *queues[queue_of_thread[t]];
    const auto tid = static_cast<int32_t>(::gettid());
    std::string rt_why;
    bool rt_failed = options.realtime && !make_realtime(&rt_why);
    ThreadScratch scratch;
    go.wait();
    uint32_t next = kNone;
    for (;;) {
      uint32_t r = next;
      if (r == kNone) mine.bell.pop_or_sleep([&] { return mine.available.pop(r); });
      if (r == kStop) break;
      const Request& q = plan.requests[r];
      const trace::Event& e = plan.trace.events[q.event];
      uring.await(r);
      if (options.hooks) options.hooks->before_issue(r);
      const int64_t planned = schedule.await_issue(r, prev[r], monotonic_ns());
      RequestRecord rec;
      if (options.record_os_threads) res.os_threads[r] = tid;  // r's own slot: one worker runs r
      const bool later = uring.issue(r, setup.exec, setup.keys.keys[r].data(), setup.procs.find(e.pid), scratch, &rec);
      threads->spawned(r);  // before r is done: its child process's requests go to workers that exist
      rec.planned_ns = planned;
      schedule.finish(r, rec);
      // r's thread's stream: its previous request was logged before it completed (the
      // coordinator made r available only after), whichever worker ran it.
      res.log.append(q.thread, rec, later);
      if (options.hooks) options.hooks->after_complete(r);
      while (!replayed.push(r)) CompletionFlag::cpu_relax();
      replayed_bell.ring();
      next = chain[r];  // kNone unless --coordinator-chain gave r's successor to this worker
    }
    uring.drain_all();  // before the thread exits: it may have submitted to any ring
    std::lock_guard lock(merge_mu);
    res.stats.merge(scratch.stats);
    if (rt_failed && res.warnings.empty()) res.warnings.push_back(rt_why);
  };

  detail::ReplayThreads workers(plan, setup.imp, worker, setup.own_table(), options.thread_fd_import);
  threads = &workers;
  workers.start();

  // The coordinator runs on the calling thread.
  uint64_t waits = 0;
  schedule.start(monotonic_ns() + detail::kStartMarginNs);
  go.complete();
  uint64_t handoffs = 0;
  auto make_available = [&](uint32_t r) {
    ++handoffs;
    ProcessQueue& q = *queues[queue_of_thread[plan.requests[r].thread]];
    while (!q.available.push(r)) CompletionFlag::cpu_relax();
    q.bell.ring();
  };
  for (uint32_t r = 0; r < n; ++r) {
    if (remaining[r] == 0) {
      make_available(r);
    } else if (prev[r] == detail::kNoRequest) {
      ++waits;  // a thread's first request waiting for another thread's request
    }
  }
  size_t completed = 0;
  while (completed < n) {
    uint32_t r = 0;
    replayed_bell.pop_or_sleep([&] { return replayed.pop(r); });
    ++completed;
    for (uint32_t i = out_begin[r]; i < out_begin[r + 1]; ++i) {
      uint32_t s = out[i];
      if (s == chain[r]) continue;  // run by r's worker already
      if (--remaining[s] == 0) {
        make_available(s);
      } else if (prev[s] == r) {
        ++waits;  // its thread predecessor is done but another dependency is not
      }
    }
  }
  for (auto& q : queues) {
    for (size_t i = 0; i < q->workers; ++i) {
      while (!q->available.push(kStop)) CompletionFlag::cpu_relax();
    }
    q->bell.ring(/*everyone=*/true);
  }
  workers.join();
  uring.finish(res.log, res.stats);
  res.dependency_waits = waits;
  res.handoffs = handoffs;
  res.start_ns = schedule.start_ns();
  res.wall_ns = detail::wall_time(res.log);
  res.replay_processes = 1;  // its threads are all in this one
  return res;
}

}  // namespace rastro::replay
