// Test helper: an original trace and a replay of it, written as a replayer would (one event per
// original call, begin order, the traced pid/tid/call/arguments, flag kEventReplayed,
// expected_rvalue = the traced result, renumbered seq), with outcomes known by construction:
//
//   call i (0 <= i < n): pid 7, tid 7 + i % 3; openat("/f<i>") when i is even, else read(3, 4096);
//   begin 1000 + 100 i, end begin + 50 + 500 (i % 3) (so end order is not begin order); rvalue i.
//   Replay: begin = original begin + 1 ms, duration twice the original's; skipped when i % 7 == 0,
//   else mismatched (rvalue -1) when i % 11 == 0.
//
// The original is stored in end order (as a capture may be), the replay in begin order.
#pragma once

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace rastro::trace::testing {

inline constexpr int64_t kReplayOffsetNs = 1'000'000;

struct ReplayPairTraces {
  Trace original;  // in begin order (the file holds it in end order)
  Trace replayed;  // as written
};

inline ReplayPairTraces make_replay_pair(int n) {
  ReplayPairTraces p;
  p.original.header.backend = "test";
  for (int i = 0; i < n; ++i) {
    Event e;
    e.seq = static_cast<uint64_t>(i);
    e.pid = 7;
    e.tid = 7 + i % 3;
    e.begin_ns = 1000 + 100 * int64_t{i};
    e.end_ns = e.begin_ns + 50 + 500 * (i % 3);
    e.rvalue = i;
    if (i % 2 == 0) {
      e.nr = SYS_openat;
      e.nargs = 4;
      e.args[0] = Arg{ArgType::kDirFd, AT_FDCWD, kNoStr};
      e.args[1] = Arg{ArgType::kPath, 0, p.original.strings.intern("/f" + std::to_string(i))};
      e.args[2] = Arg{ArgType::kOpenFlags, O_RDONLY, kNoStr};
      e.args[3] = Arg{ArgType::kMode, 0, kNoStr};
    } else {
      e.nr = SYS_read;
      e.nargs = 3;
      e.args[0] = Arg{ArgType::kFd, 3, kNoStr};
      e.args[1] = Arg{ArgType::kBuf, 0, kNoStr};
      e.args[2] = Arg{ArgType::kCount, 4096, kNoStr};
    }
    p.original.events.push_back(e);
  }
  p.replayed.header.backend = "replay-workers";
  p.replayed.header.settings = {{"timing", "think"}};
  p.replayed.strings = p.original.strings;
  for (int i = 0; i < n; ++i) {
    Event r = p.original.events[static_cast<size_t>(i)];
    r.seq = static_cast<uint64_t>(i);
    r.expected_rvalue = r.rvalue;
    r.begin_ns += kReplayOffsetNs;
    r.end_ns = r.begin_ns + 2 * p.original.events[static_cast<size_t>(i)].duration_ns();
    r.planned_ns = r.begin_ns;
    r.flags = kEventReplayed;
    if (i % 7 == 0) {
      r.flags |= kEventSkipped;
    } else if (i % 11 == 0) {
      r.flags |= kEventMismatch;
      r.rvalue = -1;
    }
    p.replayed.events.push_back(r);
  }
  return p;
}

// The original as a capture might store it: by end.
inline Trace in_end_order(Trace t) {
  std::stable_sort(t.events.begin(), t.events.end(), [](const Event& a, const Event& b) { return a.end_ns < b.end_ns; });
  return t;
}

// A scratch directory named after the running test.
class ReplayPairFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("rastro_replay_pair_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Writes both traces; returns {original path, replayed path}.
  std::pair<std::string, std::string> write(const ReplayPairTraces& p, const std::string& ext = ".rastro") {
    const std::string o = path("original" + ext), r = path("replayed" + ext);
    write_trace(o, in_end_order(p.original));
    write_trace(r, p.replayed);
    return {o, r};
  }
  std::filesystem::path dir_;
};

}  // namespace rastro::trace::testing
