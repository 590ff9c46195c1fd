// Reads and writes on the pipes and socket pairs the replayer creates between replayed processes
// (issue #15). The replayer creates them non-blocking (forced_nonblock.h) so a diverging replay
// never hangs, yet data must flow between the replayed processes as it did between the traced
// ones: a reader waits for its writer's bytes, a writer for room in the pipe.
//
// So each call moves exactly its *traced* byte count (not its buffer size: a reader that got 100
// bytes in the trace takes 100 bytes now, leaving the rest for its next read as the traced
// program did), and waits with poll() for the data, the room or end-of-file the trace shows, up
// to a deadline: 1 s plus twice the traced call's duration (a traced call that blocked for a
// while may block as long here). When the deadline passes the call returns what it got (a
// mismatch in the summary), never hangs. A call that failed in the trace (EAGAIN of a
// non-blocking program, EPIPE) is issued once, as it was. A write whose reader has gone gets
// EPIPE, as in the trace (the session ignores SIGPIPE).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rastro::replay {

// The capacity of the pipes and FIFOs the replay makes (/proc/sys/fs/pipe-max-size's default): the
// replayed processes wait for the traced bytes (below), so a pipe's capacity must not order them
// too (a kernel pipe holds 16 pages).
inline constexpr int kReplayPipeBytes = 1 << 20;

// How long a stream call may wait for its traced outcome, ns, for a traced call of `traced_ns`.
int64_t stream_wait_budget_ns(int64_t traced_ns);

// Reads from replayer stream `fd` into `buf` (`cap` bytes) what the traced read returned
// (`traced` bytes, 0 = end-of-file, < 0 = -errno). Returns the count or -errno.
int64_t stream_read(int fd, char* buf, size_t cap, int64_t traced, int64_t traced_ns);

// Writes to replayer stream `fd` from `buf` (`cap` bytes) what the traced write wrote.
int64_t stream_write(int fd, const char* buf, size_t cap, int64_t traced, int64_t traced_ns);

}  // namespace rastro::replay
