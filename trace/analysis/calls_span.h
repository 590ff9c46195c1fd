// A run's span: first begin to last end over its calls, an unfinished call ending at its begin.
// The figure the fidelity report (replay_fidelity.h) and the run comparison (run_comparison.h)
// compare between two traces.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "common/saturating.h"
#include "trace/model/event.h"

namespace rastro::trace {

class CallsSpan {
 public:
  void add(const Event& e) {
    add(e.begin_ns, (e.flags & kEventUnfinished) ? e.begin_ns : std::max(e.end_ns, e.begin_ns));
  }
  void add(int64_t begin_ns, int64_t end_ns) {
    first_ = std::min(first_.value_or(begin_ns), begin_ns);
    last_ = std::max(last_.value_or(end_ns), end_ns);
  }
  bool empty() const { return !first_; }
  // 0 when empty or damaged (a last end before the first begin).
  int64_t ns() const { return first_ ? std::max<int64_t>(0, checked_elapsed(*first_, *last_)) : 0; }

 private:
  std::optional<int64_t> first_, last_;
};

// `--max-span-error`: the sentence saying a span error is beyond the bound, or nothing.
inline std::optional<std::string> span_error_beyond(double span_error_pct, std::optional<double> max_pct) {
  if (!max_pct || std::abs(span_error_pct) <= *max_pct) return std::nullopt;
  return fmt::format("span error {:+.1f} % is beyond ±{} %", span_error_pct, *max_pct);
}

}  // namespace rastro::trace
