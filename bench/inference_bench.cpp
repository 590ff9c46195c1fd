// Dependency-inference speed (issue 5: >= 5 M events/s on a large synthetic trace) and the
// memory a plan takes per request. Run:
//   build/bench/inference_bench --benchmark_counters_tabular=true
#include <time.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "replay/passes/replay_passes.h"
#include "trace/syscalls/syscall_table.h"

namespace {

using namespace rastro;

// `threads` threads of one process over `files` files: each thread opens a file, does a run of
// pread64/pwrite64/lseek/fstat on it, closes it and moves on; now and then a stat, an unlink+
// re-create, or a rename. Calls of different threads overlap in time, as in a real capture.
trace::Trace synthetic_trace(size_t events, int threads, int files, uint32_t seed = 42) {
  std::mt19937_64 rng(seed);
  trace::Trace t;
  std::vector<trace::StrId> names;
  for (int f = 0; f < files; ++f) names.push_back(t.strings.intern("/data/dir" + std::to_string(f % 10) + "/file" + std::to_string(f)));
  auto info = [](const char* n) { return trace::syscall_by_name(n); };
  const auto* open = info("openat");
  const auto* close = info("close");
  const auto* pread = info("pread64");
  const auto* pwrite = info("pwrite64");
  const auto* lseek = info("lseek");
  const auto* fstat = info("fstat");
  const auto* stat = info("newfstatat");
  const auto* unlink = info("unlink");
  const auto* rename = info("rename");
  struct Th {
    int64_t now;
    int fd = -1;
    int left = 0;
  };
  std::vector<Th> th(static_cast<size_t>(threads));
  for (auto& x : th) x.now = static_cast<int64_t>(rng() % 1000);
  t.events.reserve(events);
  auto emit = [&](int i, const trace::SyscallInfo* s, std::initializer_list<std::pair<int64_t, trace::StrId>> args,
                  int64_t rv) {
    Th& x = th[static_cast<size_t>(i)];
    trace::Event e;
    e.seq = t.events.size();
    e.pid = 1000;
    e.tid = 1000 + i;
    e.begin_ns = x.now + static_cast<int64_t>(rng() % 2000);
    e.end_ns = e.begin_ns + 500 + static_cast<int64_t>(rng() % 20000);
    x.now = e.end_ns;
    e.nr = s->nr;
    e.nargs = s->nargs;
    int k = 0;
    for (const auto& [v, str] : args) {
      e.args[static_cast<size_t>(k)] = trace::Arg{s->args[static_cast<size_t>(k)], v, str};
      ++k;
    }
    e.rvalue = rv;
    t.events.push_back(e);
  };
  while (t.events.size() < events) {
    // Advance the thread that is furthest behind, so the merged trace is nearly begin-sorted.
    int i = 0;
    for (int k = 1; k < threads; ++k)
      if (th[static_cast<size_t>(k)].now < th[static_cast<size_t>(i)].now) i = k;
    Th& x = th[static_cast<size_t>(i)];
    const trace::StrId name = names[rng() % names.size()];
    if (x.fd < 0) {
      x.fd = 3 + i;
      x.left = 50 + static_cast<int>(rng() % 200);
      emit(i, open, {{-100, 0}, {0, name}, {02 | 0100, 0}, {0644, 0}}, x.fd);
      continue;
    }
    if (x.left-- == 0) {
      emit(i, close, {{x.fd, 0}}, 0);
      x.fd = -1;
      continue;
    }
    const auto op = rng() % 100;
    const int64_t off = static_cast<int64_t>(rng() % 1024) * 4096;
    if (op < 45) emit(i, pread, {{x.fd, 0}, {0, 0}, {4096, 0}, {off, 0}}, 4096);
    else if (op < 90) emit(i, pwrite, {{x.fd, 0}, {0, 0}, {4096, 0}, {off, 0}}, 4096);
    else if (op < 94) emit(i, lseek, {{x.fd, 0}, {off, 0}, {0, 0}}, off);
    else if (op < 97) emit(i, fstat, {{x.fd, 0}, {0, 0}}, 0);
    else if (op < 99) emit(i, stat, {{-100, 0}, {0, name}, {0, 0}, {0, 0}}, 0);
    else if (rng() % 2) emit(i, unlink, {{0, name}}, 0);
    else emit(i, rename, {{0, name}, {0, names[rng() % names.size()]}}, 0);
  }
  std::stable_sort(t.events.begin(), t.events.end(),
                   [](const trace::Event& a, const trace::Event& b) { return a.begin_ns < b.begin_ns; });
  for (size_t k = 0; k < t.events.size(); ++k) t.events[k].seq = k;
  return t;
}

void BM_Infer(benchmark::State& state) {
  const auto ordering = static_cast<replay::Ordering>(state.range(0));
  const auto events = static_cast<size_t>(state.range(1));
  replay::PlanTrace t = synthetic_trace(events, 8, 100);  // (packed once: read_plan_trace packs while reading)
  replay::PlanFigures fig;
  size_t plan_bytes = 0;
  for (auto _ : state) {
    auto r = replay::infer_plan(std::move(t), ordering);
    if (!r.ok()) {
      state.SkipWithError(r.error().c_str());
      return;
    }
    replay::Plan& p = r.value();
    fig = p.figures;
    plan_bytes = p.requests.size() * sizeof(replay::Request) + p.deps.size() * sizeof(replay::Dep);
    for (const auto& th : p.threads) plan_bytes += th.requests.size() * sizeof(uint32_t);
    t = std::move(p.trace);  // reuse the trace (moved into the plan) for the next iteration
  }
  const auto n = static_cast<double>(events);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * events));
  uint64_t edges = 0;
  for (auto k : fig.edges_by_kind) edges += k;
  state.counters["edges_per_req"] = static_cast<double>(edges) / n;
  state.counters["plan_B_per_req"] = static_cast<double>(plan_bytes) / n;
  state.counters["event_B"] = static_cast<double>(sizeof(trace::Event));
  state.counters["max_par"] = fig.max_parallelism;
}

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

