// `rastro compare`'s library (replay_comparison.h) on the pair of traces of replay_pair_traces.h,
// whose outcomes are known by construction (30 calls):
//   openat: i even, 15 calls; skipped i = 0, 14, 28 (i % 7 == 0); mismatched none (22 is even:
//           22 % 11 == 0 -> mismatched; so 1); replayed 12.
//   read:   i odd, 15 calls; skipped i = 7, 21; mismatched i = 11; replayed 13.
//   spans:  original 1000 .. max end (i = 29: 3900 + 50 + 1000 = 4950; i = 26: 3600 + 1050 =
//           4650) = 3950; replay: every duration doubled, 1 ms later: 1001000 .. 1000000 + 3900 +
//           2 * 1050 = 1006000 -> 5000; error (5000 - 3950) / 3950.
#include "trace/analysis/replay_comparison.h"

#include <fstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/trace/replay_pair_traces.h"

namespace rastro::trace {
namespace {

using ::testing::HasSubstr;
using testing::make_replay_pair;

const FidelityRow& call_row(const FidelityReport& r, const std::string& key) {
  for (const auto& row : r.by_call)
    if (row.key == key) return row;
  static FidelityRow none;
  ADD_FAILURE() << "no row " << key;
  return none;
}

// The replayer's own per-syscall report, as its summary holds it.
nlohmann::json summary(uint64_t requests, uint64_t openat_skipped) {
  return {{"requests", requests},
          {"timing", "timestamp"},
          {"fidelity",
           {{"by_call",
             {{{"key", "openat"}, {"calls", 15}, {"replayed", 15 - openat_skipped}, {"skipped", openat_skipped},
               {"emulated", 0}, {"skipped_by_reason", {{"special_path", openat_skipped}}}},
              {{"key", "read"}, {"calls", 15}, {"replayed", 13}, {"skipped", 2}, {"emulated", 0},
               {"skipped_by_reason", {{"fd_of_refused_path", 1}, {"unfinished", 1}}}}}}}}};
}

class ReplayComparison : public testing::ReplayPairFiles {};

TEST_F(ReplayComparison, CountsAndSpansFromTheTracesReasonsUnknownWithoutASummary) {
  const auto [o, r] = write(make_replay_pair(30));
  const FidelityReport rep = compare_replay(o, r);
  EXPECT_EQ(rep.notes, "none");
  EXPECT_EQ(rep.timing, "think");  // from the replayed trace's settings
  EXPECT_EQ(rep.total.calls, 30u);
  EXPECT_EQ(rep.total.skipped, 5u);
  EXPECT_EQ(rep.total.replayed, 25u);
  EXPECT_EQ(rep.total.mismatched, 2u);
  EXPECT_EQ(rep.total.skipped_by_reason.at("reason_unknown"), 5u);
  const FidelityRow& openat = call_row(rep, "openat");
  EXPECT_EQ(openat.calls, 15u);
  EXPECT_EQ(openat.skipped, 3u);
  EXPECT_EQ(openat.mismatched, 1u);
  EXPECT_EQ(call_row(rep, "read").mismatched, 1u);
  EXPECT_EQ(rep.original_span_ns, 3950);
  EXPECT_EQ(rep.replay_span_ns, 5000);
  EXPECT_DOUBLE_EQ(rep.span_error_pct(), 100.0 * 1050 / 3950);
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_sum(), 2.0);  // every replayed duration doubled
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_median, 2.0);
  EXPECT_TRUE(rep.inputs_intact);
}

// The replayer's overhead per call: begin - planned (Event::planned_ns) over the timed calls.
TEST_F(ReplayComparison, ReplayerOverheadIsTheIssueDelayOfTheTimedCalls) {
  auto p = make_replay_pair(30);
  for (Event& e : p.replayed.events) e.planned_ns = e.begin_ns - 300;
  const auto [o, r] = write(p);
  const FidelityReport rep = compare_replay(o, r);
  EXPECT_GT(rep.total.timed, 0u);
  EXPECT_EQ(rep.total.overhead_calls, rep.total.timed);
  EXPECT_DOUBLE_EQ(rep.total.overhead_mean_ns(), 300.0);
  EXPECT_DOUBLE_EQ(call_row(rep, "read").overhead_mean_ns(), 300.0);
  EXPECT_THAT(rep.to_text(), HasSubstr("ovh.us"));
  EXPECT_EQ(rep.to_json()["total"]["overhead_mean_ns"], 300.0);
}

