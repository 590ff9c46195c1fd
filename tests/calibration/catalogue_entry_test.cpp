#include "calibration/catalogue_entry.h"

#include <cmath>
#include <random>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/metrology/r_oracle.h"

namespace rastro::calibration {
namespace {

using metrology::ExperimentResult;
using rastro::testing::close_rel;

// reference, an unbiased instrument (ebpf) and a biased one (strace: gain 1.3 + 2 µs, 20 %
// slower at background 1), RR at levels 1, 2, 4 µs·10, backgrounds 0 and 1, 10 replicates.
std::vector<ExperimentResult> synthetic_results(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  std::vector<ExperimentResult> out;
  size_t line = 2;
  for (std::string bg : {"0", "1"})
    for (int level : {1, 2, 4})
      for (long rep = 1; rep <= 10; ++rep) {
        const double ref = 10.0 * level * (1 + 0.01 * z(rng));
        const double slow = bg == "1" ? 1.2 : 1.0;
        const std::string lv = std::to_string(level);
        out.push_back({"reference", "RR", lv, bg, rep, ref, ref, 0.02 * ref, line++, {}, {}});
        out.push_back({"ebpf", "RR", lv, bg, rep, ref * (1 + 0.01 * z(rng)), ref, 0.02 * ref, line++, {}, {}});
        out.push_back({"strace", "RR", lv, bg, rep, slow * (2 + 1.3 * ref) * (1 + 0.02 * z(rng)), ref,
                       0.02 * ref, line++, {}, {}});
      }
  return out;
}

const CatalogueEntry& find(const std::vector<CatalogueEntry>& es, const std::string& ins,
                           const std::string& level, const std::string& bg) {
  for (const auto& e : es)
    if (e.instrument == ins && e.level == level && e.background == bg) return e;
  throw std::runtime_error("no entry");
}

TEST(Catalogue, EntriesForEveryGroup) {
  const auto results = synthetic_results(1);
  auto es = analyze_results(results);
  ASSERT_EQ(es.size(), 3u * 3 * 2);
  EXPECT_EQ(es.front().instrument, "reference");  // reference first
  const auto& s = find(es, "strace", "2", "0");
  ASSERT_TRUE(s.budget && s.f_test && s.shapiro);
  EXPECT_EQ(s.n, 10u);
  EXPECT_TRUE(s.calibration_needed);
  ASSERT_TRUE(s.curve && s.after_calibration);
  EXPECT_EQ(s.curve->kind, CurveKind::kLinear);
  EXPECT_NEAR(s.curve->b1, 1.3, 0.1);
  EXPECT_GT(s.budget->bias_rel, 30);
  EXPECT_LT(std::fabs(s.after_calibration->bias_rel), 3);
  EXPECT_LT(s.after_calibration->U_rel, s.budget->U_rel / 5);
  EXPECT_EQ(s.f_test->verdict, metrology::FVerdict::kLessPrecise);
  const auto& e = find(es, "ebpf", "2", "0");
  EXPECT_FALSE(e.calibration_needed);
  EXPECT_FALSE(e.curve.has_value());
  // Selectivity: strace at background 1 is ~20 % slower than at background 0.
  const auto& s1 = find(es, "strace", "2", "1");
  ASSERT_TRUE(s1.selectivity);
  EXPECT_NEAR(s1.selectivity->delta_rel, 20, 3);
  EXPECT_TRUE(s1.selectivity->significant);
  EXPECT_FALSE(s.selectivity.has_value());
  EXPECT_TRUE(s.undefined.count("selectivity"));
  auto j = to_json(es);
  EXPECT_EQ(j.dump().find("NaN"), std::string::npos);
  for (const char* k : {"instrument", "type", "level", "background", "n", "mean", "reference_mean", "sd",
                        "precision_rel", "bias_rel", "rms_bias_rel", "u_bias_rel", "uc_rel", "U_rel",
                        "bias_significant", "F", "F_crit_low", "F_crit_high", "F_verdict", "shapiro_W",
                        "shapiro_p"})
    EXPECT_TRUE(j[5].contains(k)) << k;
  EXPECT_EQ(j[0]["level"], 1);  // numeric labels stay numbers
}

TEST(Catalogue, ACrossHostIntervalCarriesItsClockComponent) {
  // A multi-rank job's message latency, 3 replicates, each end on its own host: clock_u 3 µs.
  std::vector<ExperimentResult> rows;
  for (long rep = 1; rep <= 3; ++rep) {
    rows.push_back({"reference", "RING", "4", "0", rep, 50, 50, 0, static_cast<size_t>(rep), {}, {}, 0});
    rows.push_back({"ptrace", "RING", "4", "0", rep, 50.0 + static_cast<double>(rep), 50, 0, static_cast<size_t>(10 + rep),
                    {}, {}, 3});
  }
  const auto es = analyze_results(rows);
  const auto& e = find(es, "ptrace", "4", "0");
  ASSERT_TRUE(e.budget);
  EXPECT_DOUBLE_EQ(e.budget->u_clock, 3);
  // sd of 51, 52, 53 = 1; rms bias = sqrt((1 + 4 + 9)/3); u_c adds the clock's 3 in quadrature.
  EXPECT_NEAR(e.budget->uc, std::sqrt(1 + 14.0 / 3 + 9), 1e-9);
  const auto j = to_json(e);
  EXPECT_DOUBLE_EQ(j["u_clock"].get<double>(), 3);
  EXPECT_TRUE(j.contains("u_clock_rel"));
}

TEST(Catalogue, NumbersMatchRComputedFromTheSameRows) {
  RASTRO_REQUIRE_R();
  const auto results = synthetic_results(2);
  std::string csv = "instrument,level,background,measured,reference,reference_u\n";
  for (const auto& r : results)
    csv += fmt::format("{},{},{},{:.17g},{:.17g},{:.17g}\n", r.instrument, r.level, r.background, r.measured,
                       *r.reference, r.reference_u);
  const auto out = rastro::testing::run_r(R"(
d <- read.csv(DATA)
for (ins in c('ebpf', 'strace')) for (lv in c(1, 2, 4)) for (bg in c(0, 1)) {
  g <- d[d$instrument == ins & d$level == lv & d$background == bg, ]
  r <- d[d$instrument == 'reference' & d$level == lv & d$background == bg, ]
  x <- g$measured; ref <- g$reference; u <- g$reference_u
  prec <- sd(x) / mean(x) * 100
  ub <- sqrt(mean(((x - ref) / ref * 100)^2) + mean((u / ref * 100)^2))
  v <- var.test(x, r$measured); s <- shapiro.test(x)
  cat(f17(c(prec, (mean(x) - mean(ref)) / mean(ref) * 100, ub, 2 * sqrt(prec^2 + ub^2),
            v$statistic, v$p.value, s$statistic, s$p.value)), '\n')
})", csv);
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), 12u) << out;
  auto es = analyze_results(results);
  size_t i = 0;
  for (std::string ins : {"ebpf", "strace"})
    for (std::string lv : {"1", "2", "4"})
      for (std::string bg : {"0", "1"}) {
        SCOPED_TRACE(ins + " " + lv + " " + bg);
        const auto& e = find(es, ins, lv, bg);
        const auto& r = rows[i++];
        EXPECT_TRUE(close_rel(e.budget->precision_rel, r[0], 1e-9));
        EXPECT_TRUE(close_rel(e.budget->bias_rel, r[1], 1e-9));
        EXPECT_TRUE(close_rel(e.budget->u_bias_rel, r[2], 1e-9));
        EXPECT_TRUE(close_rel(e.budget->U_rel, r[3], 1e-9));
        EXPECT_TRUE(close_rel(e.f_test->F, r[4], 1e-9));
        EXPECT_TRUE(close_rel(e.f_test->p_value, r[5], 1e-9, 1e-14));
        EXPECT_TRUE(close_rel(e.shapiro->W, r[6], 1e-6));
        EXPECT_TRUE(close_rel(e.shapiro->p_value, r[7], 1e-6));
      }
}

