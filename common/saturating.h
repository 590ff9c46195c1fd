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

// end - begin of a call, or -1 when it is negative or does not fit (a damaged time).
inline int64_t checked_elapsed(int64_t begin, int64_t end) {
  int64_t d;
  return __builtin_sub_overflow(end, begin, &d) || d < 0 ? -1 : d;
}

}  // namespace rastro
