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

TEST(Progress, LinesWithTheShareDoneKnownFromBytes) {
  // 2 M lines in 4 s with 40 % of the input read: 6 s left.
  EXPECT_EQ(Progress::format_line("rastro import", "lines", 2'000'000, 0.4, 4.0),
            "rastro import: 2.0 M lines, 0.5 M lines/s, 40 % ETA 0:06");
  EXPECT_EQ(Progress::format_line("rastro import", "lines", 1'500'000, -1.0, 1.0),
            "rastro import: 1.5 M lines, 1.5 M lines/s");
}

TEST(Progress, StepLinesNameTheStageAndTheTimeSoFar) {
  EXPECT_EQ(Progress::format_step("rastro infer", "pass 3 of 7 (resolve_fds)", 101.6),
            "rastro infer: pass 3 of 7 (resolve_fds), elapsed 1:41");
  EXPECT_EQ(Progress::format_step("x", "reading", -1.0), "x: reading, elapsed 0:00");
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
    on.update(5, 0.5);
    on.step("pass 1 of 7 (parse)");
    EXPECT_FALSE(on.active());
    EXPECT_FALSE(off.active());
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace rastro
