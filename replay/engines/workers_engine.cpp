// The `workers` engine (thesis §6.2.2): no coordinator. Each replay thread owns one traced
// thread's requests in program order, waits on the completion flags of their dependencies, applies
// the timing policy and issues the call. The only shared write on the hot path is the request's
// completion flag; its record goes to its thread's own stream of the record log (record_log.h).
// Each traced process's replay threads run on a kernel fd table of their own (replay_threads.h).
#include <unistd.h>

#include <thread>

#include "common/clock.h"
#include "replay/engines/engine.h"
#include "replay/engines/engine_common.h"
#include "replay/engines/issue_schedule.h"
#include "replay/engines/replay_threads.h"
#include "replay/engines/thread_outcomes.h"
#include "replay/runtime/completion_flag.h"
#include "replay/runtime/process_state.h"
#include "replay/runtime/request_runner.h"

namespace rastro::replay {

EngineResult run_workers(const Plan& plan, const SandboxResolver& sandbox, const EngineOptions& options) {
  EngineResult res;
  const size_t n = plan.requests.size();
  res.log = RecordLog(plan.requests);
  UringReplay plain_uring(plan, UringMode::kPlain);
  UringReplay& uring = options.uring ? *options.uring : plain_uring;
  check_processes(options, uring);
  detail::EngineSetup setup(plan, sandbox);
  const bool processes = options.processes;  // shared mappings for what crosses processes
  CompletionFlags done(n, processes);

  detail::IssueSchedule schedule(plan, setup.imp, options.timing, processes);
  CompletionFlags go(1, processes);  // the start line

  detail::ThreadOutcomes outcomes(plan.threads.size());
  detail::ReplayThreads* threads = nullptr;
  auto body = [&](size_t t) {
    const PlanThread& pt = plan.threads[t];
    detail::ThreadOutcome& out = outcomes[t];  // its own slot, read after the join
    if (options.realtime) make_realtime(&out.warning);  // the warning says why not
    ProcessState* proc = setup.procs.find(pt.pid);
    ThreadScratch scratch;
    uint64_t waits = 0;
    int64_t prev_end = -1;
    uint32_t prev = detail::kNoRequest;  // the thread's previous request
    out.os_tid = static_cast<int32_t>(::gettid());
    out.os_pid = static_cast<int32_t>(::getpid());
    go.wait(0);
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
    out.stats = std::move(scratch.stats);
    out.dependency_waits = waits;
  };

  detail::ReplayThreads replay_threads(plan, setup.imp, body, setup.own_table(), options.thread_fd_import);
  threads = &replay_threads;
  if (processes) replay_threads.use_processes(outcomes.exchange(res.log));
  replay_threads.start();
  schedule.start(monotonic_ns() + detail::kStartMarginNs);
  go.complete(0);
  replay_threads.join();
  uring.finish(res.log, res.stats);
  outcomes.merge_into(res, plan, options.record_os_threads);
  res.start_ns = schedule.start_ns();
  res.wall_ns = detail::wall_time(res.log);
  return res;
}

}  // namespace rastro::replay
