// The reference method's own cost and accuracy (docs/performance.md, section "workloads"):
// - the two CLOCK_MONOTONIC readings around every request,
// - a timed 4 KiB pread vs an untimed one (page-cache hit),
// - pause accuracy of wait_until_ns vs plain nanosleep at the thesis's 10 and 50 us gaps,
// - converting records into trace events.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "common/clock.h"
#include "workloads/common/call_log.h"
#include "workloads/common/precise_pause.h"
#include "workloads/common/trace_emit.h"

namespace {

using namespace rastro;
using namespace rastro::workloads;

void BM_ClockPair(benchmark::State& state) {
  for (auto _ : state) {
    const int64_t a = monotonic_ns();
    const int64_t b = monotonic_ns();
    benchmark::DoNotOptimize(b - a);
  }
}
BENCHMARK(BM_ClockPair);

struct CachedFile {
  CachedFile() {
    path = "/tmp/rastro-bench-ref-" + std::to_string(getpid());
    fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
    std::vector<char> buf(1 << 20, 'x');
    if (::write(fd, buf.data(), buf.size()) < 0) std::perror("write");
  }
  ~CachedFile() {
    ::close(fd);
    ::unlink(path.c_str());
  }
  std::string path;
  int fd = -1;
};

void BM_Pread4K_Untimed(benchmark::State& state) {
  CachedFile f;
  char buf[4096];
  off_t off = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(::pread(f.fd, buf, sizeof buf, off));
    off = (off + 4096) % (1 << 20);
  }
}
BENCHMARK(BM_Pread4K_Untimed);

void BM_Pread4K_Timed(benchmark::State& state) {
  CachedFile f;
  char buf[4096];
  off_t off = 0;
  CallLog log(1 << 16);
  for (auto _ : state) {
    if (log.size() == (1u << 16)) log = CallLog(1 << 16);
    CallRecord& r = timed_call(log, CallKind::kPread, [&] { return ::pread(f.fd, buf, sizeof buf, off); });
    r.offset = off;
    off = (off + 4096) % (1 << 20);
  }
}
BENCHMARK(BM_Pread4K_Timed);

// Pause error: how late the next request starts compared with the requested gap.
void BM_Pause_WaitUntil(benchmark::State& state) {
  const int64_t pause = state.range(0) * 1000;
  double late = 0;
  int64_t worst = 0;
  std::vector<int64_t> all;
  for (auto _ : state) {
    const int64_t target = monotonic_ns() + pause;
    const int64_t now = wait_until_ns(target);
    late += static_cast<double>(now - target);
    worst = std::max(worst, now - target);
    all.push_back(now - target);
  }
  std::sort(all.begin(), all.end());
  state.counters["late_p50_ns"] = static_cast<double>(all[all.size() / 2]);
  state.counters["late_mean_ns"] = late / static_cast<double>(state.iterations());
  state.counters["late_max_ns"] = static_cast<double>(worst);
  state.counters["late_mean_pct"] = 100.0 * late / static_cast<double>(state.iterations()) / static_cast<double>(pause);
}
BENCHMARK(BM_Pause_WaitUntil)->Arg(10)->Arg(50)->Iterations(2000)->UseRealTime();

void BM_Pause_Nanosleep(benchmark::State& state) {
  const int64_t pause = state.range(0) * 1000;
  double late = 0;
  int64_t worst = 0;
  std::vector<int64_t> all;
  for (auto _ : state) {
    const int64_t start = monotonic_ns();
    timespec ts{0, static_cast<long>(pause)};
    nanosleep(&ts, nullptr);
    const int64_t now = monotonic_ns();
    late += static_cast<double>(now - start - pause);
    worst = std::max(worst, now - start - pause);
    all.push_back(now - start - pause);
  }
  std::sort(all.begin(), all.end());
  state.counters["late_p50_ns"] = static_cast<double>(all[all.size() / 2]);
  state.counters["late_mean_ns"] = late / static_cast<double>(state.iterations());
  state.counters["late_max_ns"] = static_cast<double>(worst);
  state.counters["late_mean_pct"] = 100.0 * late / static_cast<double>(state.iterations()) / static_cast<double>(pause);
}
BENCHMARK(BM_Pause_Nanosleep)->Arg(10)->Arg(50)->Iterations(2000)->UseRealTime();

void BM_EmitRun(benchmark::State& state) {
  WorkloadRun run;
  run.paths = {"/data/a", "/data/b"};
  for (int t = 0; t < 2; ++t) {
    ThreadCalls tc{1, 2 + t, CallLog(100000)};
    for (int i = 0; i < 100000; ++i) {
      CallRecord& r = tc.log.next();
      r.kind = CallKind::kPread;
      r.begin_ns = i * 10 + t;
      r.end_ns = r.begin_ns + 5;
      r.fd = 3;
      r.count = 4096;
      r.offset = i * 4096;
      r.rvalue = 4096;
      r.path = static_cast<uint32_t>(t);
    }
    run.threads.push_back(std::move(tc));
  }
  for (auto _ : state) {
    trace::MemorySink sink;
    emit_run(run, sink);
    benchmark::DoNotOptimize(sink.trace().events.size());
  }
  state.SetItemsProcessed(state.iterations() * 200000);
}
BENCHMARK(BM_EmitRun)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
