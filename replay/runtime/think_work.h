// What a replay thread does with the traced thread's own time before a call (`--think-work`).
//
// Between two calls a traced thread ran its own code, and what that code left in the CPU's caches
// and TLB is part of the next call's time (docs/replay.md "Calls after a program's own work"). A
// replay thread waiting for a call's planned time otherwise sleeps or spins on the clock and finds
// the kernel's lines where its previous call left them: after 4 MiB of the program's own work
// between calls, bench/work_then_calls.c's `fcntl` replayed at 0.47 of its traced time.
//
// With `memory`, for the part of the wait that stands for the thread's own traced gap (from its
// previous call's end to this call's begin, less the time the capture saw it off-CPU there —
// Event::gap_offcpu_ns, eBPF captures — divided by the speed: the time it ran its own code), the
// replay thread reads a buffer one byte per cache line, going on from where it stopped, until the
// call is due. The trace does not say what the program touched
// (a syscall trace records no user work, and this VM has no hardware counters to count its cache
// misses), so this is a model with one knob: the buffer's size, the most one gap can touch. It
// stands for a program that works on memory all through its gaps: the coldest the data caches get.
//
// With `code` as well, the thread also runs through a region of code, a jump a cache line, which
// takes the instruction cache, the instruction TLB and the branch predictors away from the
// kernel's path as a large program's own code does (git's gaps are code more than data: reading
// data alone left its calls' lines in the L1i, r19). The size is the code's footprint per sweep.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace rastro::replay {

// Nothing (both 0) is the default: the thread waits (sleeps, then spins on the clock).
struct ThinkWork {
  // Twice this machine's L2 per core (2 MiB): a gap that long leaves none of the kernel's lines there.
  static constexpr size_t kDefaultMemoryBytes = size_t{4} << 20;
  // 32 times the L1i and twice the L2's reach of the instruction TLB: a large program's hot code.
  static constexpr size_t kDefaultCodeBytes = size_t{1} << 20;
  size_t memory_bytes = 0;  // data read a line at a time through the thread's own gap (0: none)
  size_t code_bytes = 0;    // code run a line at a time alongside (0: none)
  bool active() const { return memory_bytes != 0 || code_bytes != 0; }
};

// "none", or parts joined by ',': "memory[:SIZE]" and "code[:SIZE]", each at most once (SIZE as
// common/units.h's parse_size reads it: "4M", "256KiB"; data at least one 64-byte line, code at
// least one 1 KiB chunk; at most 1G).
Result<ThinkWork> parse_think_work(std::string_view text);
// "none", "memory:4MiB", "code:1MiB" or "memory:4MiB,code:1MiB" (whole KiB/MiB/GiB where exact).
std::string think_work_name(const ThinkWork& work);

// The memory one replay reads, and the code it runs, through its gaps: made once before its threads
// start, shared by them and inherited by its replay processes (only read or run after it is
// filled, so forks copy none of it).
class ThinkBuffer {
 public:
  ThinkBuffer() = default;
  // Maps and fills the buffer for `memory` (filled: untouched anonymous memory reads as the one
  // shared zero page, which would pollute no cache) and writes the code for `code`; nothing for
  // `none`. Throws rastro::Error.
  explicit ThinkBuffer(const ThinkWork& work);
  ThinkBuffer(ThinkBuffer&& other) noexcept;
  ThinkBuffer& operator=(ThinkBuffer&& other) noexcept;
  ThinkBuffer(const ThinkBuffer&) = delete;
  ThinkBuffer& operator=(const ThinkBuffer&) = delete;
  ~ThinkBuffer();

  bool active() const { return data_ != nullptr || code_ != nullptr; }
  // Reads lines of the buffer and runs chunks of the code (each from where this thread stopped
  // last time, wrapping around) until CLOCK_MONOTONIC is within a microsecond of `deadline_ns`;
  // returns how many lines it read or ran. 0 when not active or already past the deadline.
  uint64_t work_until(int64_t deadline_ns) const;

 private:
  void release();
  const unsigned char* data_ = nullptr;
  size_t data_lines_ = 0;
  const unsigned char* code_ = nullptr;
  size_t code_chunks_ = 0;
};

}  // namespace rastro::replay
