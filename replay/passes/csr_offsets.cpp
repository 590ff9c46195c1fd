#include "replay/passes/csr_offsets.h"

#include <string>

#include "common/error.h"

namespace rastro::replay {

void CsrOffsets::reserve(uint32_t n) {
  off_.reserve(n);
  base_.reserve(n / kBlock + 1);
}

void CsrOffsets::push_back(uint32_t begin) {
  if (finished_) throw Error("CsrOffsets: push_back after finish");
  if (begin < last_) throw Error("CsrOffsets: request " + std::to_string(n_) + " begins before the one before it");
  if (begin >= kWide) throw Error("CsrOffsets: more than 2^31 entries");
  last_ = begin;
  pending_[pending_n_++] = begin;
  ++n_;
  if (pending_n_ == kBlock) flush();
}

void CsrOffsets::finish(uint32_t end) {
  if (end < last_) throw Error("CsrOffsets: the array ends before the last request's begin");
  if (pending_n_ > 0) flush();
  end_ = end;
  finished_ = true;
}

void CsrOffsets::flush() {
  const uint32_t first = pending_[0];
  if (pending_[pending_n_ - 1] - first <= 0xff) {
    base_.push_back(first);
    for (uint32_t i = 0; i < pending_n_; ++i) off_.push_back(static_cast<uint8_t>(pending_[i] - first));
  } else {
    base_.push_back(kWide | static_cast<uint32_t>(wide_.size()));
    wide_.insert(wide_.end(), pending_.begin(), pending_.end());  // (kBlock: a partial last block's tail unused)
    off_.insert(off_.end(), pending_n_, 0);
  }
  pending_n_ = 0;
}

size_t CsrOffsets::memory_bytes() const {
  return base_.capacity() * sizeof(uint32_t) + off_.capacity() + wide_.capacity() * sizeof(uint32_t);
}

}  // namespace rastro::replay
