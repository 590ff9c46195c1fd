// Speed and size of the .rastro binary format (docs/performance.md, "binary format").
//
// The trace is a typical micro-benchmark capture, synthesized: 2 threads x 100k pread64(fd, buf,
// 4096, offset) at random 4 KiB-aligned offsets of a 1 GiB file, with realistic timestamps
// (service times lognormal around 3 us with a slow tail, 0.5-2 us between a thread's calls),
// events in begin order as a capture writes them.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <span>

#include <benchmark/benchmark.h>

#include "trace/formats/binary/binary_reader.h"
#include "trace/formats/binary/binary_writer.h"

namespace {

using namespace rastro::trace;

Trace micro_trace(size_t per_thread = 100'000) {
  Trace t;
  t.header.backend = "bench-synthetic";
  StrId file = t.strings.intern("/tmp/rastro-micro/file0");
  std::mt19937_64 rng(1);
  std::lognormal_distribution<double> service(std::log(3000.0), 0.6);
  std::uniform_int_distribution<int64_t> gap(500, 2000);
  std::uniform_int_distribution<int64_t> block(0, (int64_t{1} << 30) / 4096 - 1);
  for (int th = 0; th < 2; ++th) {
    int64_t clock = 5'000'000'000'000 + th * 700;
    for (size_t i = 0; i < per_thread; ++i) {
      Event e;
      e.pid = 4242;
      e.tid = 4242 + th;
      e.nr = 17;  // pread64
      e.begin_ns = clock;
      double s = service(rng);
      if (rng() % 100 == 0) s *= 30;  // a disk access now and then
      e.end_ns = clock + static_cast<int64_t>(s);
      e.nargs = 4;
      e.args[0] = {ArgType::kFd, 3 + th, file};
      e.args[1] = {ArgType::kBuf, 0, kNoStr};
      e.args[2] = {ArgType::kCount, 4096, kNoStr};
      e.args[3] = {ArgType::kOffset, block(rng) * 4096, kNoStr};
      e.rvalue = 4096;
      t.events.push_back(e);
      clock = e.end_ns + gap(rng);
    }
  }
  std::sort(t.events.begin(), t.events.end(),
            [](const Event& a, const Event& b) { return a.begin_ns < b.begin_ns; });
  for (size_t i = 0; i < t.events.size(); ++i) t.events[i].seq = i;
  return t;
}

const Trace& trace() {
  static const Trace t = micro_trace();
  return t;
}

std::string bench_path() {
  return (std::filesystem::temp_directory_path() /
          ("rastro_binary_bench_" + std::to_string(::getpid()) + ".rastro"))
      .string();
}

void BM_Write(benchmark::State& state) {
  const Trace& t = trace();
  std::string p = bench_path();
  binary::BinaryWriterOptions o;
  o.zstd_level = static_cast<int>(state.range(0));
  for (auto _ : state) binary::write_binary_trace(p, t, o);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.events.size()));
  state.counters["bytes_per_event"] =
      static_cast<double>(std::filesystem::file_size(p)) / static_cast<double>(t.events.size());
  std::filesystem::remove(p);
}
BENCHMARK(BM_Write)->Arg(1)->Arg(3)->Arg(9)->Unit(benchmark::kMillisecond);

// Whole-trace read into a Trace (what `rastro stats` and replay do).
void BM_ReadWhole(benchmark::State& state) {
  const Trace& t = trace();
  std::string p = bench_path();
  binary::write_binary_trace(p, t);
  for (auto _ : state) {
    Trace r = binary::read_binary_trace(p);
    benchmark::DoNotOptimize(r.events.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.events.size()));
  std::filesystem::remove(p);
}
BENCHMARK(BM_ReadWhole)->Unit(benchmark::kMillisecond);

// Block-at-a-time decoding into a reused buffer (streaming consumers).
void BM_ReadBlocks(benchmark::State& state) {
  const Trace& t = trace();
  std::string p = bench_path();
  binary::write_binary_trace(p, t);
  std::vector<Event> buf;
  for (auto _ : state) {
    binary::BinaryReader r(p);
    int64_t sum = 0;
    for (;;) {
      buf.clear();
      if (!r.next_block(&buf)) break;
      for (const Event& e : buf) sum += e.end_ns - e.begin_ns;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.events.size()));
  std::filesystem::remove(p);
}
BENCHMARK(BM_ReadBlocks)->Unit(benchmark::kMillisecond);

// Streaming read as cat/stats/export do it (TraceReader::next_events): a view of a few thousand
// events decoded into a reused, cache-sized buffer. Main's streaming read was BM_ReadBlocks.
void BM_ReadEvents(benchmark::State& state) {
  const Trace& t = trace();
  std::string p = bench_path();
  binary::write_binary_trace(p, t);
  for (auto _ : state) {
    binary::BinaryReader r(p);
    int64_t sum = 0;
    std::span<const Event> view;
    while (r.next_events(&view))
      for (const Event& e : view) sum += e.end_ns - e.begin_ns;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.events.size()));
  std::filesystem::remove(p);
}
BENCHMARK(BM_ReadEvents)->Unit(benchmark::kMillisecond);

// Event-at-a-time iteration (BinaryReader::next).
void BM_ReadNext(benchmark::State& state) {
  const Trace& t = trace();
  std::string p = bench_path();
  binary::write_binary_trace(p, t);
  for (auto _ : state) {
    binary::BinaryReader r(p);
    Event e;
    int64_t sum = 0;
    while (r.next(&e)) sum += e.end_ns - e.begin_ns;
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * t.events.size()));
  std::filesystem::remove(p);
}
BENCHMARK(BM_ReadNext)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
