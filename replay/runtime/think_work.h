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
// stands for a program that works on memory all through its gaps: the coldest the caches get.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace rastro::replay {

struct ThinkWork {
  enum class Mode : uint8_t {
    kNone,    // wait: sleep, then spin on the clock (the default)
    kMemory,  // read `bytes` of memory, a line at a time, through the thread's own gap
  };
  // Twice this machine's L2 per core (2 MiB): a gap that long leaves none of the kernel's lines there.
  static constexpr size_t kDefaultBytes = size_t{4} << 20;
  Mode mode = Mode::kNone;
  size_t bytes = kDefaultBytes;
  bool active() const { return mode != Mode::kNone; }
};

// "none", "memory", "memory:SIZE" (SIZE as common/units.h's parse_size reads it: "4M", "256KiB";
// at least one 64-byte line, at most 1G).
Result<ThinkWork> parse_think_work(std::string_view text);
// "none" or "memory:4MiB" (whole KiB/MiB/GiB where exact, else bytes).
std::string think_work_name(const ThinkWork& work);

// The memory one replay reads through its gaps: made once before its threads start, shared by them
// and inherited by its replay processes (only read after it is filled, so forks copy none of it).
class ThinkBuffer {
 public:
  ThinkBuffer() = default;
  // Maps and fills the buffer for `memory` (filled: untouched anonymous memory reads as the one
  // shared zero page, which would pollute no cache); nothing for `none`. Throws rastro::Error.
  explicit ThinkBuffer(const ThinkWork& work);
  ThinkBuffer(ThinkBuffer&& other) noexcept;
  ThinkBuffer& operator=(ThinkBuffer&& other) noexcept;
  ThinkBuffer(const ThinkBuffer&) = delete;
  ThinkBuffer& operator=(const ThinkBuffer&) = delete;
  ~ThinkBuffer();

  bool active() const { return base_ != nullptr; }
  // Reads lines of the buffer (from where this thread stopped last time, wrapping around) until
  // CLOCK_MONOTONIC is within a microsecond of `deadline_ns`; returns how many lines it read. 0 when
  // not active or already past the deadline.
  uint64_t work_until(int64_t deadline_ns) const;

 private:
  const unsigned char* base_ = nullptr;
  size_t lines_ = 0;
};

}  // namespace rastro::replay
