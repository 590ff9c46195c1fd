#include "common/progress.h"

#include <gtest/gtest.h>

namespace rastro {
namespace {

TEST(Progress, LineShowsCountRateAndEta) {
  EXPECT_EQ(Progress::format_line("rastro cat", 12'300'000, 0, 3.0),
            "rastro cat: 12.3 M events, 4.1 M events/s");
  // 25 M of 100 M in 5 s: 5 M/s, 75 M left, 15 s.
  EXPECT_EQ(Progress::format_line("rastro stats", 25'000'000, 100'000'000, 5.0),
            "rastro stats: 25.0 M events, 5.0 M events/s, 25 % ETA 0:15");
  EXPECT_EQ(Progress::format_line("x", 0, 10, 0.0), "x: 0.0 M events, 0.0 M events/s");
}

TEST(Progress, SilentWhenDisabledOrNotATerminal) {
  // Disabled: update() and finish() draw nothing (stderr is captured, so not a terminal either).
  ::testing::internal::CaptureStderr();
  {
    Progress off("x", false);
    off.set_total(10);
    off.update(5);
    Progress on("y", true);  // stderr is a pipe here
    on.update(5);
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace rastro
