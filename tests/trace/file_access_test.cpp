#include "trace/analysis/file_access.h"

#include <fcntl.h>

#include <gtest/gtest.h>

#include "tests/trace/sample_trace.h"

namespace rastro::trace {
namespace {

// Appends a call of pid/tid 7 that returned rv, 1 us after the previous one.
void add_event(Trace& t, int32_t nr, int64_t rv, std::initializer_list<Arg> args) {
  Event e;
  e.seq = t.events.size();
  e.pid = 7;
  e.tid = 7;
  e.nr = nr;
  e.begin_ns = static_cast<int64_t>(t.events.size()) * 1000;
  e.end_ns = e.begin_ns + 10;
  e.rvalue = rv;
  for (const Arg& a : args) e.args[e.nargs++] = a;
  t.events.push_back(e);
}

TEST(FileAccess, SampleTraceReducesToOpenReadWriteClose) {
  FileAccessLog log = file_accesses(testing::sample_trace());
  ASSERT_EQ(log.files.size(), 2u);
  EXPECT_EQ(log.files[0], "/a");
  EXPECT_EQ(log.files[1], "/b");
  // Event 2 failed (EAGAIN) and event 5 never returned: neither moved data.
  ASSERT_EQ(log.accesses.size(), 4u);
  EXPECT_EQ(log.accesses[0].kind, AccessKind::kOpen);
  EXPECT_EQ(log.accesses[1].kind, AccessKind::kRead);
  EXPECT_EQ(log.accesses[1].offset, 0u);
  EXPECT_EQ(log.accesses[1].bytes, 4096u);
  EXPECT_EQ(log.accesses[2].kind, AccessKind::kWrite);
  EXPECT_EQ(log.accesses[2].file, 1u);
  EXPECT_EQ(log.accesses[2].bytes, 10u);
  EXPECT_EQ(log.accesses[3].kind, AccessKind::kClose);
  EXPECT_EQ(log.accesses[3].event, 4u);
  EXPECT_EQ(log.unnamed_fds, 0u);
}

// Positions follow read/write, lseek, pread (explicit, position untouched) and O_APPEND.
TEST(FileAccess, OffsetsFollowTheDescriptorPosition) {
  Trace t;
  StrId f = t.strings.intern("/f");
  StrId g = t.strings.intern("/g");
  auto ev = [&](int32_t nr, int64_t rv, std::initializer_list<Arg> args) { add_event(t, nr, rv, args); };
  Arg buf{ArgType::kBuf, 0, kNoStr};
  ev(257, 3, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, f}, {ArgType::kOpenFlags, O_RDWR, kNoStr}, {ArgType::kMode, 0, kNoStr}});
  ev(0, 100, {{ArgType::kFd, 3, f}, buf, {ArgType::kCount, 4096, kNoStr}});          // 0..100
  ev(0, 50, {{ArgType::kFd, 3, f}, buf, {ArgType::kCount, 4096, kNoStr}});           // 100..150
  ev(17, 20, {{ArgType::kFd, 3, f}, buf, {ArgType::kCount, 20, kNoStr}, {ArgType::kOffset, 9000, kNoStr}});
  ev(1, 5, {{ArgType::kFd, 3, f}, buf, {ArgType::kCount, 5, kNoStr}});               // 150..155
  ev(8, 4000, {{ArgType::kFd, 3, f}, {ArgType::kOffset, 4000, kNoStr}, {ArgType::kWhence, 0, kNoStr}});
  ev(0, 0, {{ArgType::kFd, 3, f}, buf, {ArgType::kCount, 4096, kNoStr}});            // EOF: kept, 0 bytes
  ev(1, 8, {{ArgType::kFd, 3, f}, buf, {ArgType::kCount, 8, kNoStr}});               // 4000..4008
  ev(3, 0, {{ArgType::kFd, 3, f}});
  ev(257, 4, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, g}, {ArgType::kOpenFlags, O_WRONLY | O_APPEND, kNoStr}, {ArgType::kMode, 0, kNoStr}});
  ev(1, 30, {{ArgType::kFd, 4, g}, buf, {ArgType::kCount, 30, kNoStr}});
  ev(257, 5, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, g}, {ArgType::kOpenFlags, O_WRONLY | O_APPEND, kNoStr}, {ArgType::kMode, 0, kNoStr}});
  ev(1, 2, {{ArgType::kFd, 5, g}, buf, {ArgType::kCount, 2, kNoStr}});               // appends at 30
  ev(0, 9, {{ArgType::kFd, 9, kNoStr}, buf, {ArgType::kCount, 9, kNoStr}});          // unknown descriptor
  FileAccessLog log = file_accesses(t);
  std::vector<std::pair<uint64_t, uint64_t>> transfers;
  for (const FileAccess& a : log.accesses)
    if (a.kind == AccessKind::kRead || a.kind == AccessKind::kWrite) transfers.push_back({a.offset, a.bytes});
  std::vector<std::pair<uint64_t, uint64_t>> expected = {{0, 100}, {100, 50}, {9000, 20}, {150, 5}, {4000, 8},
                                                         {0, 30},  {30, 2},   {0, 9}};
  expected.insert(expected.begin() + 4, {4000, 0});  // the read at end of file
  EXPECT_EQ(transfers, expected);
  EXPECT_EQ(log.unnamed_fds, 1u);
  EXPECT_EQ(log.files.back(), "pid7.fd9");
}


