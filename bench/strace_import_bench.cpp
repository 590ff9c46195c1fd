// strace-log import throughput (target: >= 1 M lines/s) and TSV write/read speed.
// Input: the real fixture logs (tests/fixtures/strace) repeated to ~200k lines, so the line mix
// (-y annotations, unfinished/resumed pairs, errno returns, ns timestamps) is strace's own.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "trace/formats/text/text_format.h"
#include "trace/importers/strace/strace_import.h"

namespace {

using namespace rastro::trace;

std::string fixture_mix(size_t min_lines, size_t* lines) {
  // CMake compiles with absolute paths, so the fixtures are found next to this file.
  static const std::filesystem::path dir =
      std::filesystem::path(__FILE__).parent_path().parent_path() / "tests/fixtures/strace";
  std::string one;
  for (const char* n : {"tar.log", "mt_writer.log", "ns_times.log", "sqlite3.log", "git_init.log", "cp_r.log"}) {
    std::ifstream in(dir / n, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    one += s.str();
  }
  size_t per = static_cast<size_t>(std::count(one.begin(), one.end(), '\n'));
  if (per == 0) {
    std::fprintf(stderr, "strace_import_bench: fixtures not found in %s\n", dir.c_str());
    std::exit(1);
  }
  std::string all;
  *lines = 0;
  while (*lines < min_lines) {
    all += one;
    *lines += per;
  }
  return all;
}

// Counts events without keeping them: measures the importer, not memory growth.
class CountingSink final : public TraceSink {
 public:
  StringTable& strings() override { return strings_; }
  TraceHeader& header() override { return header_; }
  void append(Event e) override { benchmark::DoNotOptimize(e); ++n_; }
  void flush() override {}
  void finish() override {}
  uint64_t n_ = 0;

 private:
  StringTable strings_;
  TraceHeader header_;
};

void BM_StraceImport(benchmark::State& state) {
  size_t lines = 0;
  std::string text = fixture_mix(200000, &lines);
  for (auto _ : state) {
    std::istringstream in(text);
    CountingSink sink;
    ImportReport r = import_strace(in, "bench.log", sink, {});
    if (r.has_errors()) state.SkipWithError("import reported errors");
    benchmark::DoNotOptimize(sink.n_);
  }
  state.counters["lines/s"] = benchmark::Counter(static_cast<double>(lines) * static_cast<double>(state.iterations()),
                                                 benchmark::Counter::kIsRate);
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
}
BENCHMARK(BM_StraceImport)->Unit(benchmark::kMillisecond)->MinTime(2.0);

Trace imported_trace(size_t* events) {
  size_t lines = 0;
  std::istringstream in(fixture_mix(200000, &lines));
  MemorySink sink;
  import_strace(in, "bench.log", sink, {});
  Trace t = sink.take();
  *events = t.events.size();
  return t;
}

void BM_TsvWrite(benchmark::State& state) {
  size_t n = 0;
  Trace t = imported_trace(&n);
  for (auto _ : state) {
    std::ostringstream out;
    write_text_trace(out, t, '\t');
    benchmark::DoNotOptimize(out.str().size());
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TsvWrite)->Unit(benchmark::kMillisecond);

void BM_TsvRead(benchmark::State& state) {
  size_t n = 0;
  Trace t = imported_trace(&n);
  std::ostringstream out;
  write_text_trace(out, t, '\t');
  std::string text = out.str();
  for (auto _ : state) {
    std::istringstream in(text);
    Trace back = read_text_trace(in, "bench.tsv");
    benchmark::DoNotOptimize(back.events.size());
  }
  state.counters["events/s"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TsvRead)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
