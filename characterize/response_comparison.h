// The built-in validation by replay (docs/characterize.md): the original trace and the synthetic
// one are each replayed several times on the same machine, alternately, and the mean response
// time of every operation category in each replay is compared — the difference with its 95 %
// interval (Welch, over the replays), so a user sees whether the model reproduces not only the
// features but the time the file system takes for them.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "characterize/workload_features.h"
#include "trace/model/trace.h"

namespace rastro::characterize {

// Mean duration (µs) of the calls a replay replayed (not skipped), per operation category.
std::map<OpCategory, double> replayed_response_us(const trace::Trace& replayed);

struct CategoryResponse {
  OpCategory category{};
  std::vector<double> original_us, synthetic_us;  // one mean per replay
  double original_mean = 0, synthetic_mean = 0;
  std::optional<double> difference_us, ci_low_us, ci_high_us;  // synthetic − original, 95 % (Welch)
  std::string why_undefined;                                    // when there is no interval
  bool within() const { return ci_low_us && *ci_low_us <= 0 && *ci_high_us >= 0; }
};

struct ResponseComparison {
  size_t replays = 0;
  std::vector<CategoryResponse> categories;  // those both traces have
};

// `original` and `synthetic` hold one map per replay (replayed_response_us of each).
ResponseComparison compare_responses(const std::vector<std::map<OpCategory, double>>& original,
                                     const std::vector<std::map<OpCategory, double>>& synthetic);

// Replays `original` and `synthetic` `replays` times each, alternately (so drift hits both), with
// `rastro replay -O fs -T think --init` into fresh roots under a temporary directory, and compares
// them. Throws rastro::Error naming the trace whose replay failed, with the replayer's output.
ResponseComparison compare_by_replay(const std::string& original, const std::string& synthetic, size_t replays);

std::string response_markdown(const ResponseComparison& c);
nlohmann::json to_json(const ResponseComparison& c);

}  // namespace rastro::characterize
