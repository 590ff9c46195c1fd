// fit_think_work (replay/session/think_fit.h): the candidate whose class ratios lie nearest 1 over
// the classes every replay timed enough, worked out here by hand; and the near tie replayed again.
#include "replay/session/think_fit.h"

#include <cmath>

#include <gtest/gtest.h>

namespace {

using rastro::replay::FitCandidate;
using rastro::replay::FitReplay;
using rastro::replay::fit_think_work;
using rastro::replay::ThinkFit;
using rastro::replay::tie_break_candidates;

FitReplay replay_of(std::initializer_list<std::pair<const char*, std::pair<double, uint64_t>>> classes) {
  FitReplay r;
  for (const auto& [k, v] : classes) r.classes[k] = v;
  return r;
}

TEST(ThinkFit, ChoosesTheCandidateWhoseClassRatiosLieNearestOne) {
  // python without think work: cheap calls too fast; with it, near 1.
  std::vector<FitCandidate> c = {
      {"none", {replay_of({{"data", {0.97, 200}}, {"open/close", {0.66, 190}}})}},
      {"memory", {replay_of({{"data", {1.05, 200}}, {"open/close", {0.99, 190}}})}},
  };
  auto fit = fit_think_work(c, 5);
  ASSERT_TRUE(fit.ok()) << fit.error();
  EXPECT_EQ(fit.value().best, 1u);
  ASSERT_EQ(fit.value().classes, (std::vector<std::string>{"data", "open/close"}));
  EXPECT_NEAR(fit.value().score[0], (std::fabs(std::log(0.97)) + std::fabs(std::log(0.66))) / 2, 1e-12);
  EXPECT_NEAR(fit.value().score[1], (std::fabs(std::log(1.05)) + std::fabs(std::log(0.99))) / 2, 1e-12);
  EXPECT_NEAR(fit.value().ratio[0][1], 0.66, 1e-12);
}

TEST(ThinkFit, AveragesTheReplaysGeometrically) {
  // Half and twice: a geometric mean of 1 (an arithmetic one, 1.25, would lose to 1.1).
  std::vector<FitCandidate> c = {
      {"none", {replay_of({{"fd", {1.1, 50}}}), replay_of({{"fd", {1.1, 50}}})}},
      {"memory", {replay_of({{"fd", {0.5, 50}}}), replay_of({{"fd", {2.0, 50}}})}},
  };
  auto fit = fit_think_work(c, 5);
  ASSERT_TRUE(fit.ok()) << fit.error();
  EXPECT_NEAR(fit.value().ratio[1][0], 1.0, 1e-12);
  EXPECT_EQ(fit.value().best, 1u);
}

TEST(ThinkFit, JudgesOnlyCachedCallClassesTimedEnoughInEveryReplay) {
  // sync is the disk and `metadata` has 3 calls in one replay: only `data` tells them apart.
  std::vector<FitCandidate> c = {
      {"none", {replay_of({{"data", {1.02, 100}}, {"sync", {1.0, 300}}, {"metadata", {1.0, 40}}})}},
      {"memory", {replay_of({{"data", {1.30, 100}}, {"sync", {3.0, 300}}, {"metadata", {1.0, 3}}}),
                  replay_of({{"data", {1.30, 100}}, {"sync", {3.0, 300}}, {"metadata", {1.0, 40}}})}},
      {"code", {replay_of({{"data", {0.99, 100}}, {"sync", {3.0, 300}}, {"process", {1.0, 9}}, {"other", {1.0, 900}}})}},
  };
  auto fit = fit_think_work(c, 5);
  ASSERT_TRUE(fit.ok()) << fit.error();
  EXPECT_EQ(fit.value().classes, (std::vector<std::string>{"data"}));
  EXPECT_EQ(fit.value().best, 2u);
}

TEST(ThinkFit, NamesTheRunnerUpWhenItScoresWithinTheReplaysSpread) {
  // sqlite's fit on r23's round 1: 0.123 against 0.148, a near tie; python's: 0.161 against 0.086.
  std::vector<FitCandidate> close = {
      {"none", {replay_of({{"data", {std::exp(0.123), 100}}})}},
      {"memory,code", {replay_of({{"data", {std::exp(0.148), 100}}})}},
      {"memory", {replay_of({{"data", {std::exp(0.300), 100}}})}},
  };
  auto a = fit_think_work(close, 5);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(a.value().best, 0u);
  EXPECT_EQ(a.value().near_tie, 1);
  std::vector<FitCandidate> apart = {
      {"none", {replay_of({{"data", {std::exp(-0.161), 100}}})}},
      {"memory,code", {replay_of({{"data", {std::exp(0.086), 100}}})}},
  };
  auto b = fit_think_work(apart, 5);
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(b.value().best, 1u);
  EXPECT_EQ(b.value().near_tie, -1);
}

// A near tie gets more rounds of its two candidates — and of them only — until it is decided or
// the rounds run out. The replays of more rounds move the scores: a later replay that sets the two
// apart ends the tie-break.
TEST(ThinkFit, ANearTieIsReplayedAgainBetweenItsTwoUntilDecidedOrOutOfRounds) {
  std::vector<FitCandidate> c = {
      {"memory", {replay_of({{"data", {std::exp(0.300), 100}}})}},
      {"none", {replay_of({{"data", {std::exp(0.123), 100}}})}},
      {"memory,code", {replay_of({{"data", {std::exp(0.148), 100}}})}},
  };
  ThinkFit fit = fit_think_work(c, 5).take();
  EXPECT_EQ(tie_break_candidates(fit, 2, 6), (std::vector<size_t>{1, 2}));  // the fit, then its tie
  EXPECT_TRUE(tie_break_candidates(fit, 6, 6).empty());                     // out of rounds
  EXPECT_TRUE(tie_break_candidates(fit, 2, 2).empty());                     // --max-rounds = --rounds
  // One more round of the two: memory,code's replay lands at 1.02, none's at 1.20.
  c[1].replays.push_back(replay_of({{"data", {1.20, 100}}}));
  c[2].replays.push_back(replay_of({{"data", {1.02, 100}}}));
  fit = fit_think_work(c, 5).take();
  EXPECT_EQ(fit.best, 2u);  // (0.148 + 0.020) / 2 = 0.084 against (0.123 + 0.182) / 2 = 0.153
  EXPECT_EQ(fit.near_tie, -1);
  EXPECT_TRUE(tie_break_candidates(fit, 3, 6).empty());
}

TEST(ThinkFit, EqualScoresGoToTheFirstCandidate) {
  std::vector<FitCandidate> c = {
      {"none", {replay_of({{"data", {1.1, 100}}})}},
      {"memory", {replay_of({{"data", {1.1, 100}}})}},
  };
  auto fit = fit_think_work(c, 5);
  ASSERT_TRUE(fit.ok()) << fit.error();
  EXPECT_NEAR(fit.value().score[0], fit.value().score[1], 1e-12);
  EXPECT_EQ(fit.value().best, 0u);
}

TEST(ThinkFit, NamesWhatLeavesNothingToJudge) {
  std::vector<FitCandidate> few = {{"none", {replay_of({{"data", {1.0, 4}}})}}};
  auto a = fit_think_work(few, 5);
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().find("5 calls"), std::string::npos) << a.error();
  std::vector<FitCandidate> none_replayed = {{"none", {replay_of({{"data", {1.0, 40}}})}}, {"memory", {}}};
  auto b = fit_think_work(none_replayed, 5);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.error().find("'memory' has no replay"), std::string::npos) << b.error();
  EXPECT_FALSE(fit_think_work({}, 5).ok());
}

}  // namespace
