// Test helper: traces of the name-space cycles real programs have, built call by call.
//   cycle_trace(): one thread, by hand — create /ns/a (1000 B), append 100 B, read it whole,
//     unlink it, create it again (500 B), append 50 B, rename it over /ns/b, mkdir + rmdir, and
//     an unlink of a missing name.
//   fileserver_like_trace(threads, cycles): each thread repeats, on files of a shared directory,
//     create + whole write, append, whole read, unlink, stat (Filebench's fileserver flow).
#pragma once

#include <errno.h>
#include <fcntl.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "trace/model/trace.h"

namespace rastro::characterize::testing {

// Appends calls of one thread, back to back (1 us each, 1 us apart), on a clock it may share
// with other threads' writers (then their calls follow each other in the order written).
class CallWriter {
 public:
  CallWriter(trace::Trace& t, int32_t id, int64_t& clock) : t_(t), id_(id), now_(clock) {}
  void operator()(int32_t nr, int64_t rv, std::initializer_list<trace::Arg> args) {
    trace::Event e;
    e.pid = id_;
    e.tid = id_;
    e.nr = nr;
    e.begin_ns = now_;
    e.end_ns = now_ + 1000;
    e.rvalue = rv;
    for (const trace::Arg& a : args) e.args[e.nargs++] = a;
    t_.events.push_back(e);
    now_ = e.end_ns + 1000;
  }
  trace::StrId path(const std::string& p) { return t_.strings.intern(p); }
  void open(trace::StrId p, int flags, int64_t fd = 3) {
    (*this)(257, fd, {{trace::ArgType::kDirFd, -100, trace::kNoStr}, {trace::ArgType::kPath, 0, p},
                      {trace::ArgType::kOpenFlags, flags, trace::kNoStr}, {trace::ArgType::kMode, 0644, trace::kNoStr}});
  }
  void write(trace::StrId p, int64_t n) {
    (*this)(1, n, {{trace::ArgType::kFd, 3, p}, {trace::ArgType::kBuf, 0, trace::kNoStr}, {trace::ArgType::kCount, n, trace::kNoStr}});
  }
  void read(trace::StrId p, int64_t count, int64_t got) {
    (*this)(0, got, {{trace::ArgType::kFd, 3, p}, {trace::ArgType::kBuf, 0, trace::kNoStr}, {trace::ArgType::kCount, count, trace::kNoStr}});
  }
  void close(trace::StrId p) { (*this)(3, 0, {{trace::ArgType::kFd, 3, p}}); }
  void unlink(trace::StrId p, int64_t rv = 0, int flags = 0) {
    (*this)(263, rv, {{trace::ArgType::kDirFd, -100, trace::kNoStr}, {trace::ArgType::kPath, 0, p}, {trace::ArgType::kAtFlags, flags, trace::kNoStr}});
  }
  void rename(trace::StrId from, trace::StrId to) {
    (*this)(264, 0, {{trace::ArgType::kDirFd, -100, trace::kNoStr}, {trace::ArgType::kPath, 0, from},
                     {trace::ArgType::kDirFd, -100, trace::kNoStr}, {trace::ArgType::kPath, 0, to}});
  }
  void mkdir(trace::StrId p) {
    (*this)(258, 0, {{trace::ArgType::kDirFd, -100, trace::kNoStr}, {trace::ArgType::kPath, 0, p}, {trace::ArgType::kMode, 0755, trace::kNoStr}});
  }
  void stat(trace::StrId p) {
    (*this)(262, 0, {{trace::ArgType::kDirFd, -100, trace::kNoStr}, {trace::ArgType::kPath, 0, p},
                     {trace::ArgType::kBuf, 0, trace::kNoStr}, {trace::ArgType::kAtFlags, 0, trace::kNoStr}});
  }

