// A page-aligned byte buffer for the data of replayed reads and writes. Page alignment is what
// O_DIRECT asks of user memory (a traced O_DIRECT read into a malloc'ed buffer fails EINVAL), and
// anonymous pages cost nothing until the kernel touches them, so a large traced request does not
// commit memory it never fills.
#pragma once

#include <cstddef>

namespace rastro::replay {

class IoBuffer {
 public:
  IoBuffer() = default;
  ~IoBuffer();
  IoBuffer(IoBuffer&& o) noexcept;
  IoBuffer& operator=(IoBuffer&& o) noexcept;
  IoBuffer(const IoBuffer&) = delete;
  IoBuffer& operator=(const IoBuffer&) = delete;

  // At least n bytes; growing maps a new area (the old contents are not kept). Throws
  // std::bad_alloc when the kernel refuses the mapping.
  char* area(size_t n);
  char* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  char* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace rastro::replay
