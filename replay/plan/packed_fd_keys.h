// The fd keys of every plan request (Plan::fd_keys, plan.h), packed: a request has 8 slots but
// most use none or one, so each request stores a byte saying which slots hold a key and only those
// keys (~5 bytes per request instead of 32). operator[] returns the request's 8 slots by value,
// -1 where none, as the dense table did.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rastro::replay {

class PackedFdKeys {
 public:
  using Row = std::array<int32_t, 8>;

  size_t size() const { return masks_.size(); }
  bool empty() const { return masks_.empty(); }
  void reserve(size_t n);
  void push_back(const Row& row);
  Row operator[](size_t r) const;
  size_t memory_bytes() const;

 private:
  static constexpr size_t kGroup = 16;  // requests per stored index into values_

  std::vector<uint8_t> masks_;         // per request: bit i = slot i holds a key
  std::vector<uint64_t> group_first_;  // per group of kGroup requests: its first key in values_
  std::vector<int32_t> values_;        // the keys, request after request, slot order
};

}  // namespace rastro::replay
