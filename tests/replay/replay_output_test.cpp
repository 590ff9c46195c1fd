// The replay summary's fidelity report (replay_output.h) from hand-made request records, and the
// per-call facts it needs that issue_request (request_runner.h) records: the skip reason and
// whether the replayer emulated the call.
#include "replay/runtime/replay_output.h"

#include <fcntl.h>
#include <sys/mman.h>

#include <algorithm>
#include <random>

#include <gtest/gtest.h>

#include "replay/runtime/request_runner.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TempDir;
using testing::TraceBuilder;

// A call executor over a fresh sandbox root for the trace `t` (which must outlive it).
struct ExecutorOn {
  TempDir dir;
  SandboxResolver sb{dir.path()};
  ProcessTable procs;
  CallExecutor exec;
  ThreadScratch scratch;
  explicit ExecutorOn(const trace::Trace& t) : procs(process_seeds(t)), exec(sb, procs, t.strings) {}
};

// Four traced calls and what the replay made of them (times in ns):
//   openat  1000-1100  replayed 5000-5200   ratio 2.0
//   read    1200-1400  replayed 5300-5400   mismatched
//   clone   1500-1600  replayed 5500-5501   emulated
//   mmap    1700-1800  replayed 5600-5601   skipped: memory_call
// Spans: original 800, replay 601.
TEST(ReplayOutput, SummaryCarriesTheFidelityReportPerClass) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"/f"}, 1000, 100);
  b.add(1, 1, "read", {3, 0, 10}, 10, {}, 1200, 200);
  b.add(1, 1, "clone", {0x11, 0, 0, 0, 0}, 2, {}, 1500, 100);
  b.add(1, 1, "mmap", {0, 4096, PROT_READ, MAP_PRIVATE, 3, 0}, 0x7f0000, {}, 1700, 100);
  const trace::Trace t = b.take();
  const std::vector<uint32_t> events = {0, 1, 2, 3};
  std::vector<RequestRecord> rec(4);
  rec[0] = {4900, 5000, 5200, 3, 0, SkipReason::kNone, false};  // issued 100 ns after it was due
  rec[1] = {0, 5300, 5400, 7, trace::kEventMismatch, SkipReason::kNone, false};
  rec[2] = {0, 5500, 5501, 2, 0, SkipReason::kNone, true};
  rec[3] = {0, 5600, 5601, 0x7f0000, trace::kEventSkipped, SkipReason::kUnfinished, false};
  ExecStats stats;
  stats.executed = 2;
  stats.emulated = 1;
  stats.mismatched = 1;
  stats.skipped[static_cast<size_t>(SkipReason::kUnfinished)] = 1;
  ReplaySummary s = summarize_replay(t, testing::HandRecords(events, rec).log, stats, 0, 601);
  s.timing = "think";

  const trace::FidelityReport& f = s.fidelity;
  EXPECT_EQ(f.total.calls, 4u);
  EXPECT_EQ(f.total.replayed, 3u);
  EXPECT_EQ(f.total.emulated, 1u);
  EXPECT_EQ(f.total.mismatched, 1u);
  EXPECT_EQ(f.total.skipped_by_reason, (std::map<std::string, uint64_t, std::less<>>{{"unfinished", 1}}));
  EXPECT_EQ(f.original_span_ns, 800);
  EXPECT_EQ(f.replay_span_ns, 601);
  EXPECT_EQ(f.replay_span_ns, s.wall_ns);
  std::vector<std::string> classes;
  for (const auto& c : f.by_class) classes.push_back(c.key);
  EXPECT_EQ(classes, (std::vector<std::string>{"data", "open/close", "memory", "process"}));
  EXPECT_EQ(f.total.timed, 1u);  // only the openat: the read mismatched, the clone was emulated
  EXPECT_DOUBLE_EQ(f.total.latency_ratio_sum(), 2.0);
  EXPECT_EQ(f.total.overhead_calls, 1u);
  EXPECT_DOUBLE_EQ(f.total.overhead_mean_ns(), 100.0);
  // The summary's own counters and the report agree.
  EXPECT_EQ(f.total.replayed, s.replayed);
  EXPECT_EQ(f.total.skipped, s.skipped);

  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["fidelity"]["timing"], "think");
  EXPECT_EQ(j["fidelity"]["total"]["skipped_by_reason"]["unfinished"], 1);
  EXPECT_EQ(j["fidelity"]["by_call"].size(), 4u);
  const std::string text = s.to_text();
  EXPECT_NE(text.find("fidelity: 4 calls, 3 replayed (1 emulated), 1 skipped, 1 mismatched"), std::string::npos) << text;
  EXPECT_NE(text.find("unfinished 1"), std::string::npos) << text;
  EXPECT_NE(text.find("(think timing)"), std::string::npos) << text;
}

