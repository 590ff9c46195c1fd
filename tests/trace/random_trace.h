// Test helper: randomized traces that exercise every field of the model (all ArgTypes, flags,
// extreme and negative values, strings with NUL and non-UTF-8 bytes, replay extras).
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "trace/model/trace.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::trace::testing {

inline Trace random_trace(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t k) { return rng() % k; };
  Trace t;
  t.header.backend = "random-test";
  t.header.host = "host\xff";  // invalid UTF-8 must not break the header
  t.header.settings = {{"seed", seed}};
  t.header.events_captured = n;
  t.header.events_lost = 3;
  t.header.lost_reasons = {{"ringbuf_full", 3}};
  // Strings: plain paths, embedded NULs, non-UTF-8, long ones.
  std::vector<StrId> ids{kNoStr};
  for (int i = 0; i < 40; ++i) {
    std::string s = "/tmp/file" + std::to_string(i);
    if (i % 5 == 1) s += std::string("\0nul", 4);
    if (i % 5 == 2) s += "\xff\xfe\x80";
    if (i % 5 == 3) s += std::string(300 + i, 'x');
    ids.push_back(t.strings.intern(s));
  }
  const int64_t extremes[] = {0,
                              1,
                              -1,
                              -100,
                              std::numeric_limits<int64_t>::min(),
                              std::numeric_limits<int64_t>::max(),
                              int64_t{1} << 40,
                              -(int64_t{1} << 33)};
  auto value = [&]() -> int64_t {
    switch (pick(3)) {
      case 0: return extremes[pick(std::size(extremes))];
      case 1: return static_cast<int64_t>(pick(100000));
      default: return static_cast<int64_t>(rng());
    }
  };
  auto syscalls = all_syscalls();
  int64_t clock = 1'000'000'000'000;
  uint64_t seq = 0;
  for (size_t i = 0; i < n; ++i) {
    Event e;
    seq += 1 + (pick(10) == 0 ? pick(5) : 0);  // occasional gaps (a filtered trace)
    e.seq = seq;
    e.pid = static_cast<int32_t>(1000 + pick(3));
    e.tid = e.pid + static_cast<int32_t>(pick(4));
    clock += static_cast<int64_t>(pick(100000));
    e.begin_ns = pick(50) == 0 ? value() : clock;
    // Wrapping add: begin may be an extreme value (signed overflow would be UB).
    e.end_ns = pick(50) == 0 ? value()
                             : static_cast<int64_t>(static_cast<uint64_t>(e.begin_ns) + pick(1000000));
    if (pick(8) == 0) {
      e.nr = pick(2) ? -1 : 400 + static_cast<int32_t>(pick(50));
      e.name = ids[1 + pick(ids.size() - 1)];
    } else {
      e.nr = syscalls[pick(syscalls.size())].nr;
    }
    e.nargs = static_cast<uint8_t>(pick(kMaxArgs + 1));
    for (int a = 0; a < e.nargs; ++a) {
      Arg& arg = e.args[static_cast<size_t>(a)];
      arg.type = static_cast<ArgType>(pick(static_cast<uint64_t>(ArgType::kLast) + 1));
      arg.value = value();
      arg.str = pick(3) == 0 ? ids[pick(ids.size())] : kNoStr;
    }
    e.rvalue = value();
    e.flags = static_cast<uint32_t>(pick(128));
    if (e.flags & kEventReplayed) {
      e.planned_ns = static_cast<int64_t>(static_cast<uint64_t>(e.begin_ns) - pick(1000));
      e.expected_rvalue = value();
    }
    if (e.flags & kEventCalibrated) e.raw_end_ns = value();
    if (e.flags & kEventOffCpu) {
      e.offcpu_ns = value();
      e.vol_switches = static_cast<uint32_t>(pick(1u << 31));
      e.invol_switches = static_cast<uint32_t>(pick(100));
      e.gap_offcpu_ns = pick(2) ? 0 : value();
    }
    if (e.flags & kEventUring) {
      e.uring_user_data = static_cast<uint64_t>(value());
      e.uring_enter_ns = pick(2) ? 0 : value();
    }
    t.events.push_back(e);
  }
  return t;
}

}  // namespace rastro::trace::testing
