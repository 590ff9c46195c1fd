#include "replay/session/think_fit.h"

#include <cmath>
#include <set>
#include <string_view>

#include <fmt/format.h>

namespace rastro::replay {

Result<ThinkFit> fit_think_work(const std::vector<FitCandidate>& candidates, uint64_t min_calls) {
  if (candidates.empty()) return fail("think-fit: no candidate");
  static const std::set<std::string_view> kNotJudged = {"sync", "process", "other"};
  ThinkFit fit;
  // The classes every replay of every candidate timed often enough (the first replay's, kept).
  bool first = true;
  for (const FitCandidate& c : candidates) {
    if (c.replays.empty()) return fail(fmt::format("think-fit: candidate '{}' has no replay", c.think_work));
    for (const FitReplay& r : c.replays) {
      std::vector<std::string> kept;
      if (first) {
        for (const auto& [key, v] : r.classes)
          if (!kNotJudged.contains(key) && v.second >= min_calls && v.first > 0) kept.push_back(key);
        first = false;
      } else {
        for (const std::string& key : fit.classes) {
          auto it = r.classes.find(key);
          if (it != r.classes.end() && it->second.second >= min_calls && it->second.first > 0) kept.push_back(key);
        }
      }
      fit.classes = std::move(kept);
    }
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

}  // namespace rastro::replay
