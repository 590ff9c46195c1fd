// Test helper: a six-event, two-thread trace small enough to compute every statistic by hand.
//
//   #  tid  call                          begin  end   rvalue
//   0  10   openat(AT_FDCWD, "/a", 0, 0)      0   100  3
//   1  10   read(3</a>, buf, 4096)          200   500  4096
//   2  11   read(3</a>, buf, 4096)          300   350  -11 (EAGAIN)
//   3  11   write(4</b>, buf, 10)           400  1400  10
//   4  10   close(3</a>)                    600   610  0
//   5  11   read(4</b>, buf, 8) unfinished 1500     -  -
#pragma once

#include "trace/model/trace.h"

namespace rastro::trace::testing {

inline Trace sample_trace() {
  Trace t;
  t.header.backend = "sample";
  t.header.host = "testhost";
  t.header.events_captured = 6;
  t.header.events_lost = 2;
  t.header.lost_reasons = {{"ringbuf_full", 2}};
  t.header.complete = true;
  StrId a = t.strings.intern("/a");
  StrId b = t.strings.intern("/b");
  auto ev = [&](int32_t tid, int32_t nr, int64_t begin, int64_t end, int64_t rv,
                std::initializer_list<Arg> args) {
    Event e;
    e.seq = t.events.size();
    e.pid = 1;
    e.tid = tid;
    e.nr = nr;
    e.begin_ns = begin;
    e.end_ns = end;
    e.rvalue = rv;
    for (const Arg& x : args) e.args[e.nargs++] = x;
    t.events.push_back(e);
    return &t.events.back();
  };
  ev(10, 257, 0, 100, 3,
     {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, a}, {ArgType::kOpenFlags, 0, kNoStr},
      {ArgType::kMode, 0, kNoStr}});
  ev(10, 0, 200, 500, 4096,
     {{ArgType::kFd, 3, a}, {ArgType::kBuf, 0, kNoStr}, {ArgType::kCount, 4096, kNoStr}});
  ev(11, 0, 300, 350, -11,
     {{ArgType::kFd, 3, a}, {ArgType::kBuf, 0, kNoStr}, {ArgType::kCount, 4096, kNoStr}});
  ev(11, 1, 400, 1400, 10,
     {{ArgType::kFd, 4, b}, {ArgType::kBuf, 0, kNoStr}, {ArgType::kCount, 10, kNoStr}});
  ev(10, 3, 600, 610, 0, {{ArgType::kFd, 3, a}});
  Event* u = ev(11, 0, 1500, 1500, 0,
                {{ArgType::kFd, 4, b}, {ArgType::kBuf, 0, kNoStr}, {ArgType::kCount, 8, kNoStr}});
  u->flags = kEventUnfinished;
  return t;
}

}  // namespace rastro::trace::testing