// CPU time of each pass (ms per run, as counters), to see where inference spends its time.
void BM_Passes(benchmark::State& state) {
  const auto ordering = static_cast<replay::Ordering>(state.range(0));
  replay::PlanTrace t = synthetic_trace(static_cast<size_t>(state.range(1)), 8, 100);
  std::map<std::string, double> ms;
  size_t peak_bytes = 0;
  auto cap = [](const auto& v) { return v.size() * sizeof(v[0]); };  // (reserved but untouched pages cost no memory)
  for (auto _ : state) {
    replay::InferContext ctx;
    ctx.options.ordering = ordering;
    ctx.trace = std::move(t);
    double last = thread_cpu_ms();
    auto r = replay::AllReplayPasses().run(ctx, [&](const std::string& pass, const replay::InferContext& c) {
      const double now = thread_cpu_ms();
      ms[pass] += now - last;
      // What the context holds besides the trace after each pass (the passes' private state,
      // e.g. fd tables and per-resource users, is small next to it for this trace).
      size_t b = c.order.memory_bytes() + cap(c.action) + c.thread.memory_bytes() + c.times.memory_bytes() + cap(c.nr) +
                 cap(c.status) + c.paths.memory_bytes() + c.fd_refs_at.memory_bytes() + cap(c.fd_refs) + cap(c.fd_entries) + cap(c.ofds) +
                 cap(c.deps) + c.deps_at.memory_bytes() + cap(c.plan.requests) + cap(c.plan.deps);
      for (const auto& th : c.threads) b += cap(th.requests);
      for (const auto& th : c.plan.threads) b += cap(th.requests);
      peak_bytes = std::max(peak_bytes, b);
      last = thread_cpu_ms();
    });
    if (!r.ok()) {
      state.SkipWithError(r.error().c_str());
      return;
    }
    t = std::move(ctx.plan.trace);
  }
  for (const auto& [pass, v] : ms) state.counters[pass + "_ms"] = v / static_cast<double>(state.iterations());
  state.counters["working_B_per_req"] = static_cast<double>(peak_bytes) / static_cast<double>(state.range(1));
}

}  // namespace

BENCHMARK(BM_Passes)
    ->ArgsProduct({{static_cast<int>(replay::Ordering::kFs), static_cast<int>(replay::Ordering::kTemporal)},
                   {1'000'000}})
    ->ArgNames({"ordering", "events"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();

BENCHMARK(BM_Infer)
    ->ArgsProduct({{static_cast<int>(replay::Ordering::kThread), static_cast<int>(replay::Ordering::kFs),
                    static_cast<int>(replay::Ordering::kTemporal)},
                   {1'000'000}})
    ->ArgNames({"ordering", "events"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime();  // the build machine is shared: CPU time, not wall time

BENCHMARK_MAIN();
