// Saturating int64 arithmetic for figures computed from untrusted timestamps: a damaged or
// hostile trace can hold durations near 2^63, and signed overflow is undefined behaviour (fuzz
// finding F6, docs/reliability.md). A sum that does not fit is reported as the largest value.
#pragma once

#include <cstdint>
#include <limits>

namespace rastro {

inline int64_t sat_add(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline int64_t sat_sub(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace rastro
