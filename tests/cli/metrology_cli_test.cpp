// rastro analyze / rastro calibrate, run as the user runs them; numbers cross-checked with R.
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_test_util.h"
#include <nlohmann/json.hpp>

#include "tests/metrology/r_oracle.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace {

namespace fs = std::filesystem;
using rastro::testing::close_rel;

using rastro::cli_test::CliRun;

CliRun rastro_run(const std::string& args) { return rastro::cli_test::rastro(args); }

struct MetrologyDir {
  MetrologyDir() : path(rastro::testing::temp_path("metrocli")) { fs::create_directories(path); }
  ~MetrologyDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
  fs::path path;
};

std::string results_csv(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  std::string csv = "instrument,type,level,background,replicate,measured,reference,reference_u\n";
  for (int level : {1, 4})
    for (int rep = 1; rep <= 12; ++rep) {
      const double ref = 25.0 * level * (1 + 0.01 * z(rng));
      csv += fmt::format("reference,SW,{},0,{},{:.17g},{:.17g},\n", level, rep, ref, ref);
      csv += fmt::format("strace,SW,{},0,{},{:.17g},{:.17g},{:.17g}\n", level, rep,
                         (3 + 1.15 * ref) * (1 + 0.02 * z(rng)), ref, 0.01 * ref);
    }
  return csv;
}

TEST(AnalyzeCli, JsonCatalogueReproducedByR) {
  MetrologyDir d;
  const auto csv = d.file("results.csv");
  rastro::testing::write_file(csv, results_csv(7));
  CliRun r = rastro_run("analyze " + csv + " -o " + d.file("cat.json") + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 4u);
  EXPECT_EQ(j, nlohmann::json::parse(rastro::testing::read_file(d.file("cat.json"))));
  nlohmann::json strace4;
  for (auto& e : j)
    if (e["instrument"] == "strace" && e["level"] == 4) strace4 = e;
  ASSERT_FALSE(strace4.is_null());
  EXPECT_EQ(strace4["bias_significant"], true);
  EXPECT_TRUE(strace4["calibration"].is_object());
  EXPECT_EQ(r.out.find("NaN"), std::string::npos);

  RASTRO_REQUIRE_R();
  const auto out = rastro::testing::run_r(R"(
d <- read.csv(DATA); d$reference_u[is.na(d$reference_u)] <- 0
g <- d[d$instrument == 'strace' & d$level == 4, ]; r <- d[d$instrument == 'reference' & d$level == 4, ]
x <- g$measured; ref <- g$reference; u <- g$reference_u
prec <- sd(x) / mean(x) * 100
ub <- sqrt(mean(((x - ref) / ref * 100)^2) + mean((u / ref * 100)^2))
v <- var.test(x, r$measured); s <- shapiro.test(x)
cat(f17(c(mean(x), prec, (mean(x) - mean(ref)) / mean(ref) * 100, 2 * sqrt(prec^2 + ub^2), v$statistic,
          qf(0.025, 11, 11), qf(0.975, 11, 11), s$statistic, s$p.value)), '\n')
)", rastro::testing::read_file(csv));
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), 1u) << out;
  const auto& R = rows[0];
  EXPECT_TRUE(close_rel(strace4["mean"].get<double>(), R[0], 1e-9));
  EXPECT_TRUE(close_rel(strace4["precision_rel"].get<double>(), R[1], 1e-9));
  EXPECT_TRUE(close_rel(strace4["bias_rel"].get<double>(), R[2], 1e-9));
  EXPECT_TRUE(close_rel(strace4["U_rel"].get<double>(), R[3], 1e-9));
  EXPECT_TRUE(close_rel(strace4["F"].get<double>(), R[4], 1e-9));
  EXPECT_TRUE(close_rel(strace4["F_crit_low"].get<double>(), R[5], 1e-9));
  EXPECT_TRUE(close_rel(strace4["F_crit_high"].get<double>(), R[6], 1e-9));
  EXPECT_TRUE(close_rel(strace4["shapiro_W"].get<double>(), R[7], 1e-6));
  EXPECT_TRUE(close_rel(strace4["shapiro_p"].get<double>(), R[8], 1e-6));
}

