// `rastro compare O1 R1 O2 R2 ...`: a replay judged over several rounds, each a capture of the
// program and its replay (or two runs, both captures or both replays) — per call class, the latency
// ratio of each round, their geometric mean with its confidence interval, and whether the rounds
// show it within ±P % of the original (metrology/ratio_equivalence.h); the same for the span.
//
// One pair decides nothing on a machine whose program runs differ per class by more than the
// target from one minute to the next; rounds taken each at its own moment do (docs/replay.md
// "Judging a replay over rounds").
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace rastro::cli {

struct RoundsFlags {
  std::vector<std::pair<std::string, std::string>> pairs;  // (ORIGINAL, REPLAYED), one per round
  double within_pct = 15;    // the bounds of the verdict: ratio in [1 - P/100, 1 + P/100]
  double confidence_pct = 90;  // of the interval; 90: the two one-sided tests at 5 %
  uint64_t min_calls = 5;    // a round counts for a class when it timed this many of its calls
  bool json = false;
};

// Prints the report; returns the exit status: 0, 3 when a class (or the span) is shown beyond the
// bounds, 2 when a trace was damaged (its intact prefix compared). Throws rastro::Error on bad
// input (an unreadable trace, a replay of another trace, rounds of two kinds).
int compare_rounds(const RoundsFlags& flags);

}  // namespace rastro::cli
