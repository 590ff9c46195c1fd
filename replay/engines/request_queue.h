// The coordinator engine's queues of request ids ("available" per traced process, "replayed"),
// lock-free, and shareable with the replay processes (EngineOptions::processes).
//
// Each request enters each queue at most once in a replay, so a queue is a write-once array sized
// to everything that will ever be pushed: a producer claims the next slot with one fetch_add and
// stores the id there; consumers claim the oldest written slot with a compare-and-swap on the
// head. No slot is reused, so there is no ABA and no freelist — and no pointer: the slots and
// counters are SharedArrays (one mapping for every replay process, made before the first fork)
// and the doorbell's futex is a shared one across processes. A Boost.Lockfree queue keeps its
// nodes on the heap, which a fork copies.
//
// A consumer that finds the oldest claimed slot not yet written reports the queue empty: its
// producer rings the doorbell right after writing it, so the consumer's sleep ends then.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "replay/engines/doorbell.h"
#include "replay/runtime/shared_array.h"

namespace rastro::replay::detail {

class RequestQueue {
 public:
  RequestQueue() = default;
  // `capacity`: how many pushes the queue will take in all.
  RequestQueue(size_t capacity, bool across_processes)
      : slots_(capacity, across_processes), ends_(1, across_processes), capacity_(capacity) {
    ends_[0].bell.set_across_processes(across_processes);
  }

  void push(uint32_t r) {
    const uint64_t i = ends_[0].tail.fetch_add(1, std::memory_order_relaxed);
    if (i >= capacity_) throw std::logic_error("RequestQueue: more pushes than its capacity");
    slots_[i].store(r + 1, std::memory_order_release);  // 0 marks a slot not yet written
    ends_[0].bell.ring();
  }
  // Wakes every sleeping consumer (after the stop tokens).
  void ring_everyone() { ends_[0].bell.ring(/*everyone=*/true); }

  bool try_pop(uint32_t& r) {
    std::atomic<uint64_t>& head = ends_[0].head;
    uint64_t h = head.load(std::memory_order_relaxed);
    for (;;) {
      if (h >= capacity_) return false;
      const uint32_t v = slots_[h].load(std::memory_order_acquire);
      if (v == 0) return false;
      if (head.compare_exchange_weak(h, h + 1, std::memory_order_relaxed)) {
        r = v - 1;
        return true;
      }  // another consumer took slot h: h now holds the new head
    }
  }
  // Pops, spinning briefly and then sleeping on the doorbell while the queue is empty.
  uint32_t pop(int spins = 512) {
    uint32_t r = 0;
    pop_unless(r, [] { return false; }, spins);
    return r;
  }
  // As pop(), but gives up (false) once `stop()` holds; whoever makes it hold calls ring_everyone().
  template <typename Stop>
  bool pop_unless(uint32_t& r, Stop&& stop, int spins = 512) {
    bool stopped = false;
    ends_[0].bell.pop_or_sleep([&] { return try_pop(r) || (stopped = stop()); }, spins);
    return !stopped;
  }

 private:
  struct Ends {
    alignas(64) std::atomic<uint64_t> tail{0};  // producers' line
    alignas(64) std::atomic<uint64_t> head{0};  // consumers' line
    alignas(64) Doorbell bell;
  };
  SharedArray<std::atomic<uint32_t>> slots_;
  SharedArray<Ends> ends_;
  size_t capacity_ = 0;
};

}  // namespace rastro::replay::detail