TEST(AnalyzeCli, BadInputNamesTheLine) {
  MetrologyDir d;
  rastro::testing::write_file(d.file("bad.csv"),
                              "instrument,type,level,background,replicate,measured,reference,reference_u\n"
                              "strace,SW,1,0,1,12.5,10,\nstrace,SW,1,0,2,oops,10,\n");
  CliRun r = rastro_run("analyze " + d.file("bad.csv"));
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("bad.csv:3: column 'measured' is not a number"), std::string::npos) << r.err;
  CliRun missing = rastro_run("analyze " + d.file("nope.csv"));
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos);
}

TEST(CalibrateCli, FitShowPredictMatchR) {
  MetrologyDir d;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> z(0, 0.8);
  std::string data = "reference,measured\n";
  for (double x : {10.0, 20.0, 40.0, 80.0})
    for (int r = 0; r < 5; ++r) data += fmt::format("{},{:.17g}\n", x, 4 + 1.2 * x + z(rng));
  rastro::testing::write_file(d.file("cal.csv"), data);
  CliRun fit = rastro_run("calibrate fit " + d.file("cal.csv") + " -o " + d.file("curve.json") + " --background 0");
  ASSERT_EQ(fit.status, 0) << fit.err;
  EXPECT_NE(fit.out.find("kind        linear"), std::string::npos) << fit.out;
  EXPECT_NE(fit.err.find("no --environment-from"), std::string::npos);
  auto curve = nlohmann::json::parse(rastro::testing::read_file(d.file("curve.json")));
  for (const char* k : {"b0", "b1", "s_yx", "n", "r2", "x_min", "x_max"}) EXPECT_TRUE(curve.contains(k)) << k;
  EXPECT_EQ(curve["n"], 20);
  EXPECT_EQ(curve["x_min"], 10.0);
  EXPECT_EQ(curve["x_max"], 80.0);
  CliRun show = rastro_run("calibrate show " + d.file("curve.json"));
  ASSERT_EQ(show.status, 0);
  EXPECT_NE(show.out.find("valid for   reference 10 .. 80 us"), std::string::npos) << show.out;
  CliRun pred = rastro_run("calibrate predict " + d.file("curve.json") + " --measured 40.1,41.3,39.6 --json");
  ASSERT_EQ(pred.status, 0) << pred.err;
  auto p = nlohmann::json::parse(pred.out);

  RASTRO_REQUIRE_R();
  const auto out = rastro::testing::run_r(R"(
d <- read.csv(DATA); m <- lm(measured ~ reference, d); s <- summary(m); b <- coef(m)
y0 <- c(40.1, 41.3, 39.6); x <- d$reference; n <- nrow(d)
xh <- (mean(y0) - b[1]) / b[2]
sx <- s$sigma / abs(b[2]) * sqrt(1 / 3 + 1 / n + (xh - mean(x))^2 / sum((x - mean(x))^2))
t <- qt(0.975, n - 2)
cat(f17(c(b, s$sigma, s$r.squared, xh, xh - t * sx, xh + t * sx)), '\n')
)", data);
  const auto rows = rastro::testing::parse_rows(out);
  ASSERT_EQ(rows.size(), 1u) << out;
  const auto& R = rows[0];
  EXPECT_TRUE(close_rel(curve["b0"].get<double>(), R[0], 1e-9));
  EXPECT_TRUE(close_rel(curve["b1"].get<double>(), R[1], 1e-9));
  EXPECT_TRUE(close_rel(curve["s_yx"].get<double>(), R[2], 1e-9));
  EXPECT_TRUE(close_rel(curve["r2"].get<double>(), R[3], 1e-9));
  EXPECT_TRUE(close_rel(p["x_hat"].get<double>(), R[4], 1e-9));
  EXPECT_TRUE(close_rel(p["ci_low"].get<double>(), R[5], 1e-9));
  EXPECT_TRUE(close_rel(p["ci_high"].get<double>(), R[6], 1e-9));
}

TEST(CalibrateCli, BadInput) {
  MetrologyDir d;
  rastro::testing::write_file(d.file("flat.csv"), "reference,measured\n5,1\n5,2\n5,3\n");
  CliRun r = rastro_run("calibrate fit " + d.file("flat.csv") + " -o " + d.file("c.json") + " --kind linear");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("singular"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d.file("c.json")));
  rastro::testing::write_file(d.file("c.json"), "{\"format\": \"rastro-calibration-curve\", \"version\": 1}");
  CliRun s = rastro_run("calibrate show " + d.file("c.json"));
  EXPECT_EQ(s.status, 1);
  EXPECT_NE(s.err.find("lacks key"), std::string::npos) << s.err;
  CliRun p = rastro_run("calibrate predict " + d.file("c.json") + " --measured 1,x");
  EXPECT_NE(p.status, 0);
}

