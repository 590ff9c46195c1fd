// apply_kernel_timing (kernel_timing.h) on hand-made records and kernel calls: which call each
// executed request gets, and every reason a request keeps its user-space times.
#include "replay/runtime/kernel_timing.h"

#include <sys/syscall.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "replay_test_util.h"
#include "trace_builder_plan.h"

namespace rastro::replay {
namespace {

using capture::ebpf::KernelCall;
using capture::ebpf::SelfCallTimes;

// Two traced threads (tids 10, 11), each: pread64 then fstat.
Plan two_thread_plan() {
  testing::PlanTraceBuilder b;
  b.add(1, 10, 100, 200, "pread64", {3, int64_t{0}, 10, 0}, 10);
  b.add(1, 11, 110, 210, "pread64", {3, int64_t{0}, 10, 0}, 10);
  b.add(1, 10, 300, 400, "fstat", {3, int64_t{0}}, 0);
  b.add(1, 11, 310, 410, "fstat", {3, int64_t{0}}, 0);
  return testing::hand_plan(b.take(), false);
}

RequestRecord user_span(int64_t begin, int64_t end) {
  RequestRecord r;
  r.begin_ns = begin;
  r.end_ns = end;
  return r;
}

TEST(KernelTiming, EachRequestGetsTheCallInsideItsSpanOnItsThread) {
  Plan plan = two_thread_plan();
  // Requests 0 and 2 ran on OS thread 500, 1 and 3 on 501; the spans of 0 and 1 overlap.
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(1500, 2500), user_span(3000, 4000),
                                    user_span(3000, 4000)};
  SelfCallTimes t;
  t.calls = {{500, SYS_pread64, 1100, 1900}, {501, SYS_pread64, 1600, 2400}, {500, SYS_futex, 900, 950},
             {500, SYS_fstat, 3100, 3200}, {501, SYS_fstat, 3300, 3900}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t);
  EXPECT_EQ(rep.executed, 4u);
  EXPECT_EQ(rep.matched, 4u);
  EXPECT_EQ(rep.matched_other_nr, 0u);
  EXPECT_EQ(rep.kernel_calls, 5u);
  EXPECT_EQ(rec[0].begin_ns, 1100);
  EXPECT_EQ(rec[0].end_ns, 1900);
  EXPECT_EQ(rec[1].begin_ns, 1600);
  EXPECT_EQ(rec[1].end_ns, 2400);
  // Requests 2 and 3 have identical spans holding both fstats: each takes its plan thread's OS
  // thread, learnt from requests 0 and 1.
  EXPECT_EQ(rec[2].begin_ns, 3100);
  EXPECT_EQ(rec[3].begin_ns, 3300);
  EXPECT_EQ(rep.ambiguous, 0u);
}

TEST(KernelTiming, AnEquivalentSyscallIsTakenWhenItIsTheOnlyCallInTheSpan) {
  Plan plan = two_thread_plan();
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(5000, 6000), user_span(3000, 4000),
                                    user_span(7000, 8000)};
  SelfCallTimes t;
  // fstat replayed as newfstatat; request 3's span holds two calls of other numbers: unmatched.
  t.calls = {{500, SYS_pread64, 1100, 1900}, {501, SYS_pread64, 5100, 5900}, {500, SYS_newfstatat, 3100, 3200},
             {501, SYS_openat, 7100, 7200}, {501, SYS_newfstatat, 7300, 7400}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t);
  EXPECT_EQ(rep.matched, 3u);
  EXPECT_EQ(rep.matched_other_nr, 1u);
  EXPECT_EQ(rec[2].begin_ns, 3100);
  EXPECT_EQ(rep.ambiguous, 1u);
  EXPECT_EQ(rec[3].begin_ns, 7000);  // kept
  EXPECT_EQ(rep.unmatched(), 1u);
  // The unmatched call is named, with why, in the summary and its text.
  ASSERT_EQ(rep.examples.size(), 1u);
  EXPECT_EQ(rep.examples[0].request, 3u);
  EXPECT_EQ(rep.examples[0].thread, 1u);
  const nlohmann::json ex = rep.to_json().at("unmatched_examples");
  ASSERT_EQ(ex.size(), 1u);
  EXPECT_EQ(ex[0].at("syscall"), "fstat");
  EXPECT_EQ(ex[0].at("reason"), "several calls in its span, none the only one of its number");
  EXPECT_NE(rep.to_text().find("user-space times kept for request 3 (fstat, plan thread 1)"), std::string::npos)
      << rep.to_text();
}

