// Speed of the metrology/calibration code: Shapiro–Wilk at its largest n, the whole catalogue
// analysis of a campaign-sized results table, and applying a curve to a large trace.
#include <random>

#include <benchmark/benchmark.h>

#include "calibration/catalogue_entry.h"
#include "calibration/trace_correction.h"
#include "metrology/shapiro_wilk.h"

namespace {

void BM_ShapiroWilk(benchmark::State& state) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> z(0, 1);
  std::vector<double> x(static_cast<size_t>(state.range(0)));
  for (auto& v : x) v = z(rng);
  for (auto _ : state) benchmark::DoNotOptimize(rastro::metrology::shapiro_wilk(x));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_ShapiroWilk)->Arg(50)->Arg(5000);

// 5 instruments × 4 types × 4 levels × 2 backgrounds × 50 replicates = 8000 rows.
void BM_AnalyzeCampaign(benchmark::State& state) {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> z(0, 1);
  std::vector<rastro::metrology::ExperimentResult> rows;
  for (std::string ins : {"reference", "strace", "ptrace", "ebpf", "stap"})
    for (std::string type : {"RR", "RW", "SR", "SW"})
      for (int level = 1; level <= 4; ++level)
        for (std::string bg : {"0", "1"})
          for (long rep = 1; rep <= 50; ++rep) {
            const double ref = 10.0 * level * (1 + 0.01 * z(rng));
            rows.push_back({ins, type, std::to_string(level), bg, rep, ref * (1.1 + 0.02 * z(rng)), ref, 0.01 * ref, 0});
          }
  for (auto _ : state) benchmark::DoNotOptimize(rastro::calibration::analyze_results(rows));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(rows.size()));
}
BENCHMARK(BM_AnalyzeCampaign)->Unit(benchmark::kMillisecond);

void BM_ApplyCurve(benchmark::State& state) {
  rastro::trace::Trace base;
  for (int64_t i = 0; i < 1000000; ++i) {
    rastro::trace::Event e;
    e.seq = static_cast<uint64_t>(i);
    e.begin_ns = i * 1000;
    e.end_ns = e.begin_ns + 5000 + i % 300;
    base.events.push_back(e);
  }
  rastro::calibration::CalibrationCurve c;
  c.b0 = 2;
  c.b1 = 1.1;
  c.domain.x_min = 0;
  c.domain.x_max = 10;
  for (auto _ : state) {
    state.PauseTiming();
    auto t = base;
    state.ResumeTiming();
    benchmark::DoNotOptimize(rastro::calibration::apply_curve(t, c, {}));
  }
  state.SetItemsProcessed(state.iterations() * 1000000);
}
BENCHMARK(BM_ApplyCurve)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
