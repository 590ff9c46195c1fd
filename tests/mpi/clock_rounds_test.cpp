#include "mpi/replay/clock_rounds.h"

#include <gtest/gtest.h>

#include "tests/mpi/fake_transport.h"

namespace rastro::mpi {
namespace {

using testing::FakeTransport;

TEST(ClockRounds, ARankAsksRankZeroAndKeepsItsClockBetweenItsOwnReadings) {
  FakeTransport t(2, 4);
  t.reply = 123'456'789;  // rank 0's clock, as it answers
  const auto rounds = sync_with_rank0(t, 5);
  ASSERT_EQ(rounds.size(), 5u);
  for (const auto& r : rounds) {
    EXPECT_EQ(r.reference, 123'456'789);
    EXPECT_LE(r.sent, r.received);
  }
  ASSERT_EQ(t.sent.size(), 5u);
  for (const auto& [dest, tag, v] : t.sent) {
    EXPECT_EQ(dest, 0);
    EXPECT_EQ(tag, kTagClockSync);
  }
  EXPECT_EQ(t.received_from, (std::vector<std::pair<int, int>>(5, {0, kTagClockSync})));
}

TEST(ClockRounds, RankZeroAnswersEveryOtherRankInTurn) {
  FakeTransport t(0, 3);
  EXPECT_TRUE(sync_with_rank0(t, 2).empty());
  EXPECT_EQ(t.received_from, (std::vector<std::pair<int, int>>{{1, kTagClockSync}, {1, kTagClockSync},
                                                                {2, kTagClockSync}, {2, kTagClockSync}}));
  ASSERT_EQ(t.sent.size(), 4u);
  EXPECT_EQ(std::get<0>(t.sent[0]), 1);
  EXPECT_EQ(std::get<0>(t.sent[3]), 2);
  EXPECT_LE(std::get<2>(t.sent[0]), std::get<2>(t.sent[3]));  // its clock, read as it answers
}

}  // namespace
}  // namespace rastro::mpi