TEST(KernelTiming, ARequestOnAThreadTheEngineNamedTakesOnlyThatThreadsCalls) {
  // Requests 0 and 2 ran on OS thread 500, 1 and 3 on 501 (the engine says so). Request 2 (fstat
  // of thread 0) made no call of its own; its span holds 501's fstat, which is request 3's. By
  // containment it would take it, and request 3 would be left ambiguous.
  Plan plan = two_thread_plan();
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(5000, 6000), user_span(3000, 4000),
                                    user_span(3050, 3300)};
  SelfCallTimes t;
  t.calls = {{500, SYS_pread64, 1100, 1900}, {501, SYS_pread64, 5100, 5900}, {501, SYS_fstat, 3100, 3200}};
  const std::vector<int32_t> os_threads = {500, 501, 500, 501};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t, {}, {}, os_threads);
  EXPECT_EQ(rep.matched, 3u);
  EXPECT_EQ(rep.ambiguous, 0u);
  EXPECT_EQ(rep.no_kernel_call, 1u);
  EXPECT_EQ(rec[2].begin_ns, 3000);  // kept
  EXPECT_EQ(rec[3].begin_ns, 3100);
  ASSERT_EQ(rep.examples.size(), 1u);
  EXPECT_EQ(rep.examples[0].request, 2u);
  // Without the engine's word, the same calls leave request 3 without its call.
  rec = {user_span(1000, 2000), user_span(5000, 6000), user_span(3000, 4000), user_span(3050, 3300)};
  rep = apply_kernel_timing(plan, rec, t);
  EXPECT_EQ(rep.ambiguous, 1u);
}

TEST(KernelTiming, TheSandboxsCloseAfterACallOnANameIsNotTheCall) {
  testing::PlanTraceBuilder b;
  b.add(1, 10, 100, 200, "mkdir", {std::string("/d"), 0755}, 0);
  b.add(1, 10, 300, 400, "close", {3}, 0);
  Plan plan = testing::hand_plan(b.take(), false);
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(3000, 4000)};
  SelfCallTimes t;
  t.calls = {{500, SYS_mkdirat, 1100, 1500}, {500, SYS_close, 1600, 1700}, {500, SYS_close, 3100, 3200}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t);
  EXPECT_EQ(rep.matched, 2u);
  EXPECT_EQ(rep.matched_other_nr, 1u);
  EXPECT_EQ(rec[0].begin_ns, 1100);
  EXPECT_EQ(rec[0].end_ns, 1500);
  EXPECT_EQ(rec[1].begin_ns, 3100);
}

// stat of a name then fstat of an fd, on traced thread 10 (OS thread 500).
Plan stat_then_fstat_plan() {
  testing::PlanTraceBuilder b;
  b.add(1, 10, 100, 200, "stat", {std::string("/d/f"), 0}, 0);
  b.add(1, 10, 300, 400, "fstat", {3, int64_t{0}}, 0);
  return testing::hand_plan(b.take(), false);
}

TEST(KernelTiming, ACallOnANameIsTimedWithTheSandboxsWalkOfItsPath) {
  Plan plan = stat_then_fstat_plan();
  // The stat's timed region was narrowed to [1000, 2000] after its resolution (issued at 900);
  // the fstat was not narrowed (issued = its begin).
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(3000, 4000)};
  const std::vector<int64_t> issued = {900, 3000};
  SelfCallTimes t;
  t.calls = {{500, SYS_openat2, 850, 890},        // before the request: not its walk
             {500, SYS_openat2, 920, 980},        // the resolution: the walk
             {501, SYS_openat2, 930, 970},        // another OS thread's
             {500, SYS_newfstatat, 1100, 1300},   // the call
             {500, SYS_close, 1400, 1500},        // the sandbox's close of its O_PATH fd
             {500, SYS_openat2, 2900, 2950},      // inside no request's window
             {500, SYS_fstat, 3100, 3200}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t, issued);
  EXPECT_EQ(rep.matched, 2u);
  EXPECT_EQ(rep.with_walk, 1u);
  EXPECT_EQ(rep.walk_only, 0u);
  // Ends at the call's sys_exit; lasts the walk (60) plus the call (200).
  EXPECT_EQ(rec[0].end_ns, 1300);
  EXPECT_EQ(rec[0].begin_ns, 1300 - 200 - 60);
  EXPECT_EQ(rec[1].begin_ns, 3100);
  EXPECT_EQ(rec[1].end_ns, 3200);
  EXPECT_NE(rep.to_text().find("1 calls on a name with the sandbox's openat2 walk"), std::string::npos)
      << rep.to_text();
  EXPECT_EQ(rep.to_json()["with_walk"], 1);
}

