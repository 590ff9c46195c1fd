// Hands the pages of v[0, upto) back to the kernel, for a pass that consumes a large column front
// to back while it builds what replaces it (issue #16: the two need not be resident at once). The
// elements before `upto` must never be read again; the vector is freed whole afterwards. An
// `upto` past the end drops the whole vector's pages and no more; an empty vector (a column not in
// use, as the identity event order) has none.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace rastro {

template <class T>
void drop_consumed(std::vector<T>& v, size_t upto) {
  static_assert(std::is_trivially_destructible_v<T>);
  upto = std::min(upto, v.size());
  if (upto == 0) return;  // v.data() may be null: no pointer arithmetic on it
  static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t lo = (reinterpret_cast<uintptr_t>(v.data()) + page - 1) & ~(page - 1);
  const uintptr_t hi = reinterpret_cast<uintptr_t>(v.data() + upto) & ~(page - 1);
  if (hi > lo) madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_DONTNEED);
}

}  // namespace rastro
