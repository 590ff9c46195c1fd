// The fidelity report on ten hand-made pairs of (original call, its replay) whose every figure is
// worked out below by hand.
//
//   #  tid call        original     dur  replay          dur  outcome
//   0  1   openat      1000-1100    100  10000-10300     300  executed        ratio 3.0
//   1  1   read        1200-1400    200  10400-10500     100  executed        ratio 0.5
//   2  1   read        1500-1900    400  10600-11000     400  executed        ratio 1.0
//   3  2   read        1600-1700    100  10700-10950     250  executed        ratio 2.5
//   4  2   read        1800-1850     50  10950-10951       1  skipped fd_of_refused_path
//   5  2   write       1900-2000    100  11000-11500     500  mismatched      (no latency)
//   6  1   clone       2000-2100    100  11100-11101       1  emulated        (no latency)
//   7  2   frobnicate  2100-2200    100  11200-11201       1  skipped, reason not given
//   8  1   fsync       2200-3000    800  11200-12400    1200  executed        ratio 1.5
//   9  1   read        2900 unfinished   12300-12300       0  skipped unfinished
//
// Spans: original 1000..3000 = 2000 (the unfinished read ends at its begin, 2900); replay
// 10000..12400 = 2400: +20 %. Replayed 7 (0,1,2,3,5,6,8), skipped 3, mismatched 1, emulated 1:
// faithful 6/10 = 60 %. Timed 0,1,2,3,8: original 1600, replay 2250, ratio of sums 1.40625;
// ratios 0.5 1.0 1.5 2.5 3.0, median 1.5.
//
// With a timer bias of 150 ns, the corrected replayed durations of the timed calls are 300-150 =
// 150, 100-150 -> 0 (floored), 400-150 = 250, 250-150 = 100, 1200-150 = 1050: summed 1550 / 1600 =
// 0.96875; ratios 1.5 0 0.625 1.0 1.3125, median 1.0. Data (reads 1-3): 350 / 700 = 0.5, ratios
// 0 0.625 1.0, median 0.625; sync: 1050 / 800 = 1.3125; open/close: 1.5.
#include "trace/analysis/replay_fidelity.h"

#include <sys/syscall.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rastro::trace {
namespace {

struct Pair {
  int32_t tid;
  int nr;
  std::string name;
  int64_t begin, end;
  bool unfinished;
  int64_t rbegin, rend;
  uint32_t rflags;
  std::string reason;
  bool emulated;
};

std::vector<Pair> pairs() {
  const uint32_t S = kEventSkipped, M = kEventMismatch;
  return {
      {1, SYS_openat, "openat", 1000, 1100, false, 10000, 10300, 0, "", false},
      {1, SYS_read, "read", 1200, 1400, false, 10400, 10500, 0, "", false},
      {1, SYS_read, "read", 1500, 1900, false, 10600, 11000, 0, "", false},
      {2, SYS_read, "read", 1600, 1700, false, 10700, 10950, 0, "", false},
      {2, SYS_read, "read", 1800, 1850, false, 10950, 10951, S, "fd_of_refused_path", false},
      {2, SYS_write, "write", 1900, 2000, false, 11000, 11500, M, "", false},
      {1, SYS_clone, "clone", 2000, 2100, false, 11100, 11101, 0, "", true},
      {2, -1, "frobnicate", 2100, 2200, false, 11200, 11201, S, "", false},
      {1, SYS_fsync, "fsync", 2200, 3000, false, 11200, 12400, 0, "", false},
      {1, SYS_read, "read", 2900, 2900, true, 12300, 12300, S, "unfinished", false},
  };
}

// With what the replayer knows (`informed`), or as a replayed trace alone shows it.
FidelityAccumulator accumulate(bool informed, const TimerBias& bias = {}) {
  FidelityAccumulator acc(bias);
  for (const Pair& p : pairs()) {
    Event e;
    e.pid = 1;
    e.tid = p.tid;
    e.nr = p.nr;
    e.begin_ns = p.begin;
    e.end_ns = p.end;
    if (p.unfinished) e.flags = kEventUnfinished;
    ReplayedCall r{p.rbegin, p.rend, p.rflags, {}, Emulation::kUnknown};
    if (informed) {
      r.skip_reason = p.reason;
      r.emulation = p.emulated ? Emulation::kEmulated : Emulation::kExecuted;
    }
    acc.add(e, p.name, r);
  }
  return acc;
}

const FidelityRow& row(const std::vector<FidelityRow>& rows, const std::string& key) {
  for (const auto& r : rows)
    if (r.key == key) return r;
  static FidelityRow none;
  ADD_FAILURE() << "no row " << key;
  return none;
}

void expect_totals(const FidelityReport& rep) {
  EXPECT_EQ(rep.original_span_ns, 2000);
  EXPECT_EQ(rep.replay_span_ns, 2400);
  EXPECT_DOUBLE_EQ(rep.span_error_pct(), 20.0);
  EXPECT_EQ(rep.total.calls, 10u);
  EXPECT_EQ(rep.total.replayed, 7u);
  EXPECT_EQ(rep.total.skipped, 3u);
  EXPECT_EQ(rep.total.mismatched, 1u);
  EXPECT_DOUBLE_EQ(rep.total.faithful_pct(), 60.0);
  EXPECT_EQ(rep.total.timed, 5u);
  EXPECT_EQ(rep.total.original_ns, 1600);
  EXPECT_EQ(rep.total.replay_ns, 2250);
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_sum(), 1.40625);
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_median, 1.5);
}