TEST(KernelTiming, AWalkCountsForItsOpenat2LessWhatAnOpenat2OfTheRootCosts) {
  Plan plan = stat_then_fstat_plan();
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(3000, 3010)};
  const std::vector<int64_t> issued = {900, 2900};
  SelfCallTimes t;
  // The calibration on OS thread 600 in [100, 500]: openat2 of the root, median 40 ns.
  t.calls = {{600, SYS_openat2, 100, 130}, {600, SYS_openat2, 200, 240}, {600, SYS_openat2, 300, 350},
             {600, SYS_openat2, 600, 700},  // after the calibration: not one of it
             {500, SYS_openat2, 920, 980}, {500, SYS_newfstatat, 1100, 1300},
             {500, SYS_openat2, 2920, 2950}};  // request 1 (fstat traced; a failed walk alone here)
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t, issued, ResolutionCalibration{600, 100, 500});
  EXPECT_EQ(rep.open_fixed_ns, 40);
  EXPECT_EQ(rec[0].end_ns, 1300);
  EXPECT_EQ(rec[0].begin_ns, 1300 - 200 - (60 - 40));
  // A walk alone keeps its whole openat2: a syscall that failed in its walk, like the traced one.
  EXPECT_EQ(rep.walk_only, 1u);
  EXPECT_EQ(rec[1].begin_ns, 2920);
  EXPECT_EQ(rec[1].end_ns, 2950);
  // A walk shorter than the fixed cost adds nothing.
  rec = {user_span(1000, 2000), user_span(3000, 3010)};
  t.calls[4] = {500, SYS_openat2, 920, 950};
  apply_kernel_timing(plan, rec, t, issued, ResolutionCalibration{600, 100, 500});
  EXPECT_EQ(rec[0].begin_ns, 1100);
}

TEST(KernelTiming, WithoutIssueBeginsACallOnANameIsTheCallAlone) {
  Plan plan = stat_then_fstat_plan();
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(3000, 4000)};
  SelfCallTimes t;
  t.calls = {{500, SYS_openat2, 920, 980}, {500, SYS_newfstatat, 1100, 1300}, {500, SYS_fstat, 3100, 3200}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t);
  EXPECT_EQ(rep.with_walk, 0u);
  EXPECT_EQ(rec[0].begin_ns, 1100);
}

TEST(KernelTiming, AFailedResolutionIsTimedAsTheWalkAlone) {
  // The stat's parent is missing: openat2 returned ENOENT and no call followed; the traced stat
  // walked its path to the same ENOENT.
  Plan plan = stat_then_fstat_plan();
  std::vector<RequestRecord> rec = {user_span(1000, 1010), user_span(3000, 4000)};
  const std::vector<int64_t> issued = {900, 3000};
  SelfCallTimes t;
  t.calls = {{500, SYS_openat2, 920, 990}, {500, SYS_fstat, 3100, 3200}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t, issued);
  EXPECT_EQ(rep.matched, 2u);
  EXPECT_EQ(rep.no_kernel_call, 0u);
  EXPECT_EQ(rep.walk_only, 1u);
  EXPECT_EQ(rec[0].begin_ns, 920);
  EXPECT_EQ(rec[0].end_ns, 990);
  // Without a walk in its window it has no kernel call, as before.
  rec = {user_span(1000, 1010), user_span(3000, 4000)};
  t.calls = {{500, SYS_openat2, 800, 890}, {500, SYS_fstat, 3100, 3200}};
  rep = apply_kernel_timing(plan, rec, t, issued);
  EXPECT_EQ(rep.no_kernel_call, 1u);
  EXPECT_EQ(rec[0].begin_ns, 1000);
}