 private:
  trace::Trace& t_;
  int32_t id_;
  int64_t& now_;
};

inline void finish(trace::Trace& t) {
  std::stable_sort(t.events.begin(), t.events.end(),
                   [](const trace::Event& a, const trace::Event& b) { return a.begin_ns < b.begin_ns; });
  for (size_t i = 0; i < t.events.size(); ++i) t.events[i].seq = i;
  t.header.backend = "test";
  t.header.complete = true;
}

inline trace::Trace cycle_trace() {
  trace::Trace t;
  int64_t clock = 0;
  CallWriter w(t, 1, clock);
  trace::StrId a = w.path("/ns/a"), b = w.path("/ns/b"), d = w.path("/ns/d"), missing = w.path("/ns/missing");
  w.open(a, O_RDWR | O_CREAT | O_TRUNC);
  w.write(a, 1000);
  w.close(a);
  w.open(a, O_WRONLY | O_APPEND);
  w.write(a, 100);
  w.close(a);
  w.open(a, O_RDONLY);
  w.read(a, 4096, 1100);
  w.close(a);
  w.unlink(a);
  w.open(a, O_RDWR | O_CREAT | O_TRUNC);
  w.write(a, 500);
  w.close(a);
  w.open(a, O_WRONLY | O_APPEND);
  w.write(a, 50);
  w.close(a);
  w.rename(a, b);
  w.mkdir(d);
  w.unlink(d, 0, AT_REMOVEDIR);
  w.unlink(missing, -ENOENT);
  finish(t);
  return t;
}

inline trace::Trace fileserver_like_trace(int threads, int cycles, int files = 40, uint64_t seed = 5) {
  trace::Trace t;
  std::mt19937_64 rng(seed);
  std::gamma_distribution<double> size(1.5, 20000.0);
  std::uniform_int_distribution<int> pick(0, files - 1);
  std::vector<int64_t> sizes(static_cast<size_t>(files), 0);
  std::vector<bool> there(static_cast<size_t>(files), true);
  for (auto& s : sizes) s = 1 + static_cast<int64_t>(size(rng));
  // Threads take turns cycle by cycle on one clock, so the file state each call sees is the one
  // the earlier cycles left.
  int64_t clock = 0;
  std::vector<CallWriter> writers;
  for (int i = 0; i < threads; ++i) writers.emplace_back(t, 10 + i, clock);
  auto name = [&](int f) { return t.strings.intern("/fs/f" + std::to_string(f)); };
  for (int c = 0; c < cycles; ++c) {
    for (int i = 0; i < threads; ++i) {
      CallWriter& w = writers[static_cast<size_t>(i)];
      int f = pick(rng);
      for (int k = 0; k < files && there[static_cast<size_t>(f)]; ++k) f = (f + 1) % files;  // a removed one
      size_t fi = static_cast<size_t>(f);
      sizes[fi] = 1 + static_cast<int64_t>(size(rng));
      there[fi] = true;
      w.open(name(f), O_RDWR | O_CREAT | O_TRUNC);
      w.write(name(f), sizes[fi]);
      w.close(name(f));
      int g = pick(rng);
      while (!there[static_cast<size_t>(g)]) g = pick(rng);
      w.open(name(g), O_WRONLY | O_APPEND);
      w.write(name(g), 1000);
      sizes[static_cast<size_t>(g)] += 1000;
      w.close(name(g));
      int r = pick(rng);
      while (!there[static_cast<size_t>(r)]) r = pick(rng);
      w.open(name(r), O_RDONLY);
      w.read(name(r), sizes[static_cast<size_t>(r)], sizes[static_cast<size_t>(r)]);
      w.close(name(r));
      int u = pick(rng);
      while (!there[static_cast<size_t>(u)]) u = pick(rng);
      w.unlink(name(u));
      there[static_cast<size_t>(u)] = false;
      int s = pick(rng);
      while (!there[static_cast<size_t>(s)]) s = pick(rng);
      w.stat(name(s));
    }
  }
  finish(t);
  return t;
}

}  // namespace rastro::characterize::testing
