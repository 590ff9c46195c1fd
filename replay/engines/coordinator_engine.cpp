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
// With EngineOptions::coordinator_chain, a request whose other dependencies are all done when its
// thread's previous one completes skips the coordinator: the worker that ran the previous one runs
// it next (the count of outstanding dependencies is then an atomic both decrement); and a request
// no other thread's request waits for is not reported to the coordinator.
// With EngineOptions::processes each traced process's workers are threads of a replay process of
// its own (replay_threads.h); the queues, completion flags and schedule are shared mappings
// (request_queue.h), and the coordinator stays a thread of the engine's process.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <unordered_map>

#include "common/clock.h"
#include "replay/engines/engine.h"
#include "replay/engines/engine_common.h"
#include "replay/engines/issue_schedule.h"
#include "replay/engines/replay_threads.h"
#include "replay/engines/request_queue.h"
#include "replay/engines/thread_outcomes.h"
#include "replay/runtime/completion_flag.h"
#include "replay/runtime/process_state.h"
#include "replay/runtime/request_runner.h"

namespace rastro::replay {

EngineResult run_coordinator(const Plan& plan, const SandboxResolver& sandbox, const EngineOptions& options) {
  EngineResult res;
  const size_t n = plan.requests.size();
  res.log = RecordLog(plan.requests);
  detail::EngineSetup setup(plan, sandbox);
  UringReplay plain_uring(plan, UringMode::kPlain);
  UringReplay& uring = options.uring ? *options.uring : plain_uring;
  check_processes(options, uring);

  // The coordinator hands a thread's requests to any worker of its process, so it keeps each one's
  // predecessor.
  const std::vector<uint32_t> prev = detail::thread_predecessors(plan);
  const bool processes = options.processes;  // shared mappings for what crosses processes
  const bool chained = options.coordinator_chain;
  // Reverse edges (dependants) in CSR form, and each request's count of outstanding dependencies
  // (shared: with --coordinator-chain a worker counts down its thread's next request too).
  SharedArray<std::atomic<uint32_t>> remaining(n, processes);
  std::vector<uint32_t> out_begin(n + 1, 0);
  auto for_each_dep = [&](uint32_t r, auto&& f) {
    if (prev[r] != detail::kNoRequest) f(prev[r]);
    if (const int64_t s = setup.imp.spawn(r); s >= 0) f(static_cast<uint32_t>(s));
    for (const Dep& dep : deps_of(plan, r)) {
      const uint32_t d = dep.request;
      if (d != r) f(d);
    }
  };
  // --coordinator-chain: the edges from a request's thread predecessor are the worker's to count
  // down (`from_prev[s]` of them: the predecessor may also be a file or path dependency); the
  // coordinator counts down the others.
  std::vector<uint8_t> from_prev(chained ? n : 0, 0);
  for (uint32_t r = 0; r < n; ++r) {
    for_each_dep(r, [&](uint32_t d) {
      remaining[r].fetch_add(1, std::memory_order_relaxed);
      ++out_begin[d + 1];
      if (chained && d == prev[r]) ++from_prev[r];
    });
  }
  for (size_t i = 0; i < n; ++i) out_begin[i + 1] += out_begin[i];
  std::vector<uint32_t> out(out_begin[n]);
  {
    std::vector<uint32_t> fill(out_begin.begin(), out_begin.end() - 1);
    for (uint32_t r = 0; r < n; ++r) for_each_dep(r, [&](uint32_t d) { out[fill[d]++] = r; });
  }
  // --coordinator-chain: next_of[r] = the next request of r's thread; the worker that ran r runs it
  // right away when that leaves it nothing outstanding (the same count the coordinator keeps, so
  // exactly one of them makes it go). A request no other thread's request waits for makes
  // nothing available through the coordinator, so its worker does not report it: the coordinator
  // wakes only for hand-offs.
  constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  std::vector<uint32_t> next_of(chained ? n : 0, kNone);
  std::vector<uint8_t> reported(n, 1);
  size_t to_report = n;
  if (chained) {
    for (uint32_t s = 0; s < n; ++s)
      if (prev[s] != detail::kNoRequest) next_of[prev[s]] = s;
    for (uint32_t r = 0; r < n; ++r) {
      reported[r] = std::any_of(out.begin() + out_begin[r], out.begin() + out_begin[r + 1],
                                [&](uint32_t s) { return prev[s] != r; });
      to_report -= !reported[r];
    }
  }

  // The requests with nothing outstanding, found before any worker starts: once workers run, a
  // chained count reaches zero at the worker that runs the request, and a scan would hand it over again.
  std::vector<uint32_t> initially_available;
  uint64_t waits = 0;
  for (uint32_t r = 0; r < n; ++r) {
    if (remaining[r].load(std::memory_order_relaxed) == 0) {
      initially_available.push_back(r);
    } else if (prev[r] == detail::kNoRequest) {
      ++waits;  // a thread's first request waiting for another thread's request
    }
  }

  constexpr uint32_t kStop = std::numeric_limits<uint32_t>::max() - 1;
  // One available queue per traced process, taking its requests and a stop token per worker; plan
  // thread t's worker pops from queues[queue_of_thread[t]].
  std::vector<detail::RequestQueue> queues;
  std::vector<size_t> workers_of_queue;
  std::vector<uint32_t> queue_of_thread(plan.threads.size());
  {
    std::unordered_map<int32_t, uint32_t> of_pid;
    std::vector<size_t> capacity;
    for (size_t t = 0; t < plan.threads.size(); ++t) {
      auto [it, fresh] = of_pid.try_emplace(plan.threads[t].pid, static_cast<uint32_t>(capacity.size()));
      if (fresh) {
        capacity.push_back(0);
        workers_of_queue.push_back(0);
      }
      queue_of_thread[t] = it->second;
      capacity[it->second] += plan.threads[t].requests.size() + 1;
      ++workers_of_queue[it->second];
    }
    queues.reserve(capacity.size());
    for (size_t c : capacity) queues.emplace_back(c, processes);
  }
  detail::RequestQueue replayed(n, processes);  // the idle coordinator sleeps on its doorbell

  detail::IssueSchedule schedule(plan, setup.imp, options.timing, processes);
  CompletionFlags go(1, processes);  // the start line
  detail::ThreadOutcomes outcomes(plan.threads.size());
  // Each request's OS thread: any worker of its process may run it.
  SharedArray<int32_t> os_threads(options.record_os_threads ? n : 0, processes);

  detail::ReplayThreads* threads = nullptr;
  auto worker = [&](size_t t) {
    detail::RequestQueue& mine = queues[queue_of_thread[t]];
    detail::ThreadOutcome& outcome = outcomes[t];  // its own slot, read after the join
    outcome.os_tid = static_cast<int32_t>(::gettid());
    outcome.os_pid = static_cast<int32_t>(::getpid());
    if (options.realtime) make_realtime(&outcome.warning);  // the warning says why not
    ThreadScratch scratch;
    go.wait(0);
    uint32_t next = kNone;
    int64_t prev_end = -1;  // of the request this worker ran before a chained one
    for (;;) {
      const bool chained_here = next != kNone;
      const uint32_t r = chained_here ? next : mine.pop();
      if (r == kStop) break;
      const Request& q = plan.requests[r];
      const trace::Event& e = plan.trace.events[q.event];
      uring.await(r);
      if (options.hooks) options.hooks->before_issue(r);
      const int64_t planned = schedule.await_issue(r, prev[r], ready_ns(!chained_here, prev_end));
      RequestRecord rec;
      if (options.record_os_threads) os_threads[r] = outcome.os_tid;  // r's own slot: one worker runs r
      const bool later = uring.issue(r, setup.exec, setup.keys.keys[r].data(), setup.procs.find(e.pid), scratch, &rec);
      threads->spawned(r);  // before r is done: its child process's requests go to workers that exist
      rec.planned_ns = planned;
      prev_end = rec.end_ns;
      schedule.finish(r, rec);
      // r's thread's stream: its previous request was logged before it completed (the
      // coordinator made r available only after), whichever worker of the process ran it.
      res.log.append(q.thread, rec, later);
      if (options.hooks) options.hooks->after_complete(r);
      if (reported[r]) replayed.push(r);
      next = kNone;
      if (chained && next_of[r] != kNone) {
        const uint32_t s = next_of[r];
        if (remaining[s].fetch_sub(from_prev[s], std::memory_order_acq_rel) == from_prev[s]) {
          next = s;  // nothing else outstanding: this worker runs it
        } else {
          ++outcome.dependency_waits;  // the coordinator hands it over when the rest is done
        }
      }
    }
    uring.drain_all();  // before the thread exits: it may have submitted to any ring
    outcome.stats = std::move(scratch.stats);
  };

  detail::ReplayThreads workers(plan, setup.imp, worker, setup.own_table(), options.thread_fd_import);
  threads = &workers;
  if (processes) workers.use_processes(outcomes.exchange(res.log));
  workers.start();

  // The coordinator: on the calling thread, or beside it when the workers are replay processes
  // (the calling thread then watches them in join(): one that dies ends the replay).
  uint64_t handoffs = 0;
  std::atomic<bool> abandoned{false};  // a replay process failed: nothing more will complete
  auto coordinate = [&] {
    auto make_available = [&](uint32_t r) {
      ++handoffs;
      queues[queue_of_thread[plan.requests[r].thread]].push(r);
    };
    for (uint32_t r : initially_available) make_available(r);
    for (size_t completed = 0; completed < to_report; ++completed) {
      uint32_t r = 0;
      if (!replayed.pop_unless(r, [&] { return abandoned.load(std::memory_order_relaxed); })) return;
      for (uint32_t i = out_begin[r]; i < out_begin[r + 1]; ++i) {
        const uint32_t s = out[i];
        if (chained && prev[s] == r) continue;  // counted down by r's worker
        if (remaining[s].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          make_available(s);
        } else if (prev[s] == r) {
          ++waits;  // its thread predecessor is done but another dependency is not
        }
      }
    }
    for (size_t q = 0; q < queues.size(); ++q) {
      for (size_t i = 0; i < workers_of_queue[q]; ++i) queues[q].push(kStop);
      queues[q].ring_everyone();
    }
  };
  schedule.start(monotonic_ns() + detail::kStartMarginNs);
  go.complete(0);
  if (!processes) {
    coordinate();
    workers.join();
  } else {
    std::thread coordinator(coordinate);
    try {
      workers.join();
    } catch (...) {
      abandoned.store(true, std::memory_order_relaxed);
      replayed.ring_everyone();
      coordinator.join();
      throw;
    }
    coordinator.join();
  }
  uring.finish(res.log, res.stats);
  outcomes.merge_into(res, plan, /*record_os_threads=*/false);
  if (options.record_os_threads)
    for (size_t r = 0; r < n; ++r) res.os_threads.push_back(os_threads[r]);
  res.dependency_waits += waits;  // the coordinator's, after the workers' (merge_into)
  res.handoffs = handoffs;
  res.completions_reported = to_report;
  res.start_ns = schedule.start_ns();
  res.wall_ns = detail::wall_time(res.log);
  return res;
}

}  // namespace rastro::replay
