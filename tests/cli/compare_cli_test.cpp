// `rastro compare` and the fidelity report `rastro replay` prints (issue #15), on a real capture:
// `tar cf` captured with the ptrace backend, replayed under think timing. The report of
// `rastro compare ORIGINAL REPLAYED` must count what the replay's own summary counted (calls,
// replayed, emulated, skipped by reason, mismatched), its replay span must be the summary's wall
// time and its original span the one this test measures from the trace itself; the thresholds
// set the exit status; what is not a replay of the original is refused with a clear error. Two
// captures of tar (neither a replay) are compared as two runs: their calls, failed calls and spans
// as this test counts them from the traces.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "tests/metrology/r_oracle.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace {

namespace fs = std::filesystem;
using rastro::cli_test::kRastro;
using rastro::cli_test::rastro;
using rastro::cli_test::sh;
using rastro::cli_test::slurp;
using rastro::testing::close_rel;

// First begin to last end of a trace (an unfinished call ends at its begin), computed here.
int64_t span_of(const std::string& path) {
  const rastro::trace::Trace t = rastro::trace::read_trace(path);
  int64_t b = std::numeric_limits<int64_t>::max(), e = std::numeric_limits<int64_t>::min();
  for (const auto& ev : t.events) {
    b = std::min(b, ev.begin_ns);
    e = std::max(e, (ev.flags & rastro::trace::kEventUnfinished) ? ev.begin_ns : ev.end_ns);
  }
  return t.events.empty() ? 0 : e - b;
}

class CompareCli : public ::testing::Test {
 protected:
  // One capture and replay for the suite (TempDir names itself after a test: none runs yet here).
  static void SetUpTestSuite() {
    dir_ = new std::string((fs::temp_directory_path() / ("rastro-compare-" + std::to_string(getpid()))).string());
    fs::remove_all(*dir_);
    const std::string src = *dir_ + "/src";
    fs::create_directories(src + "/sub");
    for (int i = 1; i <= 12; ++i) std::ofstream(src + "/f" + std::to_string(i)) << std::string(i * 900, 'x');
    std::ofstream(src + "/sub/g") << "g\n";
    capture_ = sh("ASAN_OPTIONS=detect_leaks=0 " + kRastro + " capture -b ptrace -q -o " + trace() + " -- tar cf " +
                  *dir_ + "/out.tar -C " + *dir_ + " src");
    second_capture_ = sh("ASAN_OPTIONS=detect_leaks=0 " + kRastro + " capture -b ptrace -q -o " + second_trace() +
                         " -- tar cf " + *dir_ + "/out2.tar -C " + *dir_ + " src");
    replay_ = sh(kRastro + " replay -O fs -T think -e workers --root " + *dir_ + "/root --init " + trace() +
                 " -o " + replayed() + " --summary-json " + summary());
    second_replay_ = sh(kRastro + " replay -O fs -T think -e workers --root " + *dir_ + "/root2 --init " +
                        second_trace() + " -o " + second_replayed());
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    ASSERT_EQ(capture_.status, 0) << capture_.out;
    ASSERT_EQ(second_capture_.status, 0) << second_capture_.out;
    ASSERT_EQ(replay_.status, 0) << replay_.out;
    ASSERT_EQ(second_replay_.status, 0) << second_replay_.out;
  }
  static std::string trace() { return *dir_ + "/tar.rastro"; }
  static std::string second_trace() { return *dir_ + "/tar2.rastro"; }
  static std::string replayed() { return *dir_ + "/replayed.rastro"; }
  static std::string summary() { return *dir_ + "/summary.json"; }
  static std::string second_replayed() { return *dir_ + "/replayed2.rastro"; }

  static std::string* dir_;
  static rastro::cli_test::ShellRun capture_, second_capture_, replay_, second_replay_;
};
std::string* CompareCli::dir_ = nullptr;
rastro::cli_test::ShellRun CompareCli::capture_, CompareCli::second_capture_, CompareCli::replay_,
    CompareCli::second_replay_;