// The traced and replayed concurrency, counted by hand (a call is in flight over [begin, end); a
// call counts itself; skipped and unfinished calls are left out):
//   traced   A 0-10, B 5-15, C 20-30, D 25-25 (zero length)   levels 1, 2, 1, 2
//   replayed A 100-200, B 300-400, C 300-350, D 500-500       levels 1, 2, 2, 1
//   E (skipped) and F (unfinished) overlap everything and count nowhere.
TEST(ReplayOutput, SummaryCountsTheTracedAndReplayedConcurrency) {
  TraceBuilder b;  // (in begin order, as take() sorts them)
  b.add(1, 1, "read", {3, 0, 1}, 1, {}, 0, 10);                                // A
  b.add(1, 3, "read", {3, 0, 1}, 1, {}, 0, 100);                               // E
  b.add(1, 4, "read", {3, 0, 1}, 1, {}, 1, 100).flags |= trace::kEventUnfinished;  // F
  b.add(1, 2, "read", {3, 0, 1}, 1, {}, 5, 10);                                // B
  b.add(1, 1, "read", {3, 0, 1}, 1, {}, 20, 10);                               // C
  b.add(1, 2, "read", {3, 0, 1}, 1, {}, 25, 0);                                // D
  const trace::Trace t = b.take();
  const std::vector<uint32_t> events = {0, 1, 2, 3, 4, 5};
  std::vector<RequestRecord> rec(6);
  rec[0] = {100, 100, 200, 1, 0, SkipReason::kNone, false};
  rec[1] = {0, 0, 1000, 0, trace::kEventSkipped, SkipReason::kUnfinished, false};
  rec[2] = {0, 0, 1000, 1, 0, SkipReason::kNone, false};
  rec[3] = {300, 300, 400, 1, 0, SkipReason::kNone, false};
  rec[4] = {300, 300, 350, 1, 0, SkipReason::kNone, false};
  rec[5] = {500, 500, 500, 1, 0, SkipReason::kNone, false};
  ExecStats stats;
  stats.executed = 5;
  stats.skipped[static_cast<size_t>(SkipReason::kUnfinished)] = 1;
  const ReplaySummary s = summarize_replay(t, testing::HandRecords(events, rec).log, stats, 0, 900);
  EXPECT_DOUBLE_EQ(s.concurrency_mean_trace, 1.5);
  EXPECT_DOUBLE_EQ(s.concurrency_mean_replay, 1.5);
  ASSERT_EQ(s.concurrency_ecdf_trace.size(), 2u);
  EXPECT_EQ(s.concurrency_ecdf_trace[0].level, 1u);
  EXPECT_DOUBLE_EQ(s.concurrency_ecdf_trace[0].cumulative, 0.5);
  EXPECT_EQ(s.concurrency_ecdf_trace[1].level, 2u);
  EXPECT_DOUBLE_EQ(s.concurrency_ecdf_trace[1].cumulative, 1.0);
  ASSERT_EQ(s.concurrency_ecdf_replay.size(), 2u);
  EXPECT_DOUBLE_EQ(s.concurrency_ecdf_replay[0].cumulative, 0.5);
  EXPECT_DOUBLE_EQ(s.concurrency_ecdf_replay[1].cumulative, 1.0);
}

