// Test helper: a trace of two clearly different thread classes, built call by call.
//   readers (pids 100..): open /r/<i>, 20 sequential 64 KiB reads, close; x5; think 40-60 us
//   writers (pids 200..): open /w/<i>, 10 random 4 KiB pwrites each followed by fsync, close; x5;
//                         think 200-300 us
#pragma once

#include <fcntl.h>

#include <random>
#include <string>

#include "trace/model/trace.h"

namespace rastro::characterize::testing {

inline trace::Trace two_class_trace(int readers = 4, int writers = 4, uint64_t seed = 7) {
  using namespace trace;
  Trace t;
  t.header.backend = "test";
  std::mt19937_64 rng(seed);
  Arg buf{ArgType::kBuf, 0, kNoStr};
  auto thread = [&](int32_t id, bool reader) {
    std::uniform_int_distribution<int64_t> think(reader ? 40000 : 200000, reader ? 60000 : 300000);
    std::uniform_int_distribution<int64_t> block(0, 255);
    int64_t now = 1000 * id;
    auto ev = [&](int32_t nr, int64_t rv, std::initializer_list<Arg> args) {
      Event e;
      e.pid = id;
      e.tid = id;
      e.nr = nr;
      e.begin_ns = now;
      e.end_ns = now + (reader ? 20000 : 5000);
      e.rvalue = rv;
      for (const Arg& a : args) e.args[e.nargs++] = a;
      t.events.push_back(e);
      now = e.end_ns + think(rng);
    };
    StrId path = t.strings.intern((reader ? "/r/" : "/w/") + std::to_string(id));
    for (int session = 0; session < 5; ++session) {
      ev(257, 3, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, path},
                  {ArgType::kOpenFlags, reader ? O_RDONLY : O_WRONLY, kNoStr}, {ArgType::kMode, 0, kNoStr}});
      if (reader) {
        for (int k = 0; k < 20; ++k) ev(0, 65536, {{ArgType::kFd, 3, path}, buf, {ArgType::kCount, 65536, kNoStr}});
      } else {
        for (int k = 0; k < 10; ++k) {
          ev(18, 4096, {{ArgType::kFd, 3, path}, buf, {ArgType::kCount, 4096, kNoStr},
                        {ArgType::kOffset, block(rng) * 4096, kNoStr}});
          ev(74, 0, {{ArgType::kFd, 3, path}});
        }
      }
      ev(3, 0, {{ArgType::kFd, 3, path}});
    }
  };
  for (int i = 0; i < readers; ++i) thread(100 + i, true);
  for (int i = 0; i < writers; ++i) thread(200 + i, false);
  std::stable_sort(t.events.begin(), t.events.end(),
                   [](const Event& a, const Event& b) { return a.begin_ns < b.begin_ns; });
  for (size_t i = 0; i < t.events.size(); ++i) t.events[i].seq = i;
  t.header.complete = true;
  return t;
}

}  // namespace rastro::characterize::testing
