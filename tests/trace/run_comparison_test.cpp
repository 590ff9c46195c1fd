// `rastro compare A B` on two runs (run_comparison.h): two hand-made captures whose figures are
// worked out here by hand.
//
//   A (backend "ebpf"): read  x5, durations 100 200 300 400 500 ns (median 300, sum 1500);
//                       openat x3, durations 1000 2000 3000 (median 2000), the last one failed
//                       (-ENOENT); an unfinished read (begin only); a page fault (mm_fault).
//   B (backend "ebpf"): read  x4, durations 150 250 350 450 (median 300, sum 1200);
//                       openat x4, durations 1500 2500 3500 4500 (median 3000), two failed.
//   Spans: A from 0 to the unfinished read's begin 50'000 = 50'000; B from 1'000 to the last
//   openat's end 41'000 + 4'500 = 45'500 -> 44'500; error (44'500 - 50'000) / 50'000 = -11 %.
#include "trace/analysis/run_comparison.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/trace/replay_pair_traces.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace rastro::trace {
namespace {

using ::testing::HasSubstr;

Event call(int nr, int64_t begin, int64_t duration, int64_t rvalue) {
  Event e;
  e.pid = e.tid = 40;
  e.nr = nr;
  e.begin_ns = begin;
  e.end_ns = begin + duration;
  e.rvalue = rvalue;
  return e;
}

Trace run_a() {
  Trace t;
  t.header.backend = "ebpf";
  for (int i = 0; i < 5; ++i) t.events.push_back(call(SYS_read, 1'000 * i, 100 * (i + 1), 10));
  for (int i = 0; i < 3; ++i)
    t.events.push_back(call(SYS_openat, 10'000 + 1'000 * i, 1'000 * (i + 1), i == 2 ? -ENOENT : 3));
  Event unfinished = call(SYS_read, 50'000, 0, 0);
  unfinished.end_ns = 0;
  unfinished.flags = kEventUnfinished;
  t.events.push_back(unfinished);
  Event fault = call(-1, 20'000, 0, 0);
  fault.flags = kEventPageFault;
  fault.name = t.strings.intern("mm_fault");
  t.events.push_back(fault);
  return t;
}

Trace run_b() {
  Trace t;
  t.header.backend = "ebpf";
  for (int i = 0; i < 4; ++i) t.events.push_back(call(SYS_read, 1'000 + 1'000 * i, 150 + 100 * i, 10));
  for (int i = 0; i < 4; ++i)
    t.events.push_back(call(SYS_openat, 11'000 + 10'000 * i, 1'500 + 1'000 * i, i % 2 ? -ENOENT : 3));
  return t;
}

const RunRow& row(const std::vector<RunRow>& rows, const std::string& key) {
  for (const auto& r : rows)
    if (r.key == key) return r;
  static RunRow none;
  ADD_FAILURE() << "no row " << key;
  return none;
}

class RunComparisonTest : public testing::ReplayPairFiles {};

TEST_F(RunComparisonTest, EachRunIsSummarisedOnItsOwnAndTheSummariesCompared) {
  write_trace(path("a.rastro"), run_a());
  write_trace(path("b.rastro"), run_b());
  const RunComparison c = compare_runs(path("a.rastro"), path("b.rastro"));

  const RunRow& read = row(c.by_call, "read");
  EXPECT_EQ(read.call_class, "data");
  EXPECT_EQ(read.calls[0], 6u);  // the unfinished one counts as a call, not as a latency
  EXPECT_EQ(read.calls[1], 4u);
  EXPECT_EQ(read.timed[0], 5u);
  EXPECT_EQ(read.sum_ns[0], 1500);
  EXPECT_EQ(read.sum_ns[1], 1200);
  EXPECT_DOUBLE_EQ(read.median_ns[0], 300);
  EXPECT_DOUBLE_EQ(read.median_ns[1], 300);  // R type 7: (250 + 350) / 2
  EXPECT_DOUBLE_EQ(read.latency_ratio_sum(), 0.8);
  EXPECT_DOUBLE_EQ(read.latency_ratio_median(), 1.0);

  const RunRow& openat = row(c.by_call, "openat");
  EXPECT_EQ(openat.call_class, "open/close");
  EXPECT_EQ(openat.failed[0], 1u);
  EXPECT_EQ(openat.failed[1], 2u);
  EXPECT_DOUBLE_EQ(openat.median_ns[0], 2000);
  EXPECT_DOUBLE_EQ(openat.median_ns[1], 3000);
  EXPECT_DOUBLE_EQ(openat.latency_ratio_median(), 1.5);
  EXPECT_DOUBLE_EQ(openat.latency_ratio_sum(), 12'000.0 / 6'000.0);

  const RunRow& fault = row(c.by_call, "mm_fault");
  EXPECT_EQ(fault.calls[0], 1u);
  EXPECT_EQ(fault.calls[1], 0u);
  EXPECT_EQ(fault.timed[0], 0u);
  EXPECT_EQ(fault.latency_ratio_median(), 0);  // nothing to compare: shown as "-"

  // Classes: their calls' sums; the median over the class's merged durations.
  const RunRow& data = row(c.by_class, "data");
  EXPECT_EQ(data.sum_ns[0], 1500);
  EXPECT_EQ(c.total.calls[0], 10u);
  EXPECT_EQ(c.total.calls[1], 8u);
  EXPECT_EQ(c.total.failed[0], 1u);
  EXPECT_EQ(c.total.timed[0], 8u);
  // A's 8 timed durations 100..500, 1000, 2000, 3000: median (400 + 500) / 2.
  EXPECT_DOUBLE_EQ(c.total.median_ns[0], 450);
  // B's: 150 250 350 450 1500 2500 3500 4500: (450 + 1500) / 2.
  EXPECT_DOUBLE_EQ(c.total.median_ns[1], 975);

  EXPECT_EQ(c.span_ns[0], 50'000);
  EXPECT_EQ(c.span_ns[1], 44'500);
  EXPECT_DOUBLE_EQ(c.span_error_pct(), -11.0);
  EXPECT_TRUE(c.warnings.empty());
  EXPECT_TRUE(c.inputs_intact);

  const std::string text = c.to_text(true);
  EXPECT_THAT(text, HasSubstr("error -11.0 %"));
  EXPECT_THAT(text, HasSubstr("openat"));
  const auto j = c.to_json();
  EXPECT_EQ(j["mode"], "runs");
  EXPECT_EQ(j["by_class"].size(), c.by_class.size());
}

TEST_F(RunComparisonTest, ARunAgainstItselfHasNoErrorAndRatiosOfOne) {
  write_trace(path("a.rastro"), run_a());
  const RunComparison c = compare_runs(path("a.rastro"), path("a.rastro"));
  EXPECT_EQ(c.span_error_pct(), 0);
  for (const auto& r : c.by_call) {
    if (r.timed[0] == 0) continue;
    EXPECT_DOUBLE_EQ(r.latency_ratio_median(), 1.0) << r.key;
  }
}

TEST_F(RunComparisonTest, TwoInstrumentsAreNamedInAWarning) {
  Trace b = run_b();
  b.header.backend = "ptrace";
  write_trace(path("a.rastro"), run_a());
  write_trace(path("b.rastro"), b);
  const RunComparison c = compare_runs(path("a.rastro"), path("b.rastro"));
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_THAT(c.warnings[0], HasSubstr("A was recorded by ebpf and B by ptrace"));
}

TEST_F(RunComparisonTest, AReplayerOutputIsToldFromACapture) {
  const auto [original, replayed] = write(testing::make_replay_pair(10));
  EXPECT_FALSE(is_replay_output(original));
  EXPECT_TRUE(is_replay_output(replayed));
  write_trace(path("empty.rastro"), Trace{});
  EXPECT_FALSE(is_replay_output(path("empty.rastro")));
  EXPECT_THROW(is_replay_output(path("missing.rastro")), Error);
  EXPECT_THROW(compare_runs(path("missing.rastro"), original), Error);
}

}  // namespace
}  // namespace rastro::trace
