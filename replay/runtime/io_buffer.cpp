#include "replay/runtime/io_buffer.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace rastro::replay {

IoBuffer::~IoBuffer() {
  if (p_) ::munmap(p_, n_);
}

IoBuffer::IoBuffer(IoBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}

IoBuffer& IoBuffer::operator=(IoBuffer&& o) noexcept {
  if (this != &o) {
    if (p_) ::munmap(p_, n_);
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
  }
  return *this;
}

char* IoBuffer::area(size_t n) {
  if (n <= n_ && p_) return p_;
  size_t want = 4096;
  while (want < n) want *= 2;  // doubling: a thread's growing requests remap a few times only
  void* p = ::mmap(nullptr, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // A replay process forked where the trace forks (EngineOptions::processes) makes buffers of its
  // own: not copied into it, this thread's stay its own, and its reads land in no copy-on-write
  // page (a fault inside the timed call).
  ::madvise(p, want, MADV_DONTFORK);
  if (p_) ::munmap(p_, n_);
  p_ = static_cast<char*>(p);
  n_ = want;
  return p_;
}

}  // namespace rastro::replay
