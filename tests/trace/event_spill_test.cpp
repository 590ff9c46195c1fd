#include "trace/io/event_spill.h"

#include <gtest/gtest.h>

#include "tests/trace/random_trace.h"

namespace rastro::trace {
namespace {

std::vector<Event> read_run(EventSpill& spill, size_t run) {
  std::vector<Event> out;
  std::span<const Event> view;
  while (spill.next(run, &view)) {
    EXPECT_LE(view.size(), kSpillChunkEvents);
    out.insert(out.end(), view.begin(), view.end());
  }
  return out;
}

// Every field survives the trip to disk (random traces set all of them), run by run, in order,
// and the runs can be read interleaved (as a merge does).
TEST(EventSpill, RunsReadBackExactlyAndIndependently) {
  const Trace a = testing::random_trace(1000, 3), b = testing::random_trace(300, 4);
  EventSpill spill;
  EXPECT_EQ(spill.add_run(a.events), 0u);
  EXPECT_EQ(spill.add_run(b.events), 1u);
  EXPECT_EQ(spill.add_run({}), 2u);
  EXPECT_EQ(spill.events(), 1300u);
  std::span<const Event> va, vb;
  ASSERT_TRUE(spill.next(0, &va));
  ASSERT_TRUE(spill.next(1, &vb));
  EXPECT_EQ(va[0], a.events[0]);
  EXPECT_EQ(vb[0], b.events[0]);
  std::vector<Event> rest_a(va.begin(), va.end()), rest_b(vb.begin(), vb.end());
  for (const Event& e : read_run(spill, 0)) rest_a.push_back(e);
  for (const Event& e : read_run(spill, 1)) rest_b.push_back(e);
  EXPECT_EQ(rest_a, a.events);
  EXPECT_EQ(rest_b, b.events);
  EXPECT_TRUE(read_run(spill, 2).empty());
}

TEST(EventSpill, ClearForgetsTheRunsAndStartsOver) {
  const Trace a = testing::random_trace(600, 5), b = testing::random_trace(50, 6);
  EventSpill spill;
  spill.add_run(a.events);
  spill.clear();
  EXPECT_EQ(spill.runs(), 0u);
  EXPECT_EQ(spill.events(), 0u);
  EXPECT_EQ(spill.add_run(b.events), 0u);
  EXPECT_EQ(read_run(spill, 0), b.events);
}

}  // namespace
}  // namespace rastro::trace