// O_APPEND writes land at the file's size as the trace shows it: after O_TRUNC, unlink, ftruncate
// and rename, not at the largest extent the name ever had (expected offsets worked out by hand).
TEST(FileAccess, AppendFollowsTruncationRemovalAndRename) {
  Trace t;
  StrId f = t.strings.intern("/f");
  StrId g = t.strings.intern("/g");
  auto ev = [&](int32_t nr, int64_t rv, std::initializer_list<Arg> args) { add_event(t, nr, rv, args); };
  Arg buf{ArgType::kBuf, 0, kNoStr};
  auto open_f = [&](StrId path, int64_t flags, int64_t fd) {
    ev(257, fd, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, path}, {ArgType::kOpenFlags, flags, kNoStr},
                 {ArgType::kMode, 0644, kNoStr}});
  };
  auto write_fd = [&](int64_t fd, StrId path, int64_t n) {
    ev(1, n, {{ArgType::kFd, fd, path}, buf, {ArgType::kCount, n, kNoStr}});
  };
  open_f(f, O_WRONLY | O_CREAT, 3);
  write_fd(3, f, 1000);                                                  // 0..1000
  ev(3, 0, {{ArgType::kFd, 3, f}});
  open_f(f, O_WRONLY | O_TRUNC | O_APPEND, 3);                           // starts over: size 0
  write_fd(3, f, 10);                                                    // 0..10
  ev(77, 0, {{ArgType::kFd, 3, f}, {ArgType::kOffset, 4, kNoStr}});      // ftruncate to 4
  write_fd(3, f, 2);                                                     // 4..6
  ev(3, 0, {{ArgType::kFd, 3, f}});
  ev(82, 0, {{ArgType::kPath, 0, f}, {ArgType::kPath, 0, g}});           // rename /f -> /g: size 6
  open_f(g, O_WRONLY | O_APPEND, 4);
  write_fd(4, g, 3);                                                     // 6..9
  ev(3, 0, {{ArgType::kFd, 4, g}});
  ev(87, 0, {{ArgType::kPath, 0, g}});                                   // unlink /g
  open_f(g, O_WRONLY | O_CREAT | O_APPEND, 5);
  write_fd(5, g, 7);                                                     // 0..7: a new file
  open_f(f, O_WRONLY | O_CREAT | O_APPEND, 6);
  write_fd(6, f, 1);                                                     // 0..1: /f was renamed away
  FileAccessLog log = file_accesses(t);
  std::vector<std::pair<uint64_t, uint64_t>> writes;
  for (const FileAccess& a : log.accesses)
    if (a.kind == AccessKind::kWrite) writes.push_back({a.offset, a.bytes});
  std::vector<std::pair<uint64_t, uint64_t>> expected = {{0, 1000}, {0, 10}, {4, 2}, {6, 3}, {0, 7}, {0, 1}};
  EXPECT_EQ(writes, expected);
}

// An open by one path whose fd the trace reports by another (a symlink resolved) is one file.
TEST(FileAccess, TheFdsReportedPathNamesTheFileTheOpenNamed) {
  Trace t;
  StrId link = t.strings.intern("/lib/x.so");
  StrId real = t.strings.intern("/usr/lib/x.so");
  auto ev = [&](int32_t nr, int64_t rv, std::initializer_list<Arg> args) { add_event(t, nr, rv, args); };
  Arg buf{ArgType::kBuf, 0, kNoStr};
  ev(257, 3, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, link}, {ArgType::kOpenFlags, O_RDONLY, kNoStr}});
  ev(0, 832, {{ArgType::kFd, 3, real}, buf, {ArgType::kCount, 832, kNoStr}});
  ev(3, 0, {{ArgType::kFd, 3, real}});
  ev(257, 4, {{ArgType::kDirFd, -100, kNoStr}, {ArgType::kPath, 0, link}, {ArgType::kOpenFlags, O_RDONLY, kNoStr}});
  ev(0, 100, {{ArgType::kFd, 4, kNoStr}, buf, {ArgType::kCount, 100, kNoStr}});
  FileAccessLog log = file_accesses(t);
  ASSERT_EQ(log.files.size(), 1u);
  EXPECT_EQ(log.files[0], "/usr/lib/x.so");
  for (const FileAccess& a : log.accesses) EXPECT_EQ(a.file, 0u);
  EXPECT_EQ(log.accesses.size(), 5u);  // open, read, close, open, read
}

}  // namespace
}  // namespace rastro::trace