// The same first call with a timer bias of 40 ns: its corrected duration 200 - 40 = 160 over the
// traced 100: 1.6, raw 2.0; the summary and its JSON carry the bias.
TEST(ReplayOutput, SummaryCorrectsTheLatencyForTheTimerBias) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"/f"}, 1000, 100);
  const trace::Trace t = b.take();
  const std::vector<uint32_t> events = {0};
  const std::vector<RequestRecord> rec = {{4900, 5000, 5200, 3, 0, SkipReason::kNone, false}};
  ExecStats stats;
  stats.executed = 1;
  const ReplaySummary s = summarize_replay(t, testing::HandRecords(events, rec).log, stats, 0, 200, trace::TimerBias{40, 30, 90, 2000});
  EXPECT_DOUBLE_EQ(s.fidelity.total.latency_ratio_sum(), 2.0);
  EXPECT_DOUBLE_EQ(s.fidelity.total.latency_ratio_sum_corrected(), 1.6);
  EXPECT_DOUBLE_EQ(s.fidelity.total.latency_ratio_median_corrected, 1.6);
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["timer_bias_ns"], 40);
  EXPECT_EQ(j["fidelity"]["timer_bias"]["p10_ns"], 30);
  EXPECT_EQ(j["fidelity"]["timer_bias"]["p90_ns"], 90);
  EXPECT_DOUBLE_EQ(j["fidelity"]["by_class"][0]["latency_ratio_median_corrected"].get<double>(), 1.6);
  EXPECT_NE(s.to_text().find("timer bias: 40 ns (p10 30, p90 90; 2000 null syscalls)"), std::string::npos) << s.to_text();
}

TEST(ReplayOutput, AKernelTimedSummaryCarriesTheMatchingAndTheUserSpaceReport) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"/f"}, 1000, 100);
  const trace::Trace t = b.take();
  const std::vector<uint32_t> events = {0};
  const std::vector<RequestRecord> user = {{4900, 5000, 5200, 3, 0, SkipReason::kNone, false}};
  const std::vector<RequestRecord> kernel = {{4900, 5050, 5150, 3, 0, SkipReason::kNone, false}};
  ExecStats stats;
  stats.executed = 1;
  ReplaySummary s = summarize_replay(t, testing::HandRecords(events, kernel).log, stats, 0, 200);
  s.kernel_timing = KernelTimingReport{.executed = 1, .matched = 1, .kernel_calls = 9};
  s.fidelity_user_space = summarize_replay(t, testing::HandRecords(events, user).log, stats, 0, 200, trace::TimerBias{40, 30, 90, 2000}).fidelity;
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["timed_with"], "ebpf");
  EXPECT_EQ(j["kernel_timing"]["matched"], 1);
  EXPECT_EQ(j["kernel_timing"]["kernel_calls"], 9);
  EXPECT_DOUBLE_EQ(j["fidelity"]["total"]["latency_ratio_sum"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["fidelity_user_space"]["total"]["latency_ratio_sum"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["fidelity_user_space"]["total"]["latency_ratio_sum_corrected"].get<double>(), 1.6);
  const std::string text = s.to_text();
  EXPECT_NE(text.find("timed with ebpf (sys_enter -> sys_exit): 1 of 1 executed calls"), std::string::npos) << text;
  EXPECT_NE(text.find("the same calls timed in user space"), std::string::npos) << text;
  EXPECT_EQ(ReplaySummary{}.to_json()["timed_with"], "user-space");
}

// The issue error's mean, max and percentiles, read from the log, are what sorting a copy of
// every request's begin - planned gave (std::nth_element at rank q(n - 1) + 0.5), for spreads
// of nanoseconds to seconds, negative errors included.
TEST(ReplayOutput, IssueErrorPercentilesAreExact) {
  TraceBuilder b;
  constexpr int kCalls = 5003;
  for (int i = 0; i < kCalls; ++i) b.add(1, 1 + i % 3, "lseek", {3, 0, SEEK_SET}, 0, {}, 1000 + 10 * i, 5);
  const trace::Trace t = b.take();
  std::mt19937_64 rng(99);
  for (int64_t spread : {int64_t{300}, int64_t{70'000}, int64_t{4'000'000'000}}) {
    std::vector<uint32_t> events;
    std::vector<RequestRecord> rec;
    std::vector<int64_t> err;
    for (uint32_t i = 0; i < kCalls; ++i) {
      const int64_t planned = 1'000'000 + 1000 * i;
      const int64_t e = static_cast<int64_t>(rng() % static_cast<uint64_t>(spread)) - spread / 10;
      events.push_back(i);
      rec.push_back({planned, planned + e, planned + e + 7, 0, 0, SkipReason::kNone, false});
      err.push_back(e);
    }
    ExecStats stats;
    stats.executed = kCalls;
    const ReplaySummary s = summarize_replay(t, testing::HandRecords(events, rec).log, stats, 0, 1);
    double sum = 0;
    for (int64_t e : err) sum += static_cast<double>(e);
    EXPECT_EQ(s.issue_error_mean_ns, sum / kCalls) << spread;
    EXPECT_EQ(s.issue_error_max_ns, *std::max_element(err.begin(), err.end())) << spread;
    for (auto [q, got] : {std::pair{0.50, s.issue_error_p50_ns}, std::pair{0.99, s.issue_error_p99_ns}}) {
      const auto k = static_cast<size_t>(q * static_cast<double>(kCalls - 1) + 0.5);
      std::nth_element(err.begin(), err.begin() + static_cast<std::ptrdiff_t>(k), err.end());
      EXPECT_EQ(got, err[k]) << "q " << q << " spread " << spread;
    }
  }
}

TEST(ReplayOutput, IssueRequestRecordsTheSkipReasonAndEmulation) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY, 0644}, 3, {"/f"});
  b.add(1, 1, "mmap", {0, 4096, PROT_READ, MAP_PRIVATE, 3, 0}, 0x7f0000);
  b.add(1, 1, "clone", {0x11, 0, 0, 0, 0}, 2);
  const trace::Trace t = b.take();
  ExecutorOn x(t);
  const RequestAction actions[] = {RequestAction::kReplay, RequestAction::kSkipUnfinished, RequestAction::kLifecycle};
  RequestRecord rec[3];
  for (size_t i = 0; i < 3; ++i)
    issue_request(x.exec, t.events[i], actions[i], nullptr, nullptr, x.procs.find(1), x.scratch, &rec[i]);
  EXPECT_EQ(rec[0].flags, 0u);
  EXPECT_EQ(rec[0].skip, SkipReason::kNone);
  EXPECT_FALSE(rec[0].emulated);
  EXPECT_EQ(rec[1].flags, trace::kEventSkipped);
  EXPECT_EQ(rec[1].skip, SkipReason::kUnfinished);
  EXPECT_FALSE(rec[1].emulated);
  EXPECT_EQ(rec[2].skip, SkipReason::kNone);
  EXPECT_TRUE(rec[2].emulated);
}

