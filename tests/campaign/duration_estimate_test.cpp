// The duration model: sizes of the built-in campaigns against what they took on the development
// VM (the demo took 4 min 11 s; the thesis preset must stay a session-sized campaign), and its text.
#include "campaign/duration_estimate.h"

#include <gtest/gtest.h>

#include "campaign/demo_config.h"

namespace rastro::campaign {
namespace {

TEST(DurationEstimate, BuiltInCampaignsAreSizedAsDocumented) {
  const double demo = estimated_duration_s(demo_capture_config(10)) + estimated_duration_s(demo_replay_config(10));
  EXPECT_GT(demo, 2 * 60);
  EXPECT_LT(demo, 6 * 60);
  const double thesis = estimated_duration_s(thesis_capture_config());
  EXPECT_GT(thesis, 20 * 60);
  EXPECT_LT(thesis, 3 * 3600);
}

TEST(DurationEstimate, GrowsWithRequestsReplicatesAndSlowInstruments) {
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  c.instruments = {"reference"};
  const double base = estimated_duration_s(c);
  CampaignConfig more = c;
  more.ops *= 100;
  EXPECT_GT(estimated_duration_s(more), base);
  more = c;
  more.replicates *= 2;
  EXPECT_NEAR(estimated_duration_s(more), 2 * base, 1e-9 * base);
  more = c;
  more.instruments = {"strace"};
  more.ops = 100000;
  c.ops = 100000;
  EXPECT_GT(estimated_duration_s(more), 5 * estimated_duration_s(c) / 2);
}

TEST(DurationEstimate, Text) {
  EXPECT_EQ(duration_text(35.4), "35 s");
  EXPECT_EQ(duration_text(250), "4 min 10 s");
  EXPECT_EQ(duration_text(6720), "1 h 52 min");
}

}  // namespace
}  // namespace rastro::campaign