TEST(ReplayFidelity, HandComputedReport) {
  FidelityReport rep = accumulate(true).finish();
  expect_totals(rep);
  EXPECT_EQ(rep.total.emulated, 1u);
  EXPECT_EQ(rep.total.skipped_by_reason,
            (std::map<std::string, uint64_t, std::less<>>{{"fd_of_refused_path", 1}, {"reason_unknown", 1}, {"unfinished", 1}}));

  std::vector<std::string> classes;
  for (const auto& c : rep.by_class) classes.push_back(c.key);
  EXPECT_EQ(classes, (std::vector<std::string>{"data", "sync", "open/close", "process", "other"}));
  std::vector<std::string> calls;
  for (const auto& c : rep.by_call) calls.push_back(c.key);
  EXPECT_EQ(calls, (std::vector<std::string>{"read", "write", "fsync", "openat", "clone", "frobnicate"}));

  const FidelityRow& data = row(rep.by_class, "data");  // reads 1-4 and 9, write 5
  EXPECT_EQ(data.calls, 6u);
  EXPECT_EQ(data.replayed, 4u);
  EXPECT_EQ(data.skipped, 2u);
  EXPECT_EQ(data.mismatched, 1u);
  EXPECT_DOUBLE_EQ(data.faithful_pct(), 50.0);
  EXPECT_EQ(data.timed, 3u);
  EXPECT_DOUBLE_EQ(data.latency_ratio_sum(), 750.0 / 700.0);
  EXPECT_DOUBLE_EQ(data.latency_ratio_median, 1.0);  // 0.5 1.0 2.5

  const FidelityRow& read = row(rep.by_call, "read");
  EXPECT_EQ(read.call_class, "data");
  EXPECT_EQ(read.skipped_by_reason,
            (std::map<std::string, uint64_t, std::less<>>{{"fd_of_refused_path", 1}, {"unfinished", 1}}));
  const FidelityRow& write = row(rep.by_call, "write");
  EXPECT_EQ(write.mismatched, 1u);
  EXPECT_EQ(write.timed, 0u);
  EXPECT_DOUBLE_EQ(write.latency_ratio_sum(), 0.0);

  const FidelityRow& clone = row(rep.by_class, "process");
  EXPECT_EQ(clone.emulated, 1u);
  EXPECT_EQ(clone.replayed, 1u);
  EXPECT_EQ(clone.timed, 0u);
  EXPECT_DOUBLE_EQ(row(rep.by_class, "open/close").latency_ratio_median, 3.0);
  EXPECT_DOUBLE_EQ(row(rep.by_class, "sync").latency_ratio_sum(), 1.5);
  EXPECT_EQ(row(rep.by_class, "other").skipped_by_reason.at("reason_unknown"), 1u);
}