TEST_F(CompareCli, ReportCountsEqualTheReplaySummary) {
  const auto s = nlohmann::json::parse(slurp(summary()));
  for (const std::string& with : {std::string(" --summary ") + summary(), std::string()}) {
    const auto run = rastro("compare --json " + trace() + " " + replayed() + with);
    ASSERT_EQ(run.status, 0) << run.err;
    const auto j = nlohmann::json::parse(run.out);
    const auto& t = j["total"];
    EXPECT_EQ(j["notes"], "summary") << with;
    EXPECT_EQ(j["timing"], "think");
    EXPECT_EQ(t["calls"], s["requests"]);
    EXPECT_EQ(t["replayed"], s["replayed"]);
    EXPECT_EQ(t["emulated"], s["emulated"]);
    EXPECT_EQ(t["skipped"], s["skipped"]);
    EXPECT_EQ(t["skipped_by_reason"], s["skipped_by_reason"]);
    EXPECT_EQ(t["mismatched"], s["mismatched"]);
    EXPECT_EQ(j["replay_span_ns"], s["wall_ns"]);
    EXPECT_EQ(j["original_span_ns"].get<int64_t>(), span_of(trace()));
    EXPECT_GT(t["replayed"].get<uint64_t>(), 100u);
    EXPECT_TRUE(j["warnings"].empty()) << j["warnings"].dump();
    // Per class, the same as the replayer's own report.
    ASSERT_EQ(j["by_class"].size(), s["fidelity"]["by_class"].size());
    uint64_t calls = 0;
    for (size_t i = 0; i < j["by_class"].size(); ++i) {
      const auto& mine = j["by_class"][i];
      const auto& theirs = s["fidelity"]["by_class"][i];
      for (const char* k : {"key", "calls", "replayed", "emulated", "skipped", "skipped_by_reason", "mismatched", "timed"})
        EXPECT_EQ(mine.at(k), theirs.at(k)) << mine.at("key") << " " << k;
      calls += mine.at("calls").get<uint64_t>();
    }
    EXPECT_EQ(calls, s["requests"].get<uint64_t>());
  }
}

TEST_F(CompareCli, ReplayAndComparePrintTheTablePerClass) {
  EXPECT_NE(replay_.out.find("fidelity: "), std::string::npos) << replay_.out;
  EXPECT_NE(replay_.out.find("(think timing)"), std::string::npos) << replay_.out;
  const auto run = rastro("compare " + trace() + " " + replayed());
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* want : {"fidelity: ", "class", "open/close", "data", "total", "faithful%", "lat.med-b"})
    EXPECT_NE(run.out.find(want), std::string::npos) << want << " in\n" << run.out;
  const auto by_call = rastro("compare --by-call " + trace() + " " + replayed());
  EXPECT_NE(by_call.out.find("openat"), std::string::npos) << by_call.out;
}

// The replayer measured its timer bias (a null syscall between its clock reads) and stored it in its
// summary and its trace's header; compare takes it from the header and gives the same corrected
// latencies as the replayer's own report.
TEST_F(CompareCli, TheTimerBiasIsMeasuredStoredAndUsedByCompare) {
  const auto s = nlohmann::json::parse(slurp(summary()));
  const auto& bias = s["fidelity"]["timer_bias"];
  EXPECT_GT(s["timer_bias_ns"].get<int64_t>(), 0);
  EXPECT_LT(s["timer_bias_ns"].get<int64_t>(), 50'000);
  EXPECT_EQ(bias["median_ns"], s["timer_bias_ns"]);
  EXPECT_EQ(bias["samples"], 2000);
  EXPECT_EQ(rastro::trace::read_trace(replayed()).header.settings["timer_bias"], bias);
  const auto run = rastro("compare --json " + trace() + " " + replayed());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["timer_bias"], bias);
  const auto& t = j["total"];
  EXPECT_EQ(t["replay_corrected_ns"], s["fidelity"]["total"]["replay_corrected_ns"]);
  EXPECT_LT(t["replay_corrected_ns"].get<int64_t>(), t["replay_ns"].get<int64_t>());
  EXPECT_LE(t["latency_ratio_median_corrected"].get<double>(), t["latency_ratio_median"].get<double>());
  const auto text = rastro("compare " + trace() + " " + replayed());
  EXPECT_NE(text.out.find("timer bias: " + std::to_string(bias["median_ns"].get<int64_t>()) + " ns"), std::string::npos)
      << text.out;
}

