// The resolved path arguments of a plan's requests (Plan::paths; resolve_paths writes them, later
// passes and the replayers read them), stored only for the requests that have one. Most calls of a
// large trace are reads and writes on fds and name no path: two StrIds in every request were 8
// bytes per event of inference's peak and of the replay's (issue #16); here a request without a
// path costs a bit of a presence mask and a 64-request block's count, ~0.2 bytes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "trace/model/event.h"

namespace rastro::replay {

class PathColumn {
 public:
  using Paths = std::array<trace::StrId, 2>;  // slot i: the i-th path argument, resolved (kNoStr: none)

  // n requests, none with a path.
  void assign(uint32_t n);
  uint32_t size() const { return n_; }  // (0 in a plan built by hand: every request reads as none)
  // Sets slot i of request r. Requests are given their paths in increasing order: r is the last
  // request set so far or a later one (resolve_paths visits them in order); an earlier one throws.
  void set(uint32_t r, size_t i, trace::StrId path);
  Paths operator[](uint32_t r) const;  // (none for r >= size())
  // Requests with at least one path.
  size_t with_paths() const { return entries_.size(); }
  size_t memory_bytes() const;

 private:
  static constexpr uint32_t kBlock = 64;
  uint32_t n_ = 0;
  std::vector<uint64_t> present_;  // bit r % 64 of word r / 64: request r has an entry
  std::vector<uint32_t> before_;   // per block: entries of the blocks before it (set up to the last entry's block)
  std::vector<Paths> entries_;     // in request order
  uint32_t last_ = 0;              // the request of entries_.back()
};

}  // namespace rastro::replay
