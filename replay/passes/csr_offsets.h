// Where each request's run of a CSR array begins (InferContext::fd_refs_at, deps_at). Most
// requests of a large trace have no fd reference beyond one and, with program order implicit, no
// stored dependency: a uint32 begin per request was 4 bytes of inference's peak each (issue #16).
// Here a 64-request block keeps its first request's begin, and each request its offset from
// there in one byte: ~1.06 bytes a request. A block whose runs hold more than 255 entries before
// its last request keeps its 64 begins as uint32 aside (exact, whatever the counts).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rastro::replay {

class CsrOffsets {
 public:
  // Room for n requests (pages are touched as they fill).
  void reserve(uint32_t n);
  // Appends the next request's begin (size() before the call is its index). Begins never
  // decrease; a smaller one throws.
  void push_back(uint32_t begin);
  // Closes the column: `end` is the size of the CSR array (>= the last begin). Until then
  // begin() and end() are not defined.
  void finish(uint32_t end);
  bool finished() const { return finished_; }
  uint32_t size() const { return n_; }  // requests pushed

  uint32_t begin(uint32_t r) const {
    const uint32_t b = base_[r / kBlock];
    return (b & kWide) ? wide_[(b & ~kWide) + r % kBlock] : b + off_[r];
  }
  uint32_t end(uint32_t r) const { return r + 1 < n_ ? begin(r + 1) : end_; }
  size_t memory_bytes() const;

 private:
  static constexpr uint32_t kBlock = 64;
  static constexpr uint32_t kWide = uint32_t{1} << 31;  // base_ entry: an index into wide_
  void flush();

  std::vector<uint32_t> base_;  // per block: its first request's begin, or kWide | index into wide_
  std::vector<uint8_t> off_;    // per request: its begin minus its block's base (compact blocks)
  std::vector<uint32_t> wide_;  // the begins of the wide blocks, kBlock each
  std::array<uint32_t, kBlock> pending_{};  // the current block's begins, until it is complete
  uint32_t pending_n_ = 0;
  uint32_t n_ = 0;
  uint32_t last_ = 0;  // the last begin pushed
  uint32_t end_ = 0;
  bool finished_ = false;
};

}  // namespace rastro::replay
