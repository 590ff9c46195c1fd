// The `workers` engine (thesis §6.2.2): no coordinator. Each replay thread owns one traced
// thread's requests in program order, waits on the completion flags of their dependencies, applies
// the timing policy and issues the call. The only shared write on the hot path is the request's
// completion flag; its record goes to its thread's own stream of the record log (record_log.h).
// Each traced process's replay threads run on a kernel fd table of their own (replay_threads.h).
#include <unistd.h>

#include <mutex>
#include <thread>

#include "common/clock.h"
#include "replay/engines/engine.h"
#include "replay/engines/engine_common.h"
#include "replay/engines/issue_schedule.h"
#include "replay/engines/replay_threads.h"
#include "replay/runtime/completion_flag.h"
#include "replay/runtime/process_state.h"
#include "replay/runtime/request_runner.h"

namespace rastro::replay {

EngineResult run_workers(const Plan& plan, const SandboxResolver& sandbox, const EngineOptions& options) {
  EngineResult res;
  const size_t n = plan.requests.size();
  res.log = RecordLog(plan.requests);
  detail::EngineSetup setup(plan, sandbox);
  UringReplay plain_uring(plan, UringMode::kPlain);
  UringReplay& uring = options.uring ? *options.uring : plain_uring;
  CompletionFlags done(n);

  detail::IssueSchedule schedule(plan, setup.imp, options.timing);
  CompletionFlag go;
  std::mutex merge_mu;

  std::vector<int32_t> tids(plan.threads.size(), 0);  // the OS thread of each plan thread
  detail::ReplayThreads* threads = nullptr;
  auto body = [&](size_t t) {
    const PlanThread& pt = plan.threads[t];
    std::string rt_why;
    bool rt_failed = options.realtime && !make_realtime(&rt_why);
    ProcessState* proc = setup.procs.find(pt.pid);
    ThreadScratch scratch;
    uint64_t waits = 0;
    int64_t prev_end = -1;
    uint32_t prev = detail::kNoRequest;  // the thread's previous request
    tids[t] = static_cast<int32_t>(::gettid());  // its own slot, read after the join
    go.wait();
    for (uint32_t r : pt.requests) {
      bool waited = false;
      if (const int64_t s = setup.imp.spawn(r); s >= 0) waited |= done.wait(static_cast<uint32_t>(s));
      for (const Dep& dep : deps_of(plan, r)) {
        const uint32_t d = dep.request;
        if (d != r) waited |= done.wait(d);
      }
      waited |= uring.await(r);
      if (options.hooks) waited |= options.hooks->before_issue(r);
      waits += waited;
      const int64_t planned = schedule.await_issue(r, prev, ready_ns(waited, prev_end));
      RequestRecord rec;
      const bool later = uring.issue(r, setup.exec, setup.keys.keys[r].data(), proc, scratch, &rec);
      threads->spawned(r);
      rec.planned_ns = planned;
      prev_end = rec.end_ns;
      prev = r;
      schedule.finish(r, rec);
      res.log.append(static_cast<uint32_t>(t), rec, later);
      if (options.hooks) options.hooks->after_complete(r);
      done.complete(r);
    }
    uring.drain(static_cast<uint32_t>(t));
    std::lock_guard lock(merge_mu);
    res.stats.merge(scratch.stats);
    res.dependency_waits += waits;
    if (rt_failed && res.warnings.empty()) res.warnings.push_back(rt_why);
  };

  detail::ReplayThreads replay_threads(plan, setup.imp, body, setup.own_table(), options.thread_fd_import);
  threads = &replay_threads;
  replay_threads.start();
  schedule.start(monotonic_ns() + detail::kStartMarginNs);
  go.complete();
  replay_threads.join();
  uring.finish(res.log, res.stats);
  res.start_ns = schedule.start_ns();
  res.wall_ns = detail::wall_time(res.log);
  if (options.record_os_threads) res.os_threads = detail::per_request_os_threads(plan, tids);
  return res;
}

}  // namespace rastro::replay
