// EventOrder (replay/passes/event_order.h): every request's event reads back as given, whether
// it is a few places away (int16) or farther (kept aside), and begin order costs nothing.
#include "replay/passes/event_order.h"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <utility>
#include <vector>

namespace rastro::replay {
namespace {

void expect_same(const EventOrder& o, const std::vector<uint32_t>& events) {
  ASSERT_EQ(o.size(), events.size());
  for (uint32_t r = 0; r < events.size(); ++r) ASSERT_EQ(o[r], events[r]) << "request " << r;
}

TEST(EventOrder, NearAndFarEventsReadBackExactly) {
  // Completion order of a capture: local swaps, plus calls that blocked while 40,000-100,000
  // others completed (their distance is past int16, both ways).
  constexpr uint32_t n = 300'000;
  std::vector<uint32_t> events(n);
  std::iota(events.begin(), events.end(), 0u);
  std::mt19937 rng(9);
  for (uint32_t i = 0; i + 8 < n; i += 1 + rng() % 5) std::swap(events[i], events[i + rng() % 8]);
  for (uint32_t k = 0; k < 40; ++k) {
    const uint32_t a = rng() % (n - 100'000), b = a + 40'000 + rng() % 60'000;
    std::swap(events[a], events[b]);
  }
  std::swap(events[0], events[n - 1]);  // the extremes
  const EventOrder o(events);
  EXPECT_FALSE(o.is_identity());
  EXPECT_GE(o.far_requests(), 80u);
  EXPECT_LT(o.far_requests(), 200u);
  expect_same(o, events);
}

TEST(EventOrder, BeginOrderIsTheIdentityWhoeverBuildsIt) {
  std::vector<uint32_t> events(1000);
  std::iota(events.begin(), events.end(), 0u);
  const EventOrder given(events);
  EXPECT_TRUE(given.is_identity());
  expect_same(given, events);
  const EventOrder made = EventOrder::identity(1000);
  EXPECT_TRUE(made.is_identity());
  expect_same(made, events);
  EXPECT_EQ(EventOrder(std::vector<uint32_t>{}).size(), 0u);
}

}  // namespace
}  // namespace rastro::replay