TEST_F(CompareCli, ThresholdsSetTheExitStatus) {
  const auto pass = rastro("compare --max-span-error 1e9 --min-replayed 0 " + trace() + " " + replayed());
  EXPECT_EQ(pass.status, 0) << pass.err;
  const auto fail = rastro("compare --min-replayed 100.1 " + trace() + " " + replayed());
  EXPECT_EQ(fail.status, 3);
  EXPECT_NE(fail.err.find("below 100.1 %"), std::string::npos) << fail.err;
  const auto span = rastro("compare --max-span-error 0 --json " + trace() + " " + replayed());
  const auto j = nlohmann::json::parse(span.out);
  // A replay span equal to the original's to the nanosecond is not to be expected.
  EXPECT_NE(j["span_error_pct"].get<double>(), 0.0);
  EXPECT_EQ(span.status, 3);
  EXPECT_EQ(j["threshold_failures"].size(), 1u);
}

// Two captures: each summarised on its own, counted here from the traces themselves.
TEST_F(CompareCli, TwoCapturesAreComparedAsTwoRuns) {
  const auto run = rastro("compare --json " + trace() + " " + second_trace());
  ASSERT_EQ(run.status, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["mode"], "runs");
  const std::string paths[2] = {trace(), second_trace()};
  for (int side = 0; side < 2; ++side) {
    const rastro::trace::Trace t = rastro::trace::read_trace(paths[side]);
    std::map<std::string, std::pair<uint64_t, uint64_t>> want;  // calls, failed
    for (const auto& e : t.events) {
      auto& w = want[std::string(rastro::trace::function_name(e, t.strings))];
      ++w.first;
      w.second += e.failed() ? 1 : 0;
    }
    size_t rows = 0;
    for (const auto& r : j["by_call"]) {
      const uint64_t calls = r["calls"][side].get<uint64_t>();
      if (calls == 0) continue;
      ++rows;
      const auto& w = want[r["key"].get<std::string>()];
      EXPECT_EQ(calls, w.first) << r["key"] << " in run " << side;
      EXPECT_EQ(r["failed"][side].get<uint64_t>(), w.second) << r["key"] << " in run " << side;
    }
    EXPECT_EQ(rows, want.size()) << "run " << side;
    EXPECT_EQ(j["span_ns"][side].get<int64_t>(), span_of(paths[side]));
  }
  // tar does the same work twice: the same calls, though not their times.
  EXPECT_EQ(j["total"]["calls"][0], j["total"]["calls"][1]);
  EXPECT_GT(j["total"]["latency_ratio_median"].get<double>(), 0.0);

  const auto self = rastro("compare " + trace() + " " + trace());
  ASSERT_EQ(self.status, 0) << self.err;
  EXPECT_NE(self.out.find("two runs"), std::string::npos) << self.out;
  EXPECT_NE(self.out.find("error +0.0 %"), std::string::npos) << self.out;
  const auto text = rastro("compare --by-call " + trace() + " " + second_trace());
  for (const char* want : {"calls.A", "calls.B", "lat.med", "open/close", "openat", "total"})
    EXPECT_NE(text.out.find(want), std::string::npos) << want << " in\n" << text.out;
  // What only a replay has is refused, naming the option.
  const auto min = rastro("compare --min-replayed 99 " + trace() + " " + second_trace());
  EXPECT_EQ(min.status, 1);
  EXPECT_NE(min.err.find("--min-replayed"), std::string::npos) << min.err;
  const auto span = rastro("compare --max-span-error 0 " + trace() + " " + second_trace());
  EXPECT_EQ(span.status, 3) << span.err;
  // Two replays (here one against itself) are two runs as well.
  const auto replays = rastro("compare --json " + replayed() + " " + replayed());
  ASSERT_EQ(replays.status, 0) << replays.err;
  const auto rj = nlohmann::json::parse(replays.out);
  EXPECT_EQ(rj["mode"], "runs");
  EXPECT_EQ(rj["span_error_pct"].get<double>(), 0.0);
}

