// A request's completion flag (thesis §6.2.2): dependants wait on it directly, with no central
// component. Waiting spins briefly (most dependencies complete within a few microseconds on a
// busy replay) and then sleeps on a futex; completing wakes sleepers only if one announced
// itself, so the common path is one atomic exchange and no system call.
//
// CompletionFlags below packs the flags of all of a plan's requests; made `across_processes`, its
// words are a shared mapping and its futexes shared ones, so the replay processes of
// EngineOptions::processes (one per traced process, replay_threads.h) wait on each other's
// requests. Header-only so the compiled replayer's generated code inlines it exactly like the
// engines.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "replay/runtime/shared_array.h"

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

// The completion flags of every request of a plan, packed: 2 bits a request (done, and a waiter
// sleeps on it) in 32-bit futex words, instead of a 4-byte CompletionFlag each (issue #16: 4 of
// a replay's bytes per request). The same protocol per request: completing is one atomic OR and
// wakes the word's sleepers only if this request has one; a sleeper woken for a neighbour of its
// word, or whose word changed before it slept, looks again.
class CompletionFlags {
 public:
  CompletionFlags() = default;
  explicit CompletionFlags(size_t n, bool across_processes = false)
      : words_((n + kPerWord - 1) / kPerWord, across_processes),
        private_flag_(across_processes ? 0 : FUTEX_PRIVATE_FLAG) {}

  bool done(uint32_t r) const { return word(r).load(std::memory_order_acquire) & done_bit(r); }

  // Publishes r's completion; everything written before it is visible to a waiter that returns.
  void complete(uint32_t r) {
    std::atomic<uint32_t>& w = word(r);
    if (w.fetch_or(done_bit(r), std::memory_order_acq_rel) & waiter_bit(r)) {
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&w), FUTEX_WAKE | private_flag_, INT_MAX, nullptr, nullptr, 0);
    }
  }

  // Returns true if the caller had to wait (r was not yet done on entry).
  bool wait(uint32_t r, int spins = 2000) {
    if (done(r)) return false;
    for (int i = 0; i < spins; ++i) {
      if (done(r)) return true;
      CompletionFlag::cpu_relax();
    }
    std::atomic<uint32_t>& w = word(r);
    uint32_t s = w.load(std::memory_order_acquire);
    while (!(s & done_bit(r))) {
      if (!(s & waiter_bit(r)) && !w.compare_exchange_weak(s, s | waiter_bit(r), std::memory_order_acq_rel)) {
        continue;  // s was reloaded
      }
      // Returns at once if the word is no longer s (this request or a neighbour completed).
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&w), FUTEX_WAIT | private_flag_, s | waiter_bit(r), nullptr, nullptr,
              0);
      s = w.load(std::memory_order_acquire);
    }
    return true;
  }

 private:
  static constexpr uint32_t kPerWord = 16;
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
  std::atomic<uint32_t>& word(uint32_t r) const { return words_[r / kPerWord]; }
  static uint32_t done_bit(uint32_t r) { return uint32_t{1} << (2 * (r % kPerWord)); }
  static uint32_t waiter_bit(uint32_t r) { return uint32_t{2} << (2 * (r % kPerWord)); }
  SharedArray<std::atomic<uint32_t>> words_;
  int private_flag_ = FUTEX_PRIVATE_FLAG;  // 0: the words are shared with other processes
};

}  // namespace rastro::replay
