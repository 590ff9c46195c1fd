#include "replay/runtime/stream_io.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/clock.h"

namespace rastro::replay {
namespace {

// A non-blocking pipe, as the replayer creates them.
struct Pipe {
  int r = -1, w = -1;
  Pipe() {
    int p[2];
    EXPECT_EQ(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
    r = p[0];
    w = p[1];
  }
  ~Pipe() {
    if (r >= 0) close(r);
    if (w >= 0) close(w);
  }
};

TEST(StreamIo, ReaderWaitsForItsWritersBytes) {
  Pipe p;
  std::vector<char> buf(65536);
  const int64_t t0 = monotonic_ns();
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::vector<char> d(6000, 'x');
    EXPECT_EQ(stream_write(p.w, d.data(), 4000, 4000, 0), 4000);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(stream_write(p.w, d.data(), 2000, 2000, 0), 2000);
  });
  // The traced read got 5000 bytes: it waits for both writes, takes exactly 5000.
  EXPECT_EQ(stream_read(p.r, buf.data(), buf.size(), 5000, 0), 5000);
  EXPECT_GE(monotonic_ns() - t0, 60'000'000);
  writer.join();
  // The rest is left for the next read, as in the trace.
  EXPECT_EQ(stream_read(p.r, buf.data(), buf.size(), 1000, 0), 1000);
}

TEST(StreamIo, EndOfFileWaitsForTheLastWriterToClose) {
  Pipe p;
  std::vector<char> buf(4096);
  std::thread closer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(40));
    close(p.w);
  });
  const int64_t t0 = monotonic_ns();
  EXPECT_EQ(stream_read(p.r, buf.data(), buf.size(), 0, 0), 0);
  EXPECT_GE(monotonic_ns() - t0, 30'000'000);
  closer.join();
  p.w = -1;
}

TEST(StreamIo, NeverHangsWhenTheWriterNeverComes) {
  Pipe p;
  std::vector<char> buf(64);
  const int64_t t0 = monotonic_ns();
  EXPECT_EQ(stream_read(p.r, buf.data(), buf.size(), 10, 0), -EAGAIN);
  const int64_t waited = monotonic_ns() - t0;
  EXPECT_GE(waited, stream_wait_budget_ns(0) - 5'000'000);
  EXPECT_LT(waited, stream_wait_budget_ns(0) + 2'000'000'000);
  // A traced call twice as long gets a longer budget.
  EXPECT_GT(stream_wait_budget_ns(3'000'000'000), stream_wait_budget_ns(0) + 5'000'000'000);
}

TEST(StreamIo, WriterWaitsForRoomInAFullPipe) {
  Pipe p;
  const int cap = fcntl(p.w, F_GETPIPE_SZ);
  ASSERT_GT(cap, 0);
  std::vector<char> d(static_cast<size_t>(cap) * 2, 'y');
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::vector<char> buf(d.size());
    EXPECT_EQ(stream_read(p.r, buf.data(), buf.size(), static_cast<int64_t>(d.size()), 0),
              static_cast<int64_t>(d.size()));
  });
  // Twice the pipe's capacity in one traced write: it completes once the reader drained it.
  EXPECT_EQ(stream_write(p.w, d.data(), d.size(), static_cast<int64_t>(d.size()), 0), static_cast<int64_t>(d.size()));
  reader.join();
}

TEST(StreamIo, WriterWhoseReaderHasGoneGetsEpipe) {
  struct sigaction old {};
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGPIPE, &ign, &old), 0);  // as run_replay_session does
  Pipe p;
  close(p.r);
  p.r = -1;
  char d[16] = {};
  EXPECT_EQ(stream_write(p.w, d, sizeof d, sizeof d, 0), -EPIPE);
  EXPECT_EQ(stream_write(p.w, d, sizeof d, -EPIPE, 0), -EPIPE);
  sigaction(SIGPIPE, &old, nullptr);
}

TEST(StreamIo, TracedFailuresAreIssuedOnce) {
  Pipe p;
  char buf[8];
  const int64_t t0 = monotonic_ns();
  EXPECT_EQ(stream_read(p.r, buf, sizeof buf, -EAGAIN, 0), -EAGAIN);  // a non-blocking program's poll
  EXPECT_LT(monotonic_ns() - t0, 500'000'000);
}

TEST(StreamIo, SocketPairsToo) {
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv), 0);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    char d[300] = {};
    EXPECT_EQ(stream_write(sv[1], d, sizeof d, 300, 0), 300);
  });
  char buf[1024];
  EXPECT_EQ(stream_read(sv[0], buf, sizeof buf, 300, 0), 300);
  writer.join();
  close(sv[0]);
  close(sv[1]);
}

}  // namespace
}  // namespace rastro::replay
