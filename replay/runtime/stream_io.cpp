#include "replay/runtime/stream_io.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "common/clock.h"

namespace rastro::replay {
namespace {

constexpr int64_t kWaitFloorNs = 1'000'000'000;

// Waits until `fd` reports `events` (or hang-up/error: the next call says which) or `deadline`
// passes; what poll reported, 0 on the deadline.
short wait_for(int fd, short events, int64_t deadline) {
  for (;;) {
    const int64_t left = deadline - monotonic_ns();
    if (left <= 0) return 0;
    pollfd p{fd, events, 0};
    const int ms = static_cast<int>(std::min<int64_t>((left + 999'999) / 1'000'000, 1000));
    const int r = ::poll(&p, 1, ms);
    if (r > 0) return p.revents;
    if (r < 0 && errno != EINTR) return 0;
  }
}

int64_t once(ssize_t r) { return r < 0 ? -static_cast<int64_t>(errno) : static_cast<int64_t>(r); }

// Moves up to `want` bytes with `op(done)` (one read or write of the rest), waiting for `events`
// when the stream has no data or room, until all moved, end-of-file (op returns 0), an error, or
// the deadline. `first_data_ends`: a read that stops at its first bytes (a traced end-of-file
// read that finds data anyway).
template <class Op>
int64_t transfer(int fd, size_t want, bool first_data_ends, short events, int64_t traced_ns, Op op) {
  size_t got = 0;
  int64_t deadline = 0;  // set at the first wait: the common case (data there) reads no clock
  for (;;) {
    const ssize_t r = op(got);
    if (r > 0) {
      got += static_cast<size_t>(r);
      if (first_data_ends || got == want) return static_cast<int64_t>(got);
      continue;
    }
    if (r == 0) {
      // End-of-file where the trace read data: a FIFO whose writer has not opened it yet (the
      // traced read waited for it) reads as end-of-file, and poll waits for that writer; a
      // stream whose writers have all gone reports a hang-up at once.
      if (!(events & POLLIN) || first_data_ends) return static_cast<int64_t>(got);
      if (deadline == 0) deadline = monotonic_ns() + stream_wait_budget_ns(traced_ns);
      if (!(wait_for(fd, POLLIN, deadline) & POLLIN)) return static_cast<int64_t>(got);  // hang-up: all writers gone
      continue;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN) return got > 0 ? static_cast<int64_t>(got) : -static_cast<int64_t>(errno);
    if (deadline == 0) deadline = monotonic_ns() + stream_wait_budget_ns(traced_ns);
    if (wait_for(fd, events, deadline) == 0) return got > 0 ? static_cast<int64_t>(got) : -EAGAIN;
  }
}

}  // namespace

int64_t stream_wait_budget_ns(int64_t traced_ns) { return kWaitFloorNs + 2 * std::max<int64_t>(traced_ns, 0); }

int64_t stream_read(int fd, char* buf, size_t cap, int64_t traced, int64_t traced_ns) {
  if (traced < 0) return once(::read(fd, buf, cap));
  // traced > 0: exactly that many bytes; traced == 0: end-of-file (all writers gone).
  const size_t want = traced == 0 ? cap : std::min(cap, static_cast<size_t>(traced));
  return transfer(fd, want, traced == 0, POLLIN, traced_ns,
                  [&](size_t done) { return ::read(fd, buf + done, want - done); });
}

int64_t stream_write(int fd, const char* buf, size_t cap, int64_t traced, int64_t traced_ns) {
  if (traced <= 0) return once(::write(fd, buf, cap));
  const size_t want = std::min(cap, static_cast<size_t>(traced));
  return transfer(fd, want, false, POLLOUT, traced_ns,
                  [&](size_t done) { return ::write(fd, buf + done, want - done); });
}

}  // namespace rastro::replay