// A significant bias over two close levels whose measured values do not rise with the
// reference: no curve can correct it, so the entry keeps its uncalibrated budget and says why
// (the demo's replayers at SW levels 1-2 fitted a falling line here and reported U 129 % -> 20 %).
TEST(Catalogue, BiasWithoutAUsableCurveStaysUncalibratedWithTheReason) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z(0, 0.15);
  std::vector<ExperimentResult> rs;
  size_t line = 2;
  for (auto [level, ref, measured] : {std::tuple{"1", 3.607, 3.6}, std::tuple{"2", 3.399, 4.8}})
    for (long rep = 1; rep <= 10; ++rep)
      rs.push_back({"workers", "SW", level, "0", rep, measured + z(rng), ref, 0, line++, {}, {}});
  auto es = analyze_results(rs);
  const auto& e = find(es, "workers", "2", "0");
  ASSERT_TRUE(e.budget);
  EXPECT_TRUE(e.calibration_needed);
  EXPECT_FALSE(e.curve);
  EXPECT_FALSE(e.after_calibration);
  ASSERT_TRUE(e.undefined.count("calibration"));
  EXPECT_NE(e.undefined.at("calibration").find("cannot calibrate"), std::string::npos) << e.undefined.at("calibration");
  auto j = to_json(e);
  EXPECT_TRUE(j["calibration"].is_null());
  EXPECT_TRUE(j["after_calibration"].is_null());
  EXPECT_EQ(j["undefined"]["calibration"], e.undefined.at("calibration"));
}

