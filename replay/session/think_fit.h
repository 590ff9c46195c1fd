// Which `--think-work` a program needs (`rastro think-fit`, docs/replay.md "Choosing think work").
//
// How cold a program's own work between its calls leaves the kernel's paths is a property of the
// program, and a syscall trace does not show it: python's interpreter evicts the L2 between its
// calls (its cheap calls replayed at 0.66 of traced without think work, ~1.0 with 4 MiB of data
// read through each gap), git's C loops do not (every class within 15 % with processes alone,
// 1.17-1.32 for `namespace` with think work). So it is fitted where the truth is known: replays
// of its captures, on the machine that made them, with each candidate, each compared with its
// capture per call class. The candidate whose class latency ratios lie nearest 1 is the fit, to be
// used for the program's other captures (judged on them, not on the ones it was fitted on).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"

namespace rastro::replay {

// One replay of a candidate: per call class, its replay/original latency ratio (the median of the
// per-call ratios, as `rastro compare` reports it) and how many of its calls were timed.
struct FitReplay {
  std::map<std::string, std::pair<double, uint64_t>, std::less<>> classes;
};

struct FitCandidate {
  std::string think_work;  // as --think-work takes it
  std::vector<FitReplay> replays;
};

struct ThinkFit {
  std::vector<std::string> classes;        // the classes judged (see fit_think_work)
  std::vector<std::vector<double>> ratio;  // [candidate][class]: geometric mean over its replays
  std::vector<double> score;               // [candidate]: mean |ln ratio| over the judged classes
  size_t best = 0;                         // the lowest score (the first of equals: order is preference)
  // The next lowest, when it scores within kNearTie of the best: the replays cannot tell the two
  // apart (one replay's class ratios move by 5-10 % from round to round on this VM), so either
  // will do, or more rounds decide. -1: no such candidate.
  int near_tie = -1;
  static constexpr double kNearTie = 0.05;
};

// After the fit of the rounds so far: the candidates to replay in one more round — the fit and its
// near tie, so that more replays decide between them — or none, when the fit is decided or
// `rounds_done` has reached `max_rounds`.
std::vector<size_t> tie_break_candidates(const ThinkFit& fit, unsigned rounds_done, unsigned max_rounds);

// Judges the classes timed in at least `min_calls` calls in every replay of every candidate
// (a class one candidate lacks cannot tell them apart), of the classes of cached work
// (trace::cached_work_class: not sync, process or other).
// Fails when a candidate has no replay, or no class is left to judge.
Result<ThinkFit> fit_think_work(const std::vector<FitCandidate>& candidates, uint64_t min_calls);

}  // namespace rastro::replay
