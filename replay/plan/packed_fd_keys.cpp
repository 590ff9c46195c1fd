#include "replay/plan/packed_fd_keys.h"

#include <bit>

namespace rastro::replay {

void PackedFdKeys::reserve(size_t n) {
  masks_.reserve(n);
  group_first_.reserve(n / kGroup + 1);
}

void PackedFdKeys::push_back(const Row& row) {
  if (masks_.size() % kGroup == 0) group_first_.push_back(values_.size());
  unsigned mask = 0;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i] == -1) continue;
    mask |= 1u << i;
    values_.push_back(row[i]);
  }
  masks_.push_back(static_cast<uint8_t>(mask));
}

PackedFdKeys::Row PackedFdKeys::operator[](size_t r) const {
  const size_t g = r / kGroup;
  uint64_t at = group_first_[g];
  for (size_t k = g * kGroup; k < r; ++k) at += static_cast<uint64_t>(std::popcount(masks_[k]));
  Row row;
  row.fill(-1);
  for (unsigned mask = masks_[r]; mask != 0; mask &= mask - 1) row[static_cast<size_t>(std::countr_zero(mask))] = values_[at++];
  return row;
}

size_t PackedFdKeys::memory_bytes() const {
  return masks_.capacity() + group_first_.capacity() * sizeof(uint64_t) + values_.capacity() * sizeof(int32_t);
}

}  // namespace rastro::replay
