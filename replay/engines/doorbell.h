// Idle waiting for the coordinator engine's queues: an event count on a futex. A consumer that
// found its queue empty spins briefly, then sleeps until a producer rings; a producer's ring
// costs one atomic add, plus a futex wake only when someone sleeps.
//
// Before, idle threads polled: spin, yield, then nanosleep(5 us) in a loop. With the default
// 50 us timer slack each poll slept >= 55 us, so a request reaching an idle worker (or a
// completion reaching the coordinator) waited up to that long, and each idle worker (one per
// traced thread: 27 for make -j2) woke up to 18,000 times a second to look.
//
//   consumer:  for (;;) { if (q.pop(x)) ...; else { auto seen = bell.prepare();
//                                                   if (!q.pop(x)) bell.wait(seen); } }
//   producer:  q.push(x); bell.ring();
//
// No wake-up is lost: a ring after prepare() changes the count, so wait(seen) returns at once.
//
// In a shared mapping, set_across_processes() makes its futex a shared one, so the replay
// processes (EngineOptions::processes) can sleep and ring on it.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>

#include "replay/runtime/completion_flag.h"

namespace rastro::replay::detail {

class Doorbell {
 public:
  // Before any thread uses it.
  void set_across_processes(bool across) { private_flag_ = across ? 0 : FUTEX_PRIVATE_FLAG; }

  // Read before the last look at the queue.
  uint32_t prepare() const { return count_.load(std::memory_order_seq_cst); }

  // Sleeps unless a ring came after `seen` (prepare). Spurious returns are allowed.
  void wait(uint32_t seen) {
    sleepers_.fetch_add(1, std::memory_order_seq_cst);
    if (count_.load(std::memory_order_seq_cst) == seen) {
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&count_), FUTEX_WAIT | private_flag_, seen, nullptr, nullptr, 0);
    }
    sleepers_.fetch_sub(1, std::memory_order_seq_cst);
  }

  // After pushing: wakes one sleeper (all: `everyone`).
  void ring(bool everyone = false) {
    count_.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) != 0) {
      syscall(SYS_futex, reinterpret_cast<uint32_t*>(&count_), FUTEX_WAKE | private_flag_, everyone ? INT_MAX : 1, nullptr,
              nullptr, 0);
    }
  }

  // The consumer loop's idle step: `pop()` until it succeeds, spinning `spins` times (the next
  // request of a chain usually comes within tens of microseconds), then sleeping between rings.
  //
  // No sched_yield() between the two. It once stood there, "free on an idle machine", and it was
  // the coordinator's undoing on a busy one: a yield hands the CPU to any runnable thread for the
  // rest of its time slice (milliseconds), and a push made meanwhile is seen only when the yield
  // returns, where a futex sleeper is woken at once. With two busy loops beside it, git's
  // coordinator/fs replay ran +1300 … +2800 % over its traced span with 64 yields, +30 … +50 %
  // without (docs/performance.md, "The coordinator on a busy machine").
  template <typename Pop>
  void pop_or_sleep(Pop&& pop, int spins = 512) {
    for (int i = 0; i < spins; ++i) {
      if (pop()) return;
      CompletionFlag::cpu_relax();
    }
    for (;;) {
      const uint32_t seen = prepare();
      if (pop()) return;
      wait(seen);
    }
  }

 private:
  std::atomic<uint32_t> count_{0};
  std::atomic<uint32_t> sleepers_{0};
  int private_flag_ = FUTEX_PRIVATE_FLAG;  // 0: shared with other processes
  static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t));
};

}  // namespace rastro::replay::detail
