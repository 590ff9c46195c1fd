// TimeColumn (replay/passes/time_column.h): every begin and end reads back exactly as set, against
// a dense copy, including the values that do not fit its 32-bit fields.
#include "replay/passes/time_column.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "common/error.h"

namespace rastro::replay {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

void expect_same(const TimeColumn& c, const std::vector<std::pair<int64_t, int64_t>>& dense) {
  ASSERT_EQ(c.size(), dense.size());
  for (uint32_t r = 0; r < dense.size(); ++r) {
    ASSERT_EQ(c.begin(r), dense[r].first) << "request " << r;
    ASSERT_EQ(c.end(r), dense[r].second) << "request " << r;
  }
}

TEST(TimeColumn, ReadsBackEveryValueAcrossBlocksAndPastThirtyTwoBits) {
  std::vector<std::pair<int64_t, int64_t>> dense;
  std::mt19937_64 rng(7);
  int64_t t = 1'700'000'000'000'000'000;  // a realistic CLOCK_REALTIME-based begin
  for (int i = 0; i < 1000; ++i) {
    // Mostly microsecond gaps and calls; now and then a gap or a call longer than 4.29 s, a call
    // that lasts exactly 2^32 - 2 or 2^32 - 1 ns (the largest that fits, the first that does not),
    // or an unfinished call (it ends at INT64_MAX).
    const uint64_t pick = rng() % 20;
    t += pick == 0 ? int64_t{5'000'000'000} : static_cast<int64_t>(rng() % 5000);
    int64_t d = static_cast<int64_t>(rng() % 3000);
    if (pick == 1) d = 10'000'000'000;
    if (pick == 2) d = int64_t{UINT32_MAX} - 1;
    if (pick == 3) d = int64_t{UINT32_MAX};
    const int64_t end = pick == 4 ? kMax : t + d;
    dense.emplace_back(t, end);
  }
  TimeColumn c;
  c.reserve(static_cast<uint32_t>(dense.size()));
  for (const auto& [b, e] : dense) c.push_back(b, e);
  expect_same(c, dense);
}

TEST(TimeColumn, HoldsTheExtremesAHostileTraceCanCarry) {
  const std::vector<std::pair<int64_t, int64_t>> dense = {
      {kMin, kMin}, {kMin, kMax}, {kMin + 1, 0}, {-5, -5}, {0, kMax}, {kMax - 1, kMax}, {kMax, kMax}};
  TimeColumn c;
  for (const auto& [b, e] : dense) c.push_back(b, e);
  expect_same(c, dense);
}

TEST(TimeColumn, ADecreasingBeginIsRefused) {
  TimeColumn c;
  c.push_back(100, 200);
  EXPECT_THROW(c.push_back(99, 300), Error);
}

TEST(TimeColumn, DroppingConsumedRequestsKeepsTheLaterOnes) {
  std::vector<std::pair<int64_t, int64_t>> dense;
  TimeColumn c;
  for (int64_t r = 0; r < 100'000; ++r) {
    dense.emplace_back(r * 1000, r * 1000 + (r % 7 == 0 ? int64_t{6'000'000'000} : 10));
    c.push_back(dense.back().first, dense.back().second);
  }
  c.drop_consumed(60'000);
  for (uint32_t r = 60'000; r < dense.size(); ++r) {
    ASSERT_EQ(c.begin(r), dense[r].first) << r;
    ASSERT_EQ(c.end(r), dense[r].second) << r;
  }
}

TEST(TimeColumn, CostsAboutEightBytesARequest) {
  TimeColumn c;
  c.reserve(1'000'000);
  for (int64_t r = 0; r < 1'000'000; ++r) c.push_back(r * 3000, r * 3000 + 1500);
  EXPECT_LT(c.memory_bytes(), 8'200'000u);  // was 16 bytes a request in two int64 columns
}

}  // namespace
}  // namespace rastro::replay
