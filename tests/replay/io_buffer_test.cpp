// IoBuffer (replay/runtime/io_buffer.h): page-aligned, grows, and an O_DIRECT read into it works
// where one into a malloc'ed buffer may not.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "replay/runtime/call_executor.h"
#include "replay/runtime/io_buffer.h"
#include "tests/replay/replay_test_util.h"

namespace rastro::replay {
namespace {

TEST(IoBuffer, AreasArePageAlignedAndGrow) {
  IoBuffer b;
  char* p = b.area(10);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 4096, 0u);
  EXPECT_GE(b.size(), 10u);
  EXPECT_EQ(b.area(b.size()), p) << "no new area when it is big enough";
  char* q = b.area(3 * 4096 + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 4096, 0u);
  EXPECT_GE(b.size(), 3u * 4096 + 1);
  q[3 * 4096] = 'x';  // writable to the end
  IoBuffer moved = std::move(b);
  EXPECT_EQ(moved.data(), q);
  EXPECT_EQ(b.data(), nullptr);
}

TEST(IoBuffer, ScratchWritesKeepThePatternWhenTheyGrow) {
  ThreadScratch s;
  const char* a = s.write_area(5);
  EXPECT_EQ(std::string(a, 5), "abcde");
  const char* b = s.write_area(10000);
  for (size_t i = 0; i < 10000; ++i) ASSERT_EQ(b[i], write_pattern_byte(i)) << i;
}

TEST(IoBuffer, AnODirectReadIntoTheScratchAreaWorks) {
  testing::TempDir dir;
  testing::write_file(dir.sub("f"), std::string(8192, 'z'));
  const int fd = ::open(dir.sub("f").c_str(), O_RDONLY | O_DIRECT);
  if (fd < 0) GTEST_SKIP() << "O_DIRECT not supported on " << dir.path();
  ThreadScratch s;
  EXPECT_EQ(::pread(fd, s.read_area(4096), 4096, 4096), 4096);
  EXPECT_EQ(s.read_area(4096)[0], 'z');
  ::close(fd);
}

}  // namespace
}  // namespace rastro::replay
