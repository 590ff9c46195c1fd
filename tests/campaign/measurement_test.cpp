// Response times of a trace and the per-call pairing of two traces of the same run.
#include "campaign/measurement.h"

#include <gtest/gtest.h>

namespace rastro::campaign {
namespace {

// x86_64: read = 0, write = 1.
trace::Event call(int tid, int64_t begin, int64_t end, int nr = 0) {
  return trace::Event{.tid = tid, .begin_ns = begin, .end_ns = end, .nr = nr};
}

TEST(Measurement, ResponseTimesMeanAndSdOfTheSelectedCalls) {
  trace::Trace t;
  t.events = {call(1, 0, 10), call(1, 20, 40), call(2, 0, 30), call(2, 50, 51, 1)};
  auto r = response_times(t, {.functions = {"read"}});
  ASSERT_EQ(r.ns.size(), 3u);
  EXPECT_DOUBLE_EQ(r.mean, 20);
  EXPECT_DOUBLE_EQ(r.sd, 10);
  EXPECT_EQ(response_times(t, {.functions = {"read"}, .tids = {2}}).ns.size(), 1u);
}

TEST(Measurement, PairsTheSameCallsPerThreadInIssueOrder) {
  trace::Trace app, cap;
  // Application timing: thread 1 calls of 10 and 30 ns, thread 2 one of 20 ns (interleaved).
  app.events = {call(1, 0, 10), call(2, 5, 25), call(1, 40, 70)};
  // The trace saw them 2, 4 and 6 ns longer, in another global order.
  cap.events = {call(2, 4, 28), call(1, 0, 12), call(1, 40, 76), call(1, 80, 81, 1)};
  auto d = paired_difference(cap, app, {.functions = {"read"}});
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->n, 3u);
  EXPECT_DOUBLE_EQ(d->mean_ns, 4);
}

TEST(Measurement, RefusesToPairTracesHoldingDifferentCalls) {
  trace::Trace app, cap;
  app.events = {call(1, 0, 10), call(1, 20, 30)};
  cap.events = {call(1, 0, 12)};
  auto d = paired_difference(cap, app, {.functions = {"read"}});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().find("thread 1: the trace holds 1 of the application's 2 calls"), std::string::npos) << d.error();
  cap.events = {call(1, 0, 12), call(1, 20, 31), call(3, 0, 1)};
  auto extra = paired_difference(cap, app, {.functions = {"read"}});
  ASSERT_FALSE(extra.ok());
  EXPECT_NE(extra.error().find("thread 3"), std::string::npos) << extra.error();
}

}  // namespace
}  // namespace rastro::campaign

namespace rastro::campaign {
namespace {

TEST(Measurement, WarmupDropsTheFirstCallsOfEachThread) {
  trace::Trace t;
  // Thread 1: 100 then 10, 20; thread 2: 90 then 30. The slow first call of each is warm-up.
  t.events = {call(1, 0, 100), call(2, 0, 90), call(1, 200, 210), call(2, 300, 330), call(1, 400, 420)};
  auto r = response_times(t, {.functions = {"read"}, .warmup = 1});
  ASSERT_EQ(r.ns.size(), 3u);
  EXPECT_DOUBLE_EQ(r.mean, 20);
  EXPECT_EQ(response_times(t, {.functions = {"read"}, .warmup = 3}).ns.size(), 0u);
  // Pairing skips the same calls on both sides.
  trace::Trace cap;
  cap.events = {call(1, 0, 500), call(2, 0, 400), call(1, 200, 212), call(2, 300, 332), call(1, 400, 422)};
  auto d = paired_difference(cap, t, {.functions = {"read"}, .warmup = 1});
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d->n, 3u);
  EXPECT_DOUBLE_EQ(d->mean_ns, 2);
}

}  // namespace
}  // namespace rastro::campaign
