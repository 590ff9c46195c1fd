#include "mpi/clock_model.h"

#include <gtest/gtest.h>

#include <random>

namespace rastro::mpi {
namespace {

// A round against a reference clock that runs `offset` behind the rank's: rank 0 reads its clock
// `reply_at` ns after the request left and the answer takes `back` ns more to arrive.
SyncRound round(int64_t sent, int64_t offset, int64_t reply_at, int64_t back) {
  return {sent, sent + reply_at - offset, sent + reply_at + back};
}

TEST(ClockModel, BestRoundIsTheShortestAndItsBoundHoldsTheTruth) {
  const int64_t truth = 7'000'000'123;
  std::vector<SyncRound> rounds = {round(1000, truth, 30'000, 50'000), round(200'000, truth, 4'000, 9'000),
                                   round(400'000, truth, 20'000, 1'000)};
  auto est = best_offset(rounds);
  ASSERT_TRUE(est);
  EXPECT_EQ(est->rounds, 3);
  EXPECT_EQ(est->half_width, 6'500);  // the 13 µs round trip
  EXPECT_LE(std::llabs(est->offset - truth), est->half_width);
  EXPECT_FALSE(best_offset({}));
}

TEST(ClockModel, RandomAsymmetricDelaysNeverLeaveTheBound) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> delay(100, 80'000), off(-5'000'000'000, 5'000'000'000);
  for (int trial = 0; trial < 2000; ++trial) {
    const int64_t truth = off(rng);
    std::vector<SyncRound> rounds;
    for (int k = 0; k < 8; ++k) rounds.push_back(round(k * 1'000'000, truth, delay(rng), delay(rng)));
    auto est = best_offset(rounds);
    ASSERT_TRUE(est);
    ASSERT_LE(std::llabs(est->offset - truth), est->half_width) << "trial " << trial;
  }
}

TEST(ClockModel, InterpolatesLinearDriftBetweenInitAndFinalize) {
  OffsetEstimate init{1'000'000'000, 5'000, 100, 16}, fin{3'000'000'000, 25'000, 300, 16};
  ClockModel m(init, fin);
  EXPECT_EQ(m.offset_at(1'000'000'000), 5'000);
  EXPECT_EQ(m.offset_at(2'000'000'000), 15'000);
  EXPECT_EQ(m.half_width_at(2'000'000'000), 201);  // interpolated, + 1 ns for the two roundings
  EXPECT_EQ(m.half_width_at(3'000'000'000), 300);
  EXPECT_EQ(m.offset_at(0), 5'000);               // before init: init's estimate
  EXPECT_EQ(m.offset_at(9'000'000'000), 25'000);  // after finalize: finalize's
  EXPECT_DOUBLE_EQ(m.drift_ppm(), 10.0);          // 20 µs over 2 s
  EXPECT_DOUBLE_EQ(m.drift_bound_ppm(), 0.2);     // (100 + 300) ns over 2 s
  EXPECT_EQ(m.to_reference(2'000'000'000), 2'000'000'000 - 15'000);
}

TEST(ClockModel, OneEstimateOrNoneAndTheReferenceItself) {
  ClockModel only_init(OffsetEstimate{10, -400, 9, 1}, std::nullopt);
  EXPECT_EQ(only_init.offset_at(1'000'000), -400);
  EXPECT_EQ(only_init.drift_ppm(), 0);
  ClockModel reference;
  EXPECT_FALSE(reference.measured());
  EXPECT_EQ(reference.to_reference(123), 123);
  EXPECT_EQ(reference.half_width_at(123), 0);
  // A finalize estimate not after init cannot give a drift: it is dropped, not divided by.
  ClockModel backwards(OffsetEstimate{100, 1, 1, 1}, OffsetEstimate{100, 9, 1, 1});
  EXPECT_EQ(backwards.drift_ppm(), 0);
  EXPECT_NEAR(standard_uncertainty(300), 173.205, 1e-3);
}

}  // namespace
}  // namespace rastro::mpi
