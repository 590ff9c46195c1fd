// The replayer's timer bias (timer_bias.h): a real measurement on this machine, so only its
// bounds are known — a syscall's entry and exit plus two vDSO clock reads take more than nothing
// and (even on a loaded machine, at the median) far less than 50 us.
#include "replay/runtime/timer_bias.h"

#include <gtest/gtest.h>

namespace rastro::replay {
namespace {

TEST(TimerBias, ANullSyscallTakesMoreThanNothingAndLessThan50Us) {
  const trace::TimerBias b = measure_timer_bias();
  EXPECT_EQ(b.samples, 2000u);
  EXPECT_GT(b.median_ns, 0);
  EXPECT_LT(b.median_ns, 50'000);
  EXPECT_LE(b.p10_ns, b.median_ns);
  EXPECT_LE(b.median_ns, b.p90_ns);
  EXPECT_GT(b.p10_ns, 0);
}

TEST(TimerBias, NoSamplesNoBias) {
  const trace::TimerBias b = measure_timer_bias(0);
  EXPECT_EQ(b.samples, 0u);
  EXPECT_EQ(b.median_ns, 0);
}

}  // namespace
}  // namespace rastro::replay
