// `scale_trace_gen OUT.rastro N [THREADS]`: writes a synthetic N-event multi-thread trace for
// bench/scale.sh, streaming (memory independent of N). Each thread works on its own files in
// sessions: openat(O_RDWR|O_CREAT), 2-62 pread64/pwrite64 of 4 KiB at sequential offsets, an
// fsync now and then, close. Service times are lognormal around 3 us with a slow tail and
// 0.5-2 us gaps; the threads' events are interleaved in begin order, as a capture writes them.
#include <fcntl.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "trace/formats/binary/binary_writer.h"

namespace {

using namespace rastro::trace;
using rastro::trace::binary::BinaryWriter;

constexpr int kFilesPerThread = 16;
constexpr int kOpenat = 257, kClose = 3, kPread = 17, kPwrite = 18, kFsync = 74;

struct Thread {
  int32_t tid = 0;
  int64_t clock = 0;
  std::vector<StrId> files;
  StrId open_file = kNoStr;  // kNoStr: between sessions
  int32_t fd = 0;
  int left = 0;          // I/O calls left in the session
  int64_t offset = 0;
};

class Generator {
 public:
  Generator(BinaryWriter& w, int threads) : w_(w), rng_(1) {
    for (int i = 0; i < threads; ++i) {
      Thread t;
      t.tid = 1000 + i;
      t.clock = 1'000'000'000 + i * 137;
      for (int f = 0; f < kFilesPerThread; ++f)
        t.files.push_back(w.strings().intern(fmt::format("/tmp/rastro-scale/t{}/f{}", i, f)));
      threads_.push_back(t);
    }
  }

  void run(uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      Thread* next = &threads_[0];  // the thread whose next call begins first
      for (Thread& t : threads_)
        if (t.clock < next->clock) next = &t;
      w_.append(step(*next));
    }
  }

 private:
  Event step(Thread& t) {
    Event e;
    e.pid = 1000;
    e.tid = t.tid;
    e.begin_ns = t.clock;
    double s = service_(rng_);
    if (rng_() % 100 == 0) s *= 30;  // a disk access now and then
    e.end_ns = t.clock + static_cast<int64_t>(s);
    if (t.open_file == kNoStr) {
      t.open_file = t.files[rng_() % t.files.size()];
      // The threads share one fd table (one process): each draws from fds of its own, as the
      // kernel would never give two threads the same open fd. (Drawn from 3-6 for every thread,
      // a thread's fd was another's still open: the replay skipped the uses it could not tell
      // apart, closes among them, until its opens failed with EMFILE: 83 % of a 10 M-event trace.)
      t.fd = 3 + 4 * (t.tid - 1000) + static_cast<int32_t>(rng_() % 4);
      t.left = 2 + static_cast<int>(rng_() % 61);
      t.offset = 0;
      e.nr = kOpenat;
      e.nargs = 4;
      e.args[0] = {ArgType::kDirFd, -100, kNoStr};
      e.args[1] = {ArgType::kPath, 0, t.open_file};
      e.args[2] = {ArgType::kOpenFlags, O_RDWR | O_CREAT, kNoStr};
      e.args[3] = {ArgType::kMode, 0644, kNoStr};
      e.rvalue = t.fd;
    } else if (t.left == 0) {
      e.nr = kClose;
      e.nargs = 1;
      e.args[0] = {ArgType::kFd, t.fd, t.open_file};
      t.open_file = kNoStr;
    } else if (t.left == 1 && rng_() % 4 == 0) {
      e.nr = kFsync;
      e.nargs = 1;
      e.args[0] = {ArgType::kFd, t.fd, t.open_file};
      --t.left;
    } else {
      e.nr = rng_() % 3 == 0 ? kPwrite : kPread;
      e.nargs = 4;
      e.args[0] = {ArgType::kFd, t.fd, t.open_file};
      e.args[1] = {ArgType::kBuf, 0, kNoStr};
      e.args[2] = {ArgType::kCount, 4096, kNoStr};
      e.args[3] = {ArgType::kOffset, t.offset, kNoStr};
      e.rvalue = 4096;
      t.offset += 4096;
      --t.left;
    }
    t.clock = e.end_ns + gap_(rng_);
    return e;
  }

  BinaryWriter& w_;
  std::mt19937_64 rng_;
  std::lognormal_distribution<double> service_{8.0, 0.6};  // e^8 ns ~ 3 us
  std::uniform_int_distribution<int64_t> gap_{500, 2000};
  std::vector<Thread> threads_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT.rastro N [THREADS=8]\n", argv[0]);
    return 2;
  }
  try {
    uint64_t n = std::strtoull(argv[2], nullptr, 10);
    int threads = argc > 3 ? std::atoi(argv[3]) : 8;
    if (threads < 1) threads = 1;
    TraceHeader h;
    h.backend = "synthetic-scale";
    h.command = {"scale_trace_gen", argv[2], std::to_string(threads)};
    BinaryWriter w(argv[1], h);
    Generator(w, threads).run(n);
    w.header().events_captured = n;
    w.finish();
  } catch (const rastro::Error& e) {
    std::fprintf(stderr, "scale_trace_gen: %s\n", e.what());
    return 1;
  }
  return 0;
}
