#include "replay/engines/engine.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <thread>

#include "replay/engines/engine_common.h"
#include "replay/engines/replay_threads.h"
#include "replay/runtime/completion_flag.h"
#include "replay/runtime/process_state.h"

namespace rastro::replay {

Result<EngineKind> parse_engine(std::string_view name) {
  if (name == "workers") return EngineKind::kWorkers;
  if (name == "coordinator") return EngineKind::kCoordinator;
  return fail("unknown engine '" + std::string(name) + "' (expected workers or coordinator)");
}

std::string_view engine_name(EngineKind k) { return k == EngineKind::kWorkers ? "workers" : "coordinator"; }

EngineResult run_engine(EngineKind kind, const Plan& plan, const SandboxResolver& sandbox,
                        const EngineOptions& options) {
  return kind == EngineKind::kWorkers ? run_workers(plan, sandbox, options)
                                      : run_coordinator(plan, sandbox, options);
}

void check_processes(const EngineOptions& options, const UringReplay& uring) {
  if (!options.processes) return;
  const std::string what = "--processes (each traced process in a process of its own): ";
  if (!detail::kProcessesAvailable)
    throw Error(what + "this build's ThreadSanitizer cannot follow a multi-threaded process into fork");
  if (options.hooks) throw Error(what + "not with the replay of an MPI job's ranks");
  if (uring.active())
    throw Error(what + "this trace's io_uring requests go through rings whose completions one process reaps; "
                "replay with --uring plain, or without --processes");
}

bool make_realtime(std::string* why) {
  sched_param sp{};
  sp.sched_priority = sched_get_priority_min(SCHED_FIFO) + 1;
  int r = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
  if (r != 0) {
    if (why) *why = std::string("SCHED_FIFO not permitted: ") + std::strerror(r);
    return false;
  }
  return true;
}

std::vector<uint32_t> request_events(const Plan& plan) {
  std::vector<uint32_t> v;
  v.reserve(plan.requests.size());
  for (const Request& r : plan.requests) v.push_back(r.event);
  return v;
}

namespace detail {

EngineSetup::EngineSetup(const Plan& plan, const SandboxResolver& sandbox)
    : own_keys(has_fd_keys(plan) ? FdKeys{} : compute_fd_keys(plan.trace, request_events(plan), &own_seeds)),
      seeds(has_fd_keys(plan) ? plan.processes : own_seeds),
      keys(has_fd_keys(plan) ? plan.fd_keys : own_keys),
      procs(seeds, keys.count, kEngineFdTables),
      exec(sandbox, procs, plan.trace.strings),
      imp(plan),
      plan_(&plan) {}

ImplicitDeps::ImplicitDeps(const Plan& plan)
    : plan_(&plan), first_(plan.threads.size(), kNone), spawn_(plan.threads.size(), kNone) {
  std::vector<int64_t> spawn_of_thread = spawn_requests(plan);
  for (size_t t = 0; t < plan.threads.size(); ++t) {
    const auto& reqs = plan.threads[t].requests;
    if (reqs.empty()) continue;
    first_[t] = reqs[0];
    // Only when the clone comes earlier in the plan (index order is a topological order);
    // otherwise the trace is inconsistent and waiting could deadlock.
    if (spawn_of_thread[t] >= 0 && spawn_of_thread[t] < static_cast<int64_t>(reqs[0]))
      spawn_[t] = static_cast<uint32_t>(spawn_of_thread[t]);
  }
}

std::vector<int32_t> per_request_os_threads(const Plan& plan, const std::vector<int32_t>& tids) {
  std::vector<int32_t> os(plan.requests.size(), 0);
  for (size_t t = 0; t < plan.threads.size() && t < tids.size(); ++t)
    for (uint32_t r : plan.threads[t].requests) os[r] = tids[t];
  return os;
}

int64_t wall_time(const RecordLog& records) {
  if (records.size() == 0) return 0;
  int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  records.for_each([&](uint32_t, const RequestRecord& r) {
    first = std::min(first, r.begin_ns);
    last = std::max(last, r.end_ns);
  });
  return last - first;
}

}  // namespace detail
}  // namespace rastro::replay