TEST(ReplayFidelity, CorrectedRatiosSubtractTheTimerBiasFlooredAtZero) {
  const FidelityReport rep = accumulate(true, TimerBias{150, 120, 400, 2000}).finish();
  expect_totals(rep);  // the raw figures do not move
  EXPECT_EQ(rep.timer_bias.median_ns, 150);
  EXPECT_EQ(rep.total.replay_corrected_ns, 1550);
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_sum_corrected(), 0.96875);
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_median_corrected, 1.0);
  const FidelityRow& data = row(rep.by_class, "data");
  EXPECT_DOUBLE_EQ(data.latency_ratio_sum_corrected(), 0.5);
  EXPECT_DOUBLE_EQ(data.latency_ratio_median_corrected, 0.625);
  EXPECT_DOUBLE_EQ(row(rep.by_call, "read").latency_ratio_median_corrected, 0.625);
  EXPECT_DOUBLE_EQ(row(rep.by_class, "sync").latency_ratio_sum_corrected(), 1.3125);
  EXPECT_DOUBLE_EQ(row(rep.by_class, "open/close").latency_ratio_median_corrected, 1.5);
}

TEST(ReplayFidelity, WithoutATimerBiasCorrectedEqualsRaw) {
  const FidelityReport rep = accumulate(true).finish();
  EXPECT_EQ(rep.timer_bias.samples, 0u);
  EXPECT_EQ(rep.total.replay_corrected_ns, rep.total.replay_ns);
  EXPECT_DOUBLE_EQ(rep.total.latency_ratio_median_corrected, rep.total.latency_ratio_median);
  EXPECT_NE(rep.to_text().find("timer bias: not measured"), std::string::npos) << rep.to_text();
  const FidelityReport negative = accumulate(true, TimerBias{-100, -120, -80, 2000}).finish();  // damaged: none
  EXPECT_EQ(negative.total.replay_corrected_ns, negative.total.replay_ns);
  EXPECT_EQ(negative.timer_bias.samples, 0u);
}

TEST(ReplayFidelity, AKernelTimedReplayHasNoTimerBiasAndSaysWhy) {
  FidelityReport rep = accumulate(true).finish();
  rep.timed_with = "ebpf";
  EXPECT_NE(rep.to_text().find("timer bias: none, the replay was timed in the kernel"), std::string::npos)
      << rep.to_text();
  EXPECT_EQ(rep.to_json()["timed_with"], "ebpf");
  rep.timed_with = "user-space";
  EXPECT_NE(rep.to_text().find("timer bias: not measured"), std::string::npos) << rep.to_text();
}

TEST(ReplayFidelity, NotesFromTheReplayerFillWhatTheTracesDoNotSay) {
  FidelityAccumulator acc = accumulate(false);
  std::map<std::string, ReplayerCallNote, std::less<>> notes;
  notes["read"] = {5, 3, 2, 0, {{"fd_of_refused_path", 1}, {"unfinished", 1}}};
  notes["clone"] = {1, 1, 0, 1, {}};
  notes["frobnicate"] = {1, 0, 2, 0, {{"unsupported", 2}}};  // disagrees: 2 skipped, the traces say 1
  const auto disagreed = acc.apply_notes(notes);
  EXPECT_EQ(disagreed, (std::vector<std::string>{"frobnicate"}));
  FidelityReport rep = acc.finish();
  expect_totals(rep);  // the clone, all emulated, left the latency figures
  EXPECT_EQ(rep.total.emulated, 1u);
  EXPECT_EQ(row(rep.by_call, "read").skipped_by_reason.at("unfinished"), 1u);
  EXPECT_EQ(row(rep.by_call, "frobnicate").skipped_by_reason,
            (std::map<std::string, uint64_t, std::less<>>{{"reason_unknown", 1}}));
}