TEST_F(CompareCli, WhatIsNotAReplayOfTheOriginalIsRefused) {
  const auto swapped = rastro("compare " + replayed() + " " + trace());
  EXPECT_EQ(swapped.status, 1);
  EXPECT_NE(swapped.err.find("are the arguments swapped"), std::string::npos) << swapped.err;

  const std::string other = *dir_ + "/micro.rastro";
  ASSERT_EQ(sh(kRastro + " bench micro --type sw --threads 1 --ops 20 --dir " + *dir_ + "/micro -o " + other).status, 0);
  const auto wrong = rastro("compare " + other + " " + replayed());
  EXPECT_EQ(wrong.status, 1);
  EXPECT_NE(wrong.err.find("not a replay of this original"), std::string::npos) << wrong.err;

  const auto missing = rastro("compare " + trace() + " " + *dir_ + "/nothing.rastro");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("nothing.rastro"), std::string::npos) << missing.err;

  const auto bad_summary = rastro("compare --summary " + trace() + " " + trace() + " " + replayed());
  EXPECT_EQ(bad_summary.status, 1);
  EXPECT_NE(bad_summary.err.find("--summary"), std::string::npos) << bad_summary.err;
}

// Over rounds, each class's ratios are the ones each pair's own report gives, and their geometric
// mean and interval are R's (t.test on the logarithms).
TEST_F(CompareCli, RoundsGiveEachClassTheIntervalOfItsRatios) {
  RASTRO_REQUIRE_R();
  const std::string pairs[2][2] = {{trace(), replayed()}, {second_trace(), second_replayed()}};
  const auto run = rastro("compare --json --confidence 95 " + pairs[0][0] + " " + pairs[0][1] + " " + pairs[1][0] + " " +
                          pairs[1][1]);
  ASSERT_EQ(run.status == 0 || run.status == 3, true) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  EXPECT_EQ(j["kind"], "replay");
  std::map<std::string, std::vector<double>> want;  // class -> the rounds' ratios, from each pair alone
  for (const auto& pair : pairs) {
    const auto one = rastro("compare --json " + pair[0] + " " + pair[1]);
    ASSERT_EQ(one.status, 0) << one.err;
    const auto report = nlohmann::json::parse(one.out);
    for (const auto& c : report["by_class"])
      if (c["timed"].get<uint64_t>() >= 5) want[c["key"].get<std::string>()].push_back(c["latency_ratio_median_corrected"]);
  }
  size_t judged = 0;
  for (const auto& c : j["by_class"]) {
    const std::string key = c["key"];
    SCOPED_TRACE(key);
    EXPECT_EQ(c["ratios"].get<std::vector<double>>(), want[key]);
    if (want[key].size() < 2) {
      EXPECT_EQ(c["verdict"], "too few rounds");
      continue;
    }
    ++judged;
    const auto r = rastro::testing::parse_rows(rastro::testing::run_r(
        "x <- log(scan(DATA, quiet = TRUE)); cat(f17(c(exp(mean(x)), exp(t.test(x, conf.level = 0.95)$conf.int))))",
        rastro::testing::vectors_text({want[key]})));
    ASSERT_EQ(r.size(), 1u);
    ASSERT_EQ(r[0].size(), 3u);
    EXPECT_TRUE(close_rel(c["geometric_mean"].get<double>(), r[0][0], 1e-9));
    EXPECT_TRUE(close_rel(c["ci"][0].get<double>(), r[0][1], 1e-9));
    EXPECT_TRUE(close_rel(c["ci"][1].get<double>(), r[0][2], 1e-9));
  }
  EXPECT_GE(judged, 2u) << run.out;  // tar: data and open/close at least
  EXPECT_EQ(j["span"]["rounds"], 2);
}

