// Exact order statistics (the value of rank k in sorted order, as std::nth_element gives it) of a
// sequence the caller can read again, in memory that does not grow with its length: a radix
// selection over each value's offset from the sequence's minimum, 16 bits per reading, most
// significant first, counting only the values whose higher bits match what is settled so far.
// The replay summary's issue-error percentiles (replay_output.cpp) use it instead of sorting a
// copy of 8 bytes a request (issue #16). Readings: one per 16 bits of (max - min), so 1-2 for
// the microsecond spreads of a replay, at most 4.
#pragma once

#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace rastro::replay {

// `read(f)` calls f(int64_t) for every value of the sequence, the same values each time; `min`
// and `max` are its extremes and every rank is below its length. Returns the value of each rank.
template <typename Read>
std::vector<int64_t> select_ranks(Read&& read, int64_t min, int64_t max, std::span<const uint64_t> ranks) {
  constexpr int kDigitBits = 16;
  const uint64_t width = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);
  int low = width == 0 ? 0 : 64 - std::countl_zero(width);  // bits still to settle, below the prefix
  std::vector<uint64_t> rank(ranks.begin(), ranks.end());     // among the values matching the prefix
  std::vector<uint64_t> prefix(ranks.size(), 0);               // the settled high bits of each answer
  std::vector<uint64_t> counts;
  while (low > 0) {
    const int bits = low < kDigitBits ? low : kDigitBits;
    const int high_shift = low;  // the prefix is what lies at and above bit `low`
    low -= bits;
    const uint64_t digits = uint64_t{1} << bits;
    counts.assign(digits * ranks.size(), 0);
    read([&](int64_t v) {
      const uint64_t off = static_cast<uint64_t>(v) - static_cast<uint64_t>(min);
      const uint64_t high = high_shift >= 64 ? 0 : off >> high_shift;
      const uint64_t digit = (off >> low) & (digits - 1);
      for (size_t i = 0; i < prefix.size(); ++i)
        if (high == prefix[i]) ++counts[i * digits + digit];
    });
    for (size_t i = 0; i < prefix.size(); ++i) {
      uint64_t d = 0;
      for (; d + 1 < digits && rank[i] >= counts[i * digits + d]; ++d) rank[i] -= counts[i * digits + d];
      prefix[i] = (prefix[i] << bits) | d;
    }
  }
  std::vector<int64_t> out;
  for (uint64_t p : prefix) out.push_back(static_cast<int64_t>(static_cast<uint64_t>(min) + p));
  return out;
}

}  // namespace rastro::replay
