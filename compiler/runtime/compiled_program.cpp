#include "compiler/runtime/compiled_program.h"

#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <memory>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "common/clock.h"
#include "common/error.h"
#include "replay/engines/engine.h"
#include "replay/engines/engine_common.h"
#include "replay/engines/issue_schedule.h"
#include "replay/engines/replay_threads.h"
#include "replay/engines/thread_outcomes.h"
#include "replay/plan/plan_json.h"
#include "replay/plan/plan_names.h"
#include "replay/runtime/completion_flag.h"
#include "replay/runtime/process_state.h"
#include "replay/runtime/request_runner.h"
#include "replay/session/replay_session.h"
#include "replay/session/session_flags.h"

namespace rastro::compiled {

using replay::Plan;

// State shared by the replay threads of one run (the compiled counterpart of the workers engine:
// the dependency waits are in the generated code, everything else is here).
struct SharedState {
  const Plan* plan = nullptr;
  const replay::CallExecutor* exec = nullptr;
  const replay::FdKeys* keys = nullptr;
  replay::detail::ImplicitDeps imp;
  replay::detail::IssueSchedule* schedule = nullptr;
  replay::CompletionFlags done;
  replay::RecordLog* log = nullptr;
  replay::CompletionFlags go;  // the start line
  replay::UringReplay* uring = nullptr;  // the session's (exec_uring.h): io_uring requests through rings
  replay::detail::ReplayThreads* threads = nullptr;  // starts a traced fork's child (replay_threads.h)
};

struct ThreadState {
  SharedState* sh = nullptr;
  replay::ProcessState* proc = nullptr;
  replay::ThreadScratch scratch;
  uint64_t waits = 0;
  bool waited = false;
  uint32_t thread = 0;    // its plan thread
  int64_t prev_end = -1;  // the thread's previous request's replayed end
  uint32_t prev = replay::detail::kNoRequest;  // the thread's previous request
};

void ThreadContext::wait(uint32_t request) { s_->waited |= s_->sh->done.wait(request); }

void ThreadContext::issue(uint32_t r) {
  SharedState& sh = *s_->sh;
  if (const int64_t s = sh.imp.spawn(r); s >= 0) wait(static_cast<uint32_t>(s));
  s_->waited |= sh.uring->await(r);
  s_->waits += s_->waited;
  const int64_t planned = sh.schedule->await_issue(r, s_->prev, replay::ready_ns(s_->waited, s_->prev_end));
  s_->waited = false;
  replay::RequestRecord rec;
  const bool later = sh.uring->issue(r, *sh.exec, sh.keys->keys[r].data(), s_->proc, s_->scratch, &rec);
  sh.threads->spawned(r);
  rec.planned_ns = planned;
  s_->prev_end = rec.end_ns;
  s_->prev = r;
  sh.schedule->finish(r, rec);
  sh.log->append(s_->thread, rec, later);
  sh.done.complete(r);
}

namespace {

template <typename T, typename F>
void for_each_chunked(const Chunks<T>& c, F&& f) {
  for (size_t i = 0; i < c.n_chunks; ++i)
    for (size_t k = 0; k < c.sizes[i]; ++k) f(c.chunks[i][k]);
}

Plan rebuild_plan(const CompiledTrace& ct) {
  Plan plan;
  plan.ordering = replay::parse_ordering(ct.ordering).take();
  plan.trace.header = trace::TraceHeader::from_json(nlohmann::json::parse(ct.header_json));
  uint32_t expect = 1;
  for_each_chunked(ct.strings, [&](const StaticString& s) {
    trace::StrId id = plan.trace.strings.intern(std::string_view(s.data, s.size));
    if (id != expect++) throw Error("compiled trace: duplicate string in the string table");
  });
  for_each_chunked(ct.events, [&](const StaticEvent& se) {
    trace::Event e;
    e.seq = se.seq;
    e.pid = se.pid;
    e.tid = se.tid;
    e.begin_ns = se.begin_ns;
    e.end_ns = se.end_ns;
    e.nr = se.nr;
    e.name = se.name;
    e.nargs = se.nargs;
    for (int i = 0; i < trace::kMaxArgs; ++i)
      e.args[static_cast<size_t>(i)] = {static_cast<trace::ArgType>(se.args[i].type), se.args[i].value, se.args[i].str};
    e.rvalue = se.rvalue;
    e.flags = se.flags;
    e.gap_offcpu_ns = se.gap_offcpu_ns;
    plan.trace.events.push_back(e);
  });
  plan.threads.resize(ct.n_threads);
  for (size_t t = 0; t < ct.n_threads; ++t) {
    plan.threads[t].pid = ct.threads[t].pid;
    plan.threads[t].tid = ct.threads[t].tid;
  }
  size_t n_requests = 0;
  for (size_t k = 0; k < ct.requests.n_chunks; ++k) n_requests += ct.requests.sizes[k];
  plan.paths.assign(static_cast<uint32_t>(n_requests));
  for_each_chunked(ct.requests, [&](const StaticRequest& sr) {
    replay::Request q{sr.event, sr.thread, sr.deps_begin};
    q.action = static_cast<replay::RequestAction>(sr.action);
    const auto r = static_cast<uint32_t>(plan.requests.size());
    plan.paths.set(r, 0, sr.path0);
    plan.paths.set(r, 1, sr.path1);
    replay::PackedFdKeys::Row keys;
    std::copy(std::begin(sr.fd_keys), std::end(sr.fd_keys), keys.begin());
    plan.fd_keys.keys.push_back(keys);
    if (q.thread >= plan.threads.size()) throw Error("compiled trace: request of an unknown thread");
    plan.threads[q.thread].requests.push_back(static_cast<uint32_t>(plan.requests.size()));
    plan.requests.push_back(q);
  });
  for_each_chunked(ct.deps, [&](const StaticDep& d) { plan.deps.push_back({d.request, static_cast<replay::EdgeKind>(d.kind)}); });
  // Each request's dependencies end where the next one's begin (replay::deps_of).
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    const uint32_t begin = plan.requests[r].deps_begin;
    if (begin > plan.deps.size() || (r > 0 && begin < plan.requests[r - 1].deps_begin))
      throw Error("compiled trace: request " + std::to_string(r) + "'s dependencies out of order");
  }
  if (!plan.requests.empty()) plan.trace_t0_ns = plan.trace.events.begin_ns(plan.requests[0].event);
  const auto* cbor = reinterpret_cast<const uint8_t*>(ct.replayer_data.data);
  replay::read_replayer_data_json(nlohmann::json::from_cbor(cbor, cbor + ct.replayer_data.size), &plan);
  return plan;
}

replay::EngineResult run_compiled(const CompiledTrace& ct, const Plan& plan, const replay::SandboxResolver& sandbox,
                                  const replay::EngineOptions& options) {
  replay::EngineResult res;
  const size_t n = plan.requests.size();
  res.log = replay::RecordLog(plan.requests);
  replay::UringReplay plain_uring(plan, replay::UringMode::kPlain);
  replay::UringReplay* uring = options.uring ? options.uring : &plain_uring;
  replay::check_processes(options, *uring);
  const bool processes = options.processes;  // shared mappings for what crosses processes
  replay::ProcessTable procs(plan.processes, plan.fd_keys.count, replay::detail::kEngineFdTables);
  replay::CallExecutor exec(sandbox, procs, plan.trace.strings);
  SharedState sh;
  sh.plan = &plan;
  sh.exec = &exec;
  sh.keys = &plan.fd_keys;
  sh.imp = replay::detail::ImplicitDeps(plan);
  replay::detail::IssueSchedule schedule(plan, sh.imp, options.timing, processes);
  sh.schedule = &schedule;
  sh.done = replay::CompletionFlags(n, processes);
  sh.go = replay::CompletionFlags(1, processes);
  sh.log = &res.log;
  sh.uring = uring;

  replay::detail::ThreadOutcomes outcomes(plan.threads.size());
  auto body = [&](size_t t) {
    replay::detail::ThreadOutcome& out = outcomes[t];  // its own slot, read after the join
    ThreadState st;
    st.sh = &sh;
    st.thread = static_cast<uint32_t>(t);
    st.proc = procs.find(plan.threads[t].pid);
    if (options.realtime) replay::make_realtime(&out.warning);  // the warning says why not
    ThreadContext ctx(&st);
    out.os_tid = static_cast<int32_t>(::gettid());
    out.os_pid = static_cast<int32_t>(::getpid());
    sh.go.wait(0);
    const StaticThread& code = ct.threads[t];
    for (size_t p = 0; p < code.n_parts; ++p) code.parts[p](ctx);
    sh.uring->drain(static_cast<uint32_t>(t));
    out.stats = std::move(st.scratch.stats);
    out.dependency_waits = st.waits;
  };
  replay::detail::ReplayThreads threads(plan, sh.imp, body, [&](size_t t, int32_t parent_tid) { return procs.own_table(plan.threads[t].pid, parent_tid); });
  sh.threads = &threads;
  if (processes) threads.use_processes(outcomes.exchange(res.log));
  threads.start();
  schedule.start(monotonic_ns() + replay::detail::kStartMarginNs);
  sh.go.complete(0);
  threads.join();
  sh.uring->finish(res.log, res.stats);
  outcomes.merge_into(res, plan, options.record_os_threads);
  res.start_ns = schedule.start_ns();
  res.wall_ns = replay::detail::wall_time(res.log);
  return res;
}

}  // namespace

int compiled_main(int argc, char** argv, const CompiledTrace& ct) {
  replay::SessionOptions o;
  CLI::App app{fmt::format("Compiled rastro replayer of {} (ordering {}, timing {}): replays the trace inside a "
                           "sandbox root and writes the replayed trace in the uniform format.",
                           ct.source, ct.ordering, ct.timing),
               "replay"};
  replay::add_session_flags(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    o.timing = replay::parse_timing(ct.timing).take();
    o.engine_name = "compiled";
    o.source = ct.source;
    Plan plan = rebuild_plan(ct);
    replay::run_replay_session(plan, o, [&](const Plan& p, const replay::SandboxResolver& s, const replay::EngineOptions& eo) {
      return run_compiled(ct, p, s, eo);
    });
  } catch (const std::exception& e) {
    fmt::print(stderr, "replay: error: {}\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace rastro::compiled
