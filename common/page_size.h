// The machine's page size, and lengths rounded up to whole pages (what the kernel's mmap, munmap,
// mprotect ... act on).
#pragma once

#include <unistd.h>

#include <cstdint>

namespace rastro {

inline uint64_t page_size() {
  static const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// Saturates at the largest whole number of pages (a hostile trace's length near 2^64).
inline uint64_t page_round_up(uint64_t n) {
  const uint64_t page = page_size();
  return n > UINT64_MAX - page ? UINT64_MAX / page * page : (n + page - 1) / page * page;
}

}  // namespace rastro
