// LEB128 varints and zigzag mapping, the integer encoding of every binary-format column.
//
// Zigzag maps small negative deltas to small unsigned numbers (0,-1,1,-2 -> 0,1,2,3) so that a
// delta of -1 costs one byte instead of ten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace rastro::trace::binary {

inline uint64_t zigzag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t unzigzag(uint64_t u) {
  return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
}

inline constexpr size_t kMaxVarintBytes = 10;

// Writes v at p (room for kMaxVarintBytes); returns the end of what it wrote.
inline uint8_t* put_varint(uint8_t* p, uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}
inline void put_varint(std::string& out, uint64_t v) {
  uint8_t tmp[kMaxVarintBytes];
  out.append(reinterpret_cast<const char*>(tmp), static_cast<size_t>(put_varint(tmp, v) - tmp));
}
inline void put_svarint(std::string& out, int64_t v) { put_varint(out, zigzag(v)); }

// Reads varints from [p, end). A malformed or overlong varint, or reading past the end, sets
// `bad` and yields 0; callers check bad() once per column instead of after every value.
class VarintCursor {
 public:
  VarintCursor() = default;
  VarintCursor(const uint8_t* p, const uint8_t* end) : p_(p), end_(end) {}

  uint64_t get() {
    if (static_cast<size_t>(end_ - p_) >= kMaxVarintBytes) {  // fast path: no bound checks
      uint64_t b = *p_++;
      if (b < 0x80) return b;
      uint64_t v = b & 0x7f;
      for (int shift = 7; shift < 70; shift += 7) {
        b = *p_++;
        v |= (b & 0x7f) << shift;
        if (b < 0x80) return v;
      }
      bad_ = true;
      return 0;
    }
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ == end_) {
        bad_ = true;
        return 0;
      }
      uint64_t b = *p_++;
      v |= (b & 0x7f) << shift;
      if (b < 0x80) return v;
    }
    bad_ = true;
    return 0;
  }
  int64_t get_signed() { return unzigzag(get()); }
  uint8_t get_byte() {
    if (p_ == end_) {
      bad_ = true;
      return 0;
    }
    return *p_++;
  }
  // Takes `n` raw bytes; nullptr (and bad) when fewer remain.
  const uint8_t* take(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) {
      bad_ = true;
      return nullptr;
    }
    const uint8_t* r = p_;
    p_ += n;
    return r;
  }
  bool bad() const { return bad_; }
  bool at_end() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

 private:
  const uint8_t* p_ = nullptr;
  const uint8_t* end_ = nullptr;
  bool bad_ = false;
};

}  // namespace rastro::trace::binary