// Timed region = the call: an open is timed around its openat2 alone (not the sandbox's type
// check after it, nor the fd-table bookkeeping); a call on a name or an object begins when the
// sandbox has resolved its parent or object (that resolution is the replayer's work: it shows in
// the issue delay, the report's overhead). A read has nothing to leave out.
TEST(ReplayOutput, TimedRegionIsTheSyscallNotTheSandboxWork) {
  TraceBuilder b;
  b.add(1, 1, "mkdir", {0, 0755}, 0, {"/a"});
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY, 0644}, 3, {"/a/f"});
  b.add(1, 1, "newfstatat", {AT_FDCWD, 0, 0, 0}, 0, {"/a/f"});
  b.add(1, 1, "write", {3, 0, 10}, 10);
  const trace::Trace t = b.take();
  ExecutorOn x(t);
  RequestRecord rec[4];
  SyscallSpan marked[4];
  int64_t before[4];
  for (size_t i = 0; i < 4; ++i) {
    before[i] = monotonic_ns();
    issue_request(x.exec, t.events[i], RequestAction::kReplay, nullptr, nullptr, x.procs.find(1), x.scratch, &rec[i]);
    marked[i] = x.scratch.call;
    EXPECT_EQ(rec[i].flags, 0u) << i;
  }
  // mkdir and newfstatat: after the resolution, to the end.
  for (size_t i : {0u, 2u}) {
    EXPECT_GT(marked[i].begin_ns, before[i]) << i;
    EXPECT_EQ(rec[i].begin_ns, marked[i].begin_ns) << i;
  }
  // openat: exactly the openat2.
  EXPECT_GT(marked[1].begin_ns, before[1]);
  EXPECT_GE(marked[1].end_ns, marked[1].begin_ns);
  EXPECT_EQ(rec[1].begin_ns, marked[1].begin_ns);
  EXPECT_EQ(rec[1].end_ns, marked[1].end_ns);
  // write: the whole execution.
  EXPECT_EQ(marked[3].begin_ns, 0);
  EXPECT_GE(rec[3].begin_ns, before[3]);
}

}  // namespace
}  // namespace rastro::replay