TEST(ReplayFidelity, WithoutNotesSkipsHaveNoReasonAndEmulationIsUnknown) {
  FidelityReport rep = accumulate(false).finish();
  EXPECT_EQ(rep.total.skipped_by_reason, (std::map<std::string, uint64_t, std::less<>>{{"reason_unknown", 3}}));
  EXPECT_EQ(rep.total.emulated, 0u);
  EXPECT_EQ(rep.total.timed, 6u);  // the clone is timed: nothing said it was emulated
  EXPECT_NE(rep.to_text().find("reason unknown 3"), std::string::npos) << rep.to_text();
}

TEST(ReplayFidelity, JsonAndText) {
  FidelityReport rep = accumulate(true).finish();
  rep.timing = "think";
  const nlohmann::json j = rep.to_json();
  EXPECT_EQ(j["timing"], "think");
  EXPECT_DOUBLE_EQ(j["span_error_pct"].get<double>(), 20.0);
  EXPECT_EQ(j["total"]["calls"], 10);
  EXPECT_DOUBLE_EQ(j["total"]["faithful_pct"].get<double>(), 60.0);
  EXPECT_EQ(j["by_class"][0]["key"], "data");
  EXPECT_EQ(j["by_call"][0]["class"], "data");
  EXPECT_EQ(j["by_call"][0]["skipped_by_reason"]["unfinished"], 1);
  EXPECT_EQ(j["timer_bias_ns"], 0);
  EXPECT_TRUE(j["total"].contains("latency_ratio_sum_corrected"));
  EXPECT_TRUE(j["total"].contains("latency_ratio_median_corrected"));
  const nlohmann::json jb = accumulate(true, TimerBias{150, 120, 400, 2000}).finish().to_json();
  EXPECT_EQ(jb["timer_bias_ns"], 150);
  EXPECT_EQ(jb["timer_bias"]["p90_ns"], 400);
  EXPECT_EQ(jb["timer_bias"]["samples"], 2000);
  EXPECT_DOUBLE_EQ(jb["total"]["latency_ratio_sum_corrected"].get<double>(), 0.96875);
  EXPECT_DOUBLE_EQ(jb["by_class"][0]["latency_ratio_median_corrected"].get<double>(), 0.625);  // data
  EXPECT_EQ(TimerBias::from_json(jb["timer_bias"])->p10_ns, 120);
  const std::string text = rep.to_text(true);
  for (const char* want : {"lat.sum-b", "lat.med-b", "+20.0 %", "(think timing)", "fd_of_refused_path 1", "reason unknown 1", "frobnicate", "60.00"})
    EXPECT_NE(text.find(want), std::string::npos) << want << " in\n" << text;
  EXPECT_EQ(rep.to_text(false).find("frobnicate"), std::string::npos);  // per syscall only when asked
}

TEST(ReplayFidelity, Thresholds) {
  const FidelityReport rep = accumulate(true).finish();  // +20 %, 60 % faithful
  EXPECT_TRUE(threshold_failures(rep, {}).empty());
  EXPECT_TRUE(threshold_failures(rep, {25.0, 60.0}).empty());
  EXPECT_EQ(threshold_failures(rep, {10.0, std::nullopt}).size(), 1u);
  EXPECT_EQ(threshold_failures(rep, {std::nullopt, 60.5}).size(), 1u);
  EXPECT_EQ(threshold_failures(rep, {19.9, 99.5}).size(), 2u);
}

TEST(ReplayFidelity, EmptyReport) {
  const FidelityReport rep = FidelityAccumulator{}.finish();
  EXPECT_EQ(rep.total.calls, 0u);
  EXPECT_DOUBLE_EQ(rep.span_error_pct(), 0.0);
  EXPECT_TRUE(rep.by_class.empty());
}

}  // namespace
}  // namespace rastro::trace