// The same pair twice gives each class one ratio twice, an interval of width 0: within the bounds
// when that ratio is, else beyond (exit 3).
TEST_F(CompareCli, RoundsSetTheVerdictAndTheExitStatus) {
  const auto one = rastro("compare --json " + trace() + " " + second_trace());
  ASSERT_EQ(one.status, 0) << one.err;
  std::map<std::string, double> ratio;
  const auto report = nlohmann::json::parse(one.out);
  for (const auto& c : report["by_class"])
    if (std::min(c["timed"][0].get<uint64_t>(), c["timed"][1].get<uint64_t>()) >= 5)
      ratio[c["key"]] = c["latency_ratio_median"].get<double>();
  ASSERT_FALSE(ratio.empty()) << one.out;
  for (double within : {0.001, 25.0, 99.0}) {
    SCOPED_TRACE(within);
    const auto run = rastro(fmt::format("compare --json --within {} {} {} {} {}", within, trace(), second_trace(),
                                        trace(), second_trace()));
    const auto j = nlohmann::json::parse(run.out);
    EXPECT_EQ(j["kind"], "runs");
    bool beyond = false;
    for (const auto& c : j["by_class"]) {
      if (!ratio.count(c["key"])) continue;
      const bool in = std::fabs(ratio[c["key"]] - 1) <= within / 100;
      EXPECT_EQ(c["verdict"], in ? "within" : "beyond") << c;
      beyond = beyond || !in;
    }
    const double span = j["span"]["geometric_mean"].get<double>();
    beyond = beyond || std::fabs(span - 1) > within / 100;
    EXPECT_EQ(run.status, beyond ? 3 : 0) << run.err;
    if (within == 0.001) {
      EXPECT_TRUE(beyond);
    }
  }
  const auto text = rastro("compare " + trace() + " " + replayed() + " " + second_trace() + " " + second_replayed());
  for (const char* want : {"2 rounds, each an original and its replay", "geo.mean", "interval", "verdict", "span"})
    EXPECT_NE(text.out.find(want), std::string::npos) << want << " in\n" << text.out;
}

TEST_F(CompareCli, RoundsRefuseWhatIsNoSetOfPairs) {
  const auto odd = rastro("compare " + trace() + " " + replayed() + " " + second_trace());
  EXPECT_EQ(odd.status, 1);
  EXPECT_NE(odd.err.find("rounds come in pairs"), std::string::npos) << odd.err;
  const auto mixed = rastro("compare " + trace() + " " + replayed() + " " + trace() + " " + second_trace());
  EXPECT_EQ(mixed.status, 1);
  EXPECT_NE(mixed.err.find("every round must be of one kind"), std::string::npos) << mixed.err;
  const auto lone = rastro("compare --within 10 " + trace() + " " + replayed());
  EXPECT_EQ(lone.status, 1);
  EXPECT_NE(lone.err.find("two pairs"), std::string::npos) << lone.err;
  const auto by_call = rastro("compare --by-call " + trace() + " " + replayed() + " " + trace() + " " + replayed());
  EXPECT_EQ(by_call.status, 1);
  EXPECT_NE(by_call.err.find("do not apply"), std::string::npos) << by_call.err;
  for (const char* bad : {"--within 0", "--within 100", "--confidence 0", "--confidence 100"}) {
    const auto r = rastro(std::string("compare ") + bad + " " + trace() + " " + replayed() + " " + trace() + " " +
                          replayed());
    EXPECT_EQ(r.status, 1) << bad;
    EXPECT_NE(r.err.find(std::string(bad).substr(0, std::string(bad).find(' '))), std::string::npos) << r.err;
  }
}

TEST(CompareHelp, ListsTheCommandAndItsOptions) {
  const auto top = sh(kRastro + " --help");
  EXPECT_NE(top.out.find("compare"), std::string::npos) << top.out;
  const auto help = sh(kRastro + " compare --help");
  EXPECT_EQ(help.status, 0);
  for (const char* opt : {"ORIGINAL", "REPLAYED", "--summary", "--json", "--by-call", "--max-span-error", "--min-replayed"})
    EXPECT_NE(help.out.find(opt), std::string::npos) << opt << " in\n" << help.out;
}

}  // namespace
