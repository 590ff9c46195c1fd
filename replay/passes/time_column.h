// The traced begin and end of every request while inference runs (InferContext::times): 8 bytes a
// request instead of two int64 columns' 16 (issue #16: at 100 M events those were 1.6 GB of
// inference's peak).
//
// Requests are in begin order (parse sorts them), so a begin is stored as its offset from the
// first begin of its 64-request block, and the end as the call's duration; both as uint32 ns
// (4.29 s). What does not fit — a gap of more than 4.29 s inside a block, a longer call, and an
// unfinished call (end = INT64_MAX: it never completes) — is kept exactly in a side table, so
// every value reads back as it was set, for any int64 a hostile trace holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace rastro::replay {

class TimeColumn {
 public:
  // Room for n requests, to be set in order.
  void reserve(uint32_t n);
  // Sets the next request's begin and end (end >= begin). Requests are set in increasing order of
  // index and of begin (a decreasing begin throws).
  void push_back(int64_t begin, int64_t end);
  uint32_t size() const { return static_cast<uint32_t>(offset_.size()); }

  int64_t begin(uint32_t r) const {
    const uint32_t o = offset_[r];
    return o != kWide ? block_first_[r / kBlock] + o : wide(begins_, r);
  }
  int64_t end(uint32_t r) const {
    const uint32_t d = duration_[r];
    return d != kWide ? begin(r) + d : wide(ends_, r);
  }

  // Hands the pages of requests [0, upto) back to the kernel: the plan pass consumes the column
  // front to back (plan.cpp). Those requests are never read again.
  void drop_consumed(uint32_t upto);
  size_t memory_bytes() const;

 private:
  static constexpr uint32_t kBlock = 64;
  static constexpr uint32_t kWide = UINT32_MAX;  // the value is in the side table
  using Wide = std::vector<std::pair<uint32_t, int64_t>>;  // (request, value), in request order

  static int64_t wide(const Wide& w, uint32_t r);

  std::vector<int64_t> block_first_;  // per block: the begin of its first request
  std::vector<uint32_t> offset_;      // begin - block_first_, or kWide
  std::vector<uint32_t> duration_;    // end - begin, or kWide
  Wide begins_, ends_;
};

}  // namespace rastro::replay