TEST(KernelTiming, AFailedResolutionOnSeveralWalkingThreadsTakesItsPlanThreadsOsThread) {
  testing::PlanTraceBuilder b;
  b.add(1, 10, 100, 200, "fstat", {3, int64_t{0}}, 0);
  b.add(1, 10, 300, 400, "stat", {std::string("/d/f"), 0}, -2);
  Plan plan = testing::hand_plan(b.take(), false);
  std::vector<RequestRecord> rec = {user_span(100, 200), user_span(1000, 1010)};
  const std::vector<int64_t> issued = {100, 900};
  SelfCallTimes t;
  // The fstat says plan thread 0 runs on OS thread 501; OS thread 500 walked at the same time.
  t.calls = {{501, SYS_fstat, 110, 190}, {500, SYS_openat2, 910, 995}, {501, SYS_openat2, 920, 990}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t, issued);
  EXPECT_EQ(rep.walk_only, 1u);
  EXPECT_EQ(rec[1].begin_ns, 920);
  EXPECT_EQ(rec[1].end_ns, 990);
}

TEST(KernelTiming, ACallOutsideTheSpanOrAnIoUringEnterIsNeverTaken) {
  Plan plan = two_thread_plan();
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(5000, 6000), user_span(3000, 4000),
                                    user_span(7000, 8000)};
  SelfCallTimes t;
  t.calls = {{500, SYS_pread64, 900, 1900},     // begins before the span
             {501, SYS_pread64, 5100, 6100},    // ends after it
             {500, SYS_io_uring_enter, 3100, 3200}};
  t.lost = 7;
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t);
  EXPECT_EQ(rep.matched, 0u);
  EXPECT_EQ(rep.no_kernel_call, 4u);
  EXPECT_EQ(rep.lost, 7u);
  EXPECT_EQ(rec[0].begin_ns, 1000);
  EXPECT_EQ(rec[1].end_ns, 6000);
  EXPECT_EQ(rec[2].begin_ns, 3000);
}

TEST(KernelTiming, SkippedEmulatedAndRingRequestsKeepTheirTimes) {
  Plan plan = two_thread_plan();
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(5000, 6000), user_span(3000, 4000),
                                    user_span(7000, 8000)};
  rec[0].skip = SkipReason::kUnsupported;
  rec[0].flags = trace::kEventSkipped;
  rec[1].emulated = true;
  rec[2].flags = trace::kEventUring;
  SelfCallTimes t;
  t.calls = {{500, SYS_pread64, 1100, 1900}, {501, SYS_pread64, 5100, 5900}, {500, SYS_fstat, 3100, 3200},
             {501, SYS_fstat, 7100, 7200}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t);
  EXPECT_EQ(rep.not_executed, 3u);
  EXPECT_EQ(rep.executed, 1u);
  EXPECT_EQ(rep.matched, 1u);
  EXPECT_EQ(rec[0].begin_ns, 1000);
  EXPECT_EQ(rec[1].begin_ns, 5000);
  EXPECT_EQ(rec[2].begin_ns, 3000);
  EXPECT_EQ(rec[3].begin_ns, 7100);
}

TEST(KernelTiming, WithoutAKnownOsThreadOverlappingSameCallsStayAmbiguous) {
  // One traced thread whose requests ran on two OS threads (the coordinator engine): the OS
  // thread is not known, and a span holding two preads of different threads cannot be decided.
  testing::PlanTraceBuilder b;
  b.add(1, 10, 100, 200, "pread64", {3, int64_t{0}, 10, 0}, 10);
  b.add(1, 10, 300, 400, "pread64", {3, int64_t{0}, 10, 0}, 10);
  b.add(1, 10, 500, 600, "pread64", {3, int64_t{0}, 10, 0}, 10);
  Plan plan = testing::hand_plan(b.take(), false);
  std::vector<RequestRecord> rec = {user_span(1000, 2000), user_span(3000, 4000), user_span(5000, 6000)};
  SelfCallTimes t;
  t.calls = {{500, SYS_pread64, 1100, 1900}, {501, SYS_pread64, 3100, 3900},
             {500, SYS_pread64, 5100, 5200}, {501, SYS_pread64, 5300, 5400}};
  KernelTimingReport rep = apply_kernel_timing(plan, rec, t);
  EXPECT_EQ(rep.matched, 2u);
  EXPECT_EQ(rep.ambiguous, 1u);
  EXPECT_EQ(rec[2].begin_ns, 5000);
  EXPECT_NE(rep.to_text().find("1 ambiguous"), std::string::npos) << rep.to_text();
}

}  // namespace
}  // namespace rastro::replay