TEST(CalibrateCli, ApplyCorrectsTraceKeepsRawAndWarnsOnOtherEnvironment) {
  MetrologyDir d;
  rastro::trace::Trace t;
  t.header.backend = "test";
  t.header.kernel = "6.1.0-test";
  t.header.environment = {{"kernel", {{"release", "6.1.0-test"}}}, {"cpu", {{"model", "TestCPU"}}}};
  t.header.background_load = {{"level", 0}};
  t.header.complete = true;
  for (int i = 0; i < 50; ++i) {
    rastro::trace::Event e;
    e.seq = static_cast<uint64_t>(i);
    e.pid = e.tid = 100;
    e.nr = 0;  // read
    e.nargs = 3;
    e.args[0] = {rastro::trace::ArgType::kFd, 3, 0};
    e.args[1] = {rastro::trace::ArgType::kBuf, 0, 0};
    e.args[2] = {rastro::trace::ArgType::kCount, 4096, 0};
    e.rvalue = 4096;
    e.begin_ns = 1000000 + 100000 * i;
    e.end_ns = e.begin_ns + 28000 + 100 * i;  // 28 .. 32.9 µs measured
    t.events.push_back(e);
  }
  t.header.events_captured = t.events.size();
  rastro::trace::write_trace(d.file("env.rastro"), t);
  // A trace with the environment of "another kernel".
  auto other = t;
  other.header.kernel = "2.6.32";
  other.header.environment["kernel"]["release"] = "2.6.32";
  other.header.background_load = {{"level", 1}};
  rastro::trace::write_trace(d.file("other.rastro"), other);

  rastro::testing::write_file(d.file("cal.csv"), "reference,measured\n10,14.1\n10,13.9\n30,38\n30,38.2\n50,62.1\n50,61.9\n");
  ASSERT_EQ(rastro_run("calibrate fit " + d.file("cal.csv") + " -o " + d.file("curve.json") + " --environment-from " +
                       d.file("env.rastro")).status, 0);
  CliRun same = rastro_run("calibrate apply " + d.file("curve.json") + " " + d.file("env.rastro") + " -o " + d.file("cal.rastro"));
  ASSERT_EQ(same.status, 0) << same.err;
  EXPECT_EQ(same.err.find("WARNING"), std::string::npos) << same.err;
  auto c = rastro::trace::read_trace(d.file("cal.rastro"));
  ASSERT_EQ(c.events.size(), 50u);
  auto curve = nlohmann::json::parse(rastro::testing::read_file(d.file("curve.json")));
  const double b0 = curve["b0"], b1 = curve["b1"];
  for (size_t i = 0; i < c.events.size(); ++i) {
    const auto& e = c.events[i];
    EXPECT_TRUE(e.flags & rastro::trace::kEventCalibrated);
    EXPECT_EQ(e.raw_end_ns, t.events[i].end_ns);  // raw value recoverable
    const double expect_us = (static_cast<double>(t.events[i].duration_ns()) / 1000 - b0) / b1;
    EXPECT_NEAR(static_cast<double>(e.duration_ns()) / 1000, expect_us, 0.001);
  }
  EXPECT_EQ(c.header.extra["calibration"]["curve_source"], d.file("curve.json"));
  EXPECT_EQ(c.header.extra["calibration"]["events_corrected"], 50);

  CliRun wrong = rastro_run("calibrate apply " + d.file("curve.json") + " " + d.file("other.rastro") + " -o " + d.file("x.rastro"));
  EXPECT_EQ(wrong.status, 0);
  EXPECT_NE(wrong.err.find("WARNING: environment 'kernel.release' differs"), std::string::npos) << wrong.err;
  EXPECT_NE(wrong.err.find("WARNING: background load level differs"), std::string::npos) << wrong.err;
  CliRun strict = rastro_run("calibrate apply --strict " + d.file("curve.json") + " " + d.file("other.rastro") + " -o " +
                          d.file("y.rastro"));
  EXPECT_EQ(strict.status, 3);
  EXPECT_FALSE(fs::exists(d.file("y.rastro")));
  CliRun again = rastro_run("calibrate apply " + d.file("curve.json") + " " + d.file("cal.rastro") + " -o " + d.file("z.rastro"));
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.err.find("already calibrated"), std::string::npos) << again.err;
}

}  // namespace
