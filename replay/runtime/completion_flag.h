// A request's completion flag (thesis §6.2.2): dependants wait on it directly, with no central
// component. Waiting spins briefly (most dependencies complete within a few microseconds on a
// busy replay) and then sleeps on a futex; completing wakes sleepers only if one announced
// itself, so the common path is one atomic exchange and no system call.
//
// Header-only so the compiled replayer's generated code inlines it exactly like the engines.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

namespace rastro::replay {

class CompletionFlag {
 public:
  static constexpr uint32_t kPending = 0;
  static constexpr uint32_t kDone = 1;
  static constexpr uint32_t kPendingWithWaiters = 2;

  bool done() const { return state_.load(std::memory_order_acquire) == kDone; }

  // Publishes completion; everything written before it is visible to a waiter that returns.
  void complete() {
    if (state_.exchange(kDone, std::memory_order_acq_rel) == kPendingWithWaiters) {
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&state_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr,
              nullptr, 0);
    }
  }

  // Returns true if the caller had to wait (the flag was not yet set on entry).
  bool wait(int spins = 2000) {
    if (done()) return false;
    for (int i = 0; i < spins; ++i) {
      if (done()) return true;
      cpu_relax();
    }
    uint32_t s = state_.load(std::memory_order_acquire);
    while (s != kDone) {
      if (s == kPending &&
          !state_.compare_exchange_weak(s, kPendingWithWaiters, std::memory_order_acq_rel)) {
        continue;  // s was reloaded
      }
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&state_), FUTEX_WAIT_PRIVATE,
              kPendingWithWaiters, nullptr, nullptr, 0);
      s = state_.load(std::memory_order_acquire);
    }
    return true;
  }

  void reset() { state_.store(kPending, std::memory_order_relaxed); }

  static void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

 private:
  std::atomic<uint32_t> state_{kPending};
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
};

}  // namespace rastro::replay
