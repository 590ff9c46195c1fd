// Replay-engine overhead (issue 5): replaying N cached 4 KiB preads vs a bare loop doing the same
// calls (target: workers >= 0.75x the bare loop's throughput), and the timestamp policy's issue
// error at 100k requests/s (target: p99 <= 10 us).
//
//   build-engine/bench/replay_engine_bench --benchmark_repetitions=3
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "common/clock.h"
#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/runtime/fs_init.h"
#include "trace/syscalls/syscall_table.h"

namespace {

using namespace rastro;

constexpr int kBlocks = 256;  // 1 MiB file: stays in the page cache

struct Root {
  std::string path;
  Root() {
    char tmpl[] = "/tmp/rastro-engine-bench-XXXXXX";
    path = mkdtemp(tmpl);
  }
  ~Root() { std::filesystem::remove_all(path); }
};

// One thread: open /data/f, n preads of 4 KiB `gap_ns` apart, close.
trace::Trace pread_trace(int64_t n, int64_t gap_ns) {
  trace::Trace t;
  auto add = [&](std::string_view name, std::vector<int64_t> v, int64_t rv, int64_t begin, trace::StrId path) {
    const trace::SyscallInfo* info = trace::syscall_by_name(name);
    trace::Event e;
    e.seq = t.events.size();
    e.pid = e.tid = 1;
    e.nr = info->nr;
    e.nargs = info->nargs;
    for (int i = 0; i < info->nargs; ++i) {
      e.args[i].type = info->args[i];
      if (info->args[i] == trace::ArgType::kPath) e.args[i].str = path;
      else if (info->args[i] != trace::ArgType::kBuf) e.args[i].value = v[static_cast<size_t>(i)];
    }
    e.begin_ns = begin;
    e.end_ns = begin + 500;
    e.rvalue = rv;
    t.events.push_back(e);
  };
  trace::StrId f = t.strings.intern("/data/f");
  int64_t clock = 1'000'000;
  add("openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, clock, f);
  for (int64_t i = 0; i < n; ++i) {
    clock += gap_ns;
    add("pread64", {3, 0, 4096, (i % kBlocks) * 4096}, 4096, clock, 0);
  }
  add("close", {3}, 0, clock + gap_ns, 0);
  return t;
}

// The fs-ordered plan of pread_trace(n, gap_ns) and a sandbox root holding its initial state.
struct PreparedReplay {
  replay::Plan plan;
  Root root;
  replay::SandboxResolver sandbox;
  PreparedReplay(int64_t n, int64_t gap_ns)
      : plan(replay::infer_plan(pread_trace(n, gap_ns), replay::Ordering::kFs).take()), sandbox(root.path) {
    replay::create_initial_state(sandbox, replay::plan_initial_state(plan.trace));
  }
};

void BM_BareLoopPread(benchmark::State& state) {
  Root root;
  std::string p = root.path + "/f";
  int fd = open(p.c_str(), O_CREAT | O_RDWR, 0644);
  std::vector<char> buf(4096, 'x');
  for (int i = 0; i < kBlocks; ++i) (void)!pwrite(fd, buf.data(), 4096, i * 4096);
  const int64_t n = state.range(0);
  for (auto _ : state) {
    for (int64_t i = 0; i < n; ++i) {
      benchmark::DoNotOptimize(pread(fd, buf.data(), 4096, (i % kBlocks) * 4096));
    }
  }
  close(fd);
  state.SetItemsProcessed(state.iterations() * n);
}

void replay_pread(benchmark::State& state, replay::EngineKind kind) {
  const int64_t n = state.range(0);
  PreparedReplay p(n, 2000);
  replay::Plan& plan = p.plan;
  replay::SandboxResolver& sb = p.sandbox;
  replay::EngineOptions opt;
  uint64_t mismatched = 0, skipped = 0;
  double in_replay_ns = 0;
  for (auto _ : state) {
    replay::EngineResult r = replay::run_engine(kind, plan, sb, opt);
    mismatched += r.stats.mismatched;
    skipped += r.stats.skipped_total();
    in_replay_ns += static_cast<double>(r.wall_ns);
  }
  state.SetItemsProcessed(state.iterations() * (n + 2));
  state.counters["mismatched"] = static_cast<double>(mismatched);
  state.counters["skipped"] = static_cast<double>(skipped);
  // Calls/s between the first call's begin and the last one's end (excludes thread start-up and
  // the per-run setup that is the same for any trace length).
  state.counters["replay_calls_per_s"] =
      static_cast<double>(state.iterations() * (n + 2)) / (in_replay_ns / 1e9);
}

void BM_WorkersReplayPread(benchmark::State& state) { replay_pread(state, replay::EngineKind::kWorkers); }

// The ratio the targets are stated in, measured in pairs: each iteration runs the bare loop and
// then the replay of the same calls, back to back, and the median of the per-pair ratios is
// reported. On this VM the bare loop's own rate drifts by 20-30 % between runs a few seconds
// apart, so ratios of separately timed benchmarks mostly measure that drift.
void paired_ratio(benchmark::State& state, replay::EngineKind kind) {
  const int64_t n = state.range(0);
  PreparedReplay p(n, 2000);
  replay::Plan& plan = p.plan;
  replay::SandboxResolver& sb = p.sandbox;
  int fd = open((p.root.path + "/data/f").c_str(), O_RDONLY);
  std::vector<char> buf(4096);
  std::vector<double> in_replay, with_setup;
  uint64_t bad = 0;
  for (auto _ : state) {
    int64_t t0 = monotonic_ns();
    for (int64_t i = 0; i < n; ++i) benchmark::DoNotOptimize(pread(fd, buf.data(), 4096, (i % kBlocks) * 4096));
    const double bare_ns = static_cast<double>(monotonic_ns() - t0) / static_cast<double>(n);
    t0 = monotonic_ns();
    replay::EngineResult r = replay::run_engine(kind, plan, sb, replay::EngineOptions{});
    const double total_ns = static_cast<double>(monotonic_ns() - t0) / static_cast<double>(n + 2);
    bad += r.stats.mismatched + r.stats.skipped_total();
    in_replay.push_back(bare_ns / (static_cast<double>(r.wall_ns) / static_cast<double>(n + 2)));
    with_setup.push_back(bare_ns / total_ns);
  }
  close(fd);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  state.counters["ratio_in_replay"] = median(in_replay);
  state.counters["ratio_with_setup"] = median(with_setup);
  state.counters["skipped_or_mismatched"] = static_cast<double>(bad);
  state.SetItemsProcessed(state.iterations() * (n + 2));
}
void BM_WorkersVsBarePaired(benchmark::State& state) { paired_ratio(state, replay::EngineKind::kWorkers); }
void BM_CoordinatorReplayPread(benchmark::State& state) { replay_pread(state, replay::EngineKind::kCoordinator); }

// Timestamp policy at 100k requests/s: requests 10 us apart.
void BM_TimestampIssueError(benchmark::State& state) {
  const int64_t n = state.range(0);
  PreparedReplay p(n, 10'000);
  replay::Plan& plan = p.plan;
  replay::SandboxResolver& sb = p.sandbox;
  replay::EngineOptions opt;
  opt.timing = replay::parse_timing("timestamp").take();
  std::vector<int64_t> err;
  for (auto _ : state) {
    replay::EngineResult r = replay::run_engine(static_cast<replay::EngineKind>(state.range(1)), plan, sb, opt);
    for (const auto& rec : r.records()) err.push_back(rec.begin_ns - rec.planned_ns);
  }
  std::sort(err.begin(), err.end());
  auto pct = [&](double q) { return static_cast<double>(err[static_cast<size_t>(q * static_cast<double>(err.size() - 1))]); };
  state.counters["issue_err_p50_ns"] = pct(0.5);
  state.counters["issue_err_p99_ns"] = pct(0.99);
  state.counters["issue_err_max_ns"] = static_cast<double>(err.back());
  state.SetItemsProcessed(state.iterations() * (n + 2));
}

}  // namespace

// Real time everywhere: the engines' work happens on their own threads, not the caller's CPU time.
BENCHMARK(BM_BareLoopPread)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WorkersReplayPread)->Arg(100000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WorkersVsBarePaired)->Arg(100000)->Unit(benchmark::kMillisecond)->Iterations(21)->UseRealTime();
BENCHMARK(BM_CoordinatorReplayPread)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TimestampIssueError)->Args({20000, 0})->Args({20000, 1})->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();
BENCHMARK_MAIN();