TEST(Catalogue, AGroupWithoutReferenceHasNoBiasAndNoCurve) {
  std::vector<ExperimentResult> rs = {{"strace", "SR", "1", "0", 1, 50.0, std::nullopt, 0, 7, {}, {}},
                                      {"strace", "SR", "1", "0", 2, 60.0, std::nullopt, 0, 8, {}, {}}};
  auto es = analyze_results(rs);
  ASSERT_EQ(es.size(), 1u);
  EXPECT_FALSE(es[0].budget.has_value());
  EXPECT_FALSE(es[0].calibration_needed);
  EXPECT_FALSE(es[0].curve.has_value());
  auto j = to_json(es[0]);
  EXPECT_TRUE(j["bias_rel"].is_null());
  const std::string why = j["undefined"]["bias_rel"].get<std::string>();
  EXPECT_NE(why.find("no reference value (line 7)"), std::string::npos) << why;
  EXPECT_NE(why.find("no uninstrumented reference runs"), std::string::npos) << why;
}

TEST(Catalogue, BadGroupsAreUndefinedWithReasons) {
  std::vector<ExperimentResult> rs = {
      {"strace", "SR", "1", "0", 1, 5.0, 2.0, 0, 2, {}, {}},                                          // n = 1
      {"ptrace", "SR", "1", "0", 1, 5.0, 0.0, 0, 3, {}, {}}, {"ptrace", "SR", "1", "0", 2, 6.0, 0.0, 0, 4, {}, {}},  // ref 0
      {"stap", "SR", "1", "0", 1, 5.0, 4.0, 0, 5, {}, {}},   {"stap", "SR", "1", "0", 2, 5.0, 4.0, 0, 6, {}, {}},  // constant
  };
  auto es = analyze_results(rs);
  ASSERT_EQ(es.size(), 3u);
  for (const auto& e : es) {
    auto j = to_json(e);
    EXPECT_EQ(j.dump().find("NaN"), std::string::npos) << j.dump();
    EXPECT_TRUE(j["shapiro_W"].is_null());
    EXPECT_TRUE(j["undefined"]["shapiro_W"].is_string());
    EXPECT_TRUE(j["F"].is_null());
    EXPECT_NE(j["undefined"]["F"].get<std::string>().find("no 'reference' rows"), std::string::npos);
  }
  auto strace = to_json(es[2]);
  EXPECT_TRUE(strace["precision_rel"].is_null());
  EXPECT_NE(strace["undefined"]["precision_rel"].get<std::string>().find("n >= 2"), std::string::npos);
  auto ptrace = to_json(es[0]);
  EXPECT_NE(ptrace["undefined"]["bias_rel"].get<std::string>().find("not positive"), std::string::npos);
  auto stap = to_json(es[1]);
  EXPECT_EQ(stap["precision_rel"], 0.0);
  EXPECT_EQ(stap["bias_rel"], 25.0);
  // Bias is significant but every replicate sits at one reference value: a single-point curve.
  ASSERT_TRUE(es[1].curve.has_value());
  EXPECT_EQ(es[1].curve->kind, CurveKind::kSinglePoint);
}

}  // namespace
}  // namespace rastro::calibration