// The replayer's timer bias in the replayed trace's header gives the corrected latency ratios.
// Timed: the 23 calls neither skipped (i % 7 == 0) nor mismatched (11, 22); original durations
// 50 (i % 3 == 0: 8 calls), 550 (7), 1050 (8), summed 12650; replayed 2x, minus the bias of 50:
// 2 x 12650 - 23 x 50 = 24150, ratio 24150 / 12650; per call 50/50 = 1 (x8), 1050/550 (x7),
// 2050/1050 (x8): the 12th of 23 is 1050/550.
TEST_F(ReplayComparison, TheTimerBiasInTheReplayedHeaderCorrectsTheLatencyRatios) {
  auto p = make_replay_pair(30);
  p.replayed.header.settings["timer_bias"] = TimerBias{50, 40, 70, 2000}.to_json();
  const auto [o, r] = write(p);
  const FidelityReport rep = compare_replay(o, r);
  EXPECT_EQ(rep.timer_bias.median_ns, 50);
  EXPECT_EQ(rep.timer_bias.p90_ns, 70);
  EXPECT_EQ(rep.total.timed, 23u);
  EXPECT_EQ(rep.total.original_ns, 12650);
  EXPECT_EQ(rep.total.replay_corrected_ns, 24150);
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_sum_corrected(), 24150.0 / 12650.0);
  EXPECT_NEAR(rep.total.latency_ratio_median_corrected, 1050.0 / 550.0, 1e-6);
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_median, 2.0);  // the raw one unchanged
}

TEST_F(ReplayComparison, ADamagedTimerBiasIsAnErrorNamingTheFile) {
  for (const nlohmann::json& bad : {nlohmann::json{{"median_ns", "soon"}}, TimerBias{-5, -6, 1, 2000}.to_json()}) {
    auto p = make_replay_pair(30);
    p.replayed.header.settings["timer_bias"] = bad;
    const auto [o, r] = write(p);
    try {
      compare_replay(o, r);
      ADD_FAILURE() << "no error for " << bad.dump();
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), HasSubstr(r));
      EXPECT_THAT(e.what(), HasSubstr("timer_bias"));
    }
  }
}

TEST_F(ReplayComparison, ReasonsFromTheSummaryInTheReplayedHeader) {
  auto p = make_replay_pair(30);
  p.replayed.header.extra["replay_summary"] = summary(30, 3);
  const auto [o, r] = write(p);
  const FidelityReport rep = compare_replay(o, r);
  EXPECT_EQ(rep.notes, "summary");
  EXPECT_EQ(call_row(rep, "openat").skipped_by_reason.at("special_path"), 3u);
  EXPECT_EQ(rep.total.skipped_by_reason,
            (std::map<std::string, uint64_t, std::less<>>{{"fd_of_refused_path", 1}, {"special_path", 3}, {"unfinished", 1}}));
  EXPECT_TRUE(rep.warnings.empty());
}

TEST_F(ReplayComparison, ASummaryFileWinsAndARowThatDisagreesKeepsItsReasonsUnknown) {
  const auto [o, r] = write(make_replay_pair(30));
  const std::string s = path("summary.json");
  std::ofstream(s) << summary(30, 4).dump();  // openat: 4 skipped, the traces say 3
  const FidelityReport rep = compare_replay(o, r, s);
  EXPECT_EQ(rep.notes, "summary");
  EXPECT_EQ(rep.timing, "think");
  EXPECT_EQ(call_row(rep, "openat").skipped_by_reason.at("reason_unknown"), 3u);
  EXPECT_EQ(call_row(rep, "read").skipped_by_reason.at("unfinished"), 1u);
  ASSERT_EQ(rep.warnings.size(), 1u);
  EXPECT_THAT(rep.warnings[0], HasSubstr("its counts of openat differ"));
}

TEST_F(ReplayComparison, AnOlderSummaryGivesTheReasonsOfTheTotal) {
  const auto [o, r] = write(make_replay_pair(30));
  const std::string s = path("old.json");
  std::ofstream(s) << nlohmann::json{{"requests", 30}, {"skipped", 5}, {"emulated", 0},
                                     {"skipped_by_reason", {{"memory_call", 5}}}}
                          .dump();
  const FidelityReport rep = compare_replay(o, r, s);
  EXPECT_EQ(rep.notes, "summary totals");
  EXPECT_EQ(rep.total.skipped_by_reason, (std::map<std::string, uint64_t, std::less<>>{{"memory_call", 5}}));
  EXPECT_EQ(call_row(rep, "read").skipped_by_reason.at("reason_unknown"), 2u);
}

TEST_F(ReplayComparison, TheSummaryOfAnotherReplayIsAnError) {
  const auto [o, r] = write(make_replay_pair(30));
  const std::string s = path("other.json"), bad = path("bad.json");
  std::ofstream(s) << summary(31, 3).dump();
  std::ofstream(bad) << "{\"requests\": 30, \"fidelity\": {\"by_call\": [{\"key\": 1}]}}";
  try {
    compare_replay(o, r, s);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("other.json: the summary of a replay of 31 calls, not of these 30"));
  }
  try {
    compare_replay(o, r, bad);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("bad.json: not a replay summary"));
  }
  EXPECT_THROW(compare_replay(o, r, path("missing.json")), Error);
}

TEST_F(ReplayComparison, AStaleSummaryInTheHeaderIsOnlyAWarning) {
  auto p = make_replay_pair(30);
  p.replayed.header.extra["replay_summary"] = summary(29, 3);
  const auto [o, r] = write(p);
  const FidelityReport rep = compare_replay(o, r);
  EXPECT_EQ(rep.notes, "none");
  ASSERT_EQ(rep.warnings.size(), 1u);
  EXPECT_THAT(rep.warnings[0], HasSubstr("not of these 30"));
}

}  // namespace
}  // namespace rastro::trace
