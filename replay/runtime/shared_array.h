// An array the replay threads share — and, when each traced process is replayed in a process of
// its own (EngineOptions::processes, replay_threads.h), the replay processes too: the completion
// flags and the schedule that order requests across traced processes must be one memory for all
// of them, which a fork copies unless it is a shared mapping.
//
// Across processes it is an anonymous MAP_SHARED mapping made before the first fork; otherwise
// plain anonymous memory (MAP_PRIVATE), as the heap would give. Either way zero-filled: elements
// start value-initialized. Header-only: the compiled replayer's generated code uses it too.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace rastro::replay {

template <class T>
class SharedArray {
  static_assert(std::is_trivially_destructible_v<T>, "nothing is destroyed: the mapping is just unmapped");

 public:
  SharedArray() = default;
  SharedArray(size_t n, bool across_processes) : n_(n) {
    if (n == 0) return;
    void* p = ::mmap(nullptr, bytes(), PROT_READ | PROT_WRITE,
                     (across_processes ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    data_ = static_cast<T*>(p);
    // Zero pages already hold zero-valued integers; objects such as atomics are begun in place.
    if constexpr (!std::is_trivially_default_constructible_v<T>)
      for (size_t i = 0; i < n; ++i) new (data_ + i) T();
  }
  ~SharedArray() { release(); }
  SharedArray(SharedArray&& o) noexcept { *this = std::move(o); }
  SharedArray& operator=(SharedArray&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  SharedArray(const SharedArray&) = delete;
  SharedArray& operator=(const SharedArray&) = delete;

  T& operator[](size_t i) const { return data_[i]; }
  size_t size() const { return n_; }

 private:
  size_t bytes() const { return n_ * sizeof(T); }
  void release() {
    if (data_) ::munmap(data_, bytes());
    data_ = nullptr;
  }
  T* data_ = nullptr;
  size_t n_ = 0;
};

}  // namespace rastro::replay
