#include "replay/plan/path_column.h"

#include <bit>
#include <string>

#include "common/error.h"

namespace rastro::replay {

void PathColumn::assign(uint32_t n) {
  *this = PathColumn{};
  n_ = n;
  present_.assign((n + kBlock - 1) / kBlock, 0);
  before_.assign(present_.size(), 0);
}

void PathColumn::set(uint32_t r, size_t i, trace::StrId path) {
  if (r >= n_ || i >= 2) throw Error("path column: request " + std::to_string(r) + " slot " + std::to_string(i) + " out of range");
  const uint64_t bit = uint64_t{1} << (r % kBlock);
  if (!entries_.empty() && r == last_) {
    entries_.back()[i] = path;
    return;
  }
  if (!entries_.empty() && r < last_)
    throw Error("path column: request " + std::to_string(r) + " set after request " + std::to_string(last_));
  if (path == trace::kNoStr) return;  // (an absent slot reads as kNoStr already)
  // The blocks after the last entry's, up to r's, have every entry so far before them.
  const uint32_t from = entries_.empty() ? 0 : last_ / kBlock + 1;
  for (uint32_t b = from; b <= r / kBlock; ++b) before_[b] = static_cast<uint32_t>(entries_.size());
  present_[r / kBlock] |= bit;
  Paths& p = entries_.emplace_back(Paths{trace::kNoStr, trace::kNoStr});
  p[i] = path;
  last_ = r;
}

PathColumn::Paths PathColumn::operator[](uint32_t r) const {
  if (r >= n_) return {trace::kNoStr, trace::kNoStr};
  const uint64_t word = present_[r / kBlock];
  const uint64_t bit = uint64_t{1} << (r % kBlock);
  if (!(word & bit)) return {trace::kNoStr, trace::kNoStr};
  return entries_[before_[r / kBlock] + static_cast<uint32_t>(std::popcount(word & (bit - 1)))];
}

size_t PathColumn::memory_bytes() const {
  return present_.capacity() * sizeof(uint64_t) + before_.capacity() * sizeof(uint32_t) + entries_.capacity() * sizeof(Paths);
}

}  // namespace rastro::replay
