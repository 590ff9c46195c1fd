#include "replay/session/think_fit.h"

#include <cmath>

#include <fmt/format.h>

#include "trace/analysis/call_class.h"

namespace rastro::replay {

Result<ThinkFit> fit_think_work(const std::vector<FitCandidate>& candidates, uint64_t min_calls) {
  if (candidates.empty()) return fail("think-fit: no candidate");
  for (const FitCandidate& c : candidates)
    if (c.replays.empty()) return fail(fmt::format("think-fit: candidate '{}' has no replay", c.think_work));
  // The classes every replay of every candidate timed often enough.
  auto timed_enough = [&](const FitReplay& r, const std::string& key) {
    auto it = r.classes.find(key);
    return it != r.classes.end() && it->second.second >= min_calls && it->second.first > 0;
  };
  ThinkFit fit;
  for (const auto& [key, v] : candidates[0].replays[0].classes) {
    if (!trace::cached_work_class(key)) continue;
    bool everywhere = true;
    for (const FitCandidate& c : candidates)
      for (const FitReplay& r : c.replays) everywhere = everywhere && timed_enough(r, key);
    if (everywhere) fit.classes.push_back(key);
  }
  if (fit.classes.empty())
    return fail(fmt::format("think-fit: no call class was timed in {} calls or more in every replay", min_calls));
  for (const FitCandidate& c : candidates) {
    std::vector<double> ratios;
    double sum_abs = 0;
    for (const std::string& key : fit.classes) {
      double log_sum = 0;
      for (const FitReplay& r : c.replays) log_sum += std::log(r.classes.find(key)->second.first);
      const double mean_log = log_sum / static_cast<double>(c.replays.size());
      ratios.push_back(std::exp(mean_log));
      sum_abs += std::fabs(mean_log);
    }
    fit.ratio.push_back(std::move(ratios));
    fit.score.push_back(sum_abs / static_cast<double>(fit.classes.size()));
  }
  for (size_t i = 1; i < fit.score.size(); ++i)
    if (fit.score[i] < fit.score[fit.best]) fit.best = i;
  for (size_t i = 0; i < fit.score.size(); ++i) {
    if (i == fit.best || fit.score[i] - fit.score[fit.best] >= ThinkFit::kNearTie) continue;
    if (fit.near_tie < 0 || fit.score[i] < fit.score[static_cast<size_t>(fit.near_tie)]) fit.near_tie = static_cast<int>(i);
  }
  return fit;
}

std::vector<size_t> tie_break_candidates(const ThinkFit& fit, unsigned rounds_done, unsigned max_rounds) {
  if (fit.near_tie < 0 || rounds_done >= max_rounds) return {};
  return {fit.best, static_cast<size_t>(fit.near_tie)};
}

}  // namespace rastro::replay
