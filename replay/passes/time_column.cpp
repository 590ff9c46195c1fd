#include "replay/passes/time_column.h"

#include <algorithm>

#include "common/drop_consumed.h"
#include "common/error.h"

namespace rastro::replay {

void TimeColumn::reserve(uint32_t n) {
  block_first_.reserve(n / kBlock + 1);
  offset_.reserve(n);
  duration_.reserve(n);
}

void TimeColumn::push_back(int64_t begin, int64_t end) {
  const auto r = static_cast<uint32_t>(offset_.size());
  if (r % kBlock == 0) {
    block_first_.push_back(begin);
  } else if (begin < this->begin(r - 1)) {
    throw Error("time column: request " + std::to_string(r) + " begins before the one before it");
  }
  // (begin >= the block's first begin: no overflow; a difference past uint32 goes to the side table)
  const uint64_t off = static_cast<uint64_t>(begin) - static_cast<uint64_t>(block_first_.back());
  if (off < kWide) {
    offset_.push_back(static_cast<uint32_t>(off));
  } else {
    offset_.push_back(kWide);
    begins_.emplace_back(r, begin);
  }
  int64_t d = 0;
  if (end >= begin && !__builtin_sub_overflow(end, begin, &d) && d < int64_t{kWide}) {
    duration_.push_back(static_cast<uint32_t>(d));
  } else {
    duration_.push_back(kWide);
    ends_.emplace_back(r, end);
  }
}

int64_t TimeColumn::wide(const Wide& w, uint32_t r) {
  auto it = std::lower_bound(w.begin(), w.end(), r, [](const auto& e, uint32_t q) { return e.first < q; });
  return it != w.end() && it->first == r ? it->second : 0;  // (always found: set with kWide)
}

void TimeColumn::drop_consumed(uint32_t upto) {
  rastro::drop_consumed(offset_, upto);
  rastro::drop_consumed(duration_, upto);
}

size_t TimeColumn::memory_bytes() const {
  return block_first_.capacity() * sizeof(int64_t) + (offset_.capacity() + duration_.capacity()) * sizeof(uint32_t) +
         (begins_.capacity() + ends_.capacity()) * sizeof(Wide::value_type);
}

}  // namespace rastro::replay
