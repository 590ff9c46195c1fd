#include "replay/runtime/forced_nonblock.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace rastro::replay {
namespace {

// What the executor does for F_GETFL/F_SETFL (exec_fd_ops.cpp): the replay's own call, with the
// registry's word before or after it.
int getfl(int fd) { return forced_nonblock_getfl(fd, fcntl(fd, F_GETFL)); }
int setfl(int fd, int flags) { return fcntl(fd, F_SETFL, forced_nonblock_setfl_flags(fd, flags)); }

// The replayer's pipe is always non-blocking underneath; the program sees (and sets) its own flag.
TEST(RuntimeForcedNonblock, ProgramSeesItsOwnFlagPipeStaysNonBlocking) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
  forced_nonblock_created(p[0], false);
  forced_nonblock_created(p[1], true);
  EXPECT_EQ(getfl(p[0]) & O_NONBLOCK, 0);
  EXPECT_EQ(getfl(p[0]) & O_ACCMODE, O_RDONLY);
  EXPECT_NE(getfl(p[1]) & O_NONBLOCK, 0);  // the other end is its own description

  ASSERT_EQ(setfl(p[1], 0), 0);  // the program makes its end blocking...
  EXPECT_EQ(getfl(p[1]) & O_NONBLOCK, 0);
  EXPECT_NE(fcntl(p[1], F_GETFL) & O_NONBLOCK, 0);  // ...but the real description stays non-blocking
  const int dup_fd = fcntl(p[0], F_DUPFD_CLOEXEC, 0);  // a dup shares the description
  ASSERT_EQ(setfl(dup_fd, O_NONBLOCK), 0);
  EXPECT_NE(getfl(p[0]) & O_NONBLOCK, 0);
  char c;
  EXPECT_EQ(read(p[0], &c, 1), -1);  // empty: would block, returns EAGAIN instead
  EXPECT_EQ(errno, EAGAIN);

  // Descriptions the replayer did not create are passed through unchanged.
  int q[2];
  ASSERT_EQ(pipe2(q, O_CLOEXEC), 0);
  ASSERT_EQ(setfl(q[0], 0), 0);
  EXPECT_EQ(getfl(q[0]), fcntl(q[0], F_GETFL));
  EXPECT_EQ(fcntl(q[0], F_GETFL) & O_NONBLOCK, 0);
  for (int fd : {p[0], p[1], q[0], q[1], dup_fd}) close(fd);
}

}  // namespace
}  // namespace rastro::replay
