// The replayer's per-process mapping table (replay/runtime/mapping_table.h), checked against what
// the kernel says about the replayer's own address space (mincore(2): ENOMEM for an unmapped
// page) and the file's bytes (pread(2)).
#include "replay/runtime/mapping_table.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>

#include <gtest/gtest.h>

#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TempDir;

const uint64_t kPage = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
constexpr uint64_t kTraced = 0x7f1200000000;  // addresses a traced program got

uint64_t anon(uint64_t bytes) {
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  EXPECT_NE(p, MAP_FAILED);
  return reinterpret_cast<uint64_t>(p);
}

bool mapped(uint64_t addr) {
  unsigned char v = 0;
  return ::mincore(reinterpret_cast<void*>(addr), kPage, &v) == 0;
}

// A forked child's copy of its parent's mappings is not made (one replayer address space): the
// child knows the parent's ranges as inherited, and its munmap of one unmaps nothing of the
// parent's; only what it maps itself is backed by pages of its own.
TEST(MappingTable, AForkedChildInheritsTheRangesButNotThePages) {
  MappingTable parent, child;
  const uint64_t r = anon(2 * kPage);
  parent.add(kTraced, r, 2 * kPage);
  child.inherit(parent);
  EXPECT_TRUE(child.inherited(kTraced + kPage, 1));
  EXPECT_FALSE(child.inherited(kTraced + 2 * kPage, kPage));
  EXPECT_FALSE(parent.inherited(kTraced, kPage));
  EXPECT_EQ(child.mapped_bytes(), 0u);
  EXPECT_EQ(child.touch(kTraced, false), -ENOENT) << "the child has no pages of the parent's";
  // The child unmaps the first page: the parent's page stays, the child's range shrinks.
  bool was_inherited = false;
  EXPECT_EQ(child.remove(kTraced, kPage, &was_inherited), 0u);
  EXPECT_TRUE(was_inherited);
  EXPECT_FALSE(child.inherited(kTraced, kPage));
  EXPECT_TRUE(child.inherited(kTraced + kPage, kPage));
  EXPECT_TRUE(mapped(r));
  // A mapping of its own over the rest replaces the inherited range there.
  const uint64_t own = anon(kPage);
  child.add(kTraced + kPage, own, kPage);
  EXPECT_FALSE(child.inherited(kTraced + kPage, kPage));
  EXPECT_EQ(child.remove(kTraced + kPage, kPage), kPage);
  EXPECT_FALSE(mapped(own));
  EXPECT_TRUE(mapped(r + kPage)) << "the parent's page";
  // A grandchild inherits what the child still had; exec clears it.
  MappingTable grandchild;
  child.inherit(parent);
  grandchild.inherit(child);
  EXPECT_TRUE(grandchild.inherited(kTraced, 2 * kPage));
  grandchild.clear();
  EXPECT_FALSE(grandchild.inherited(kTraced, 2 * kPage));
  EXPECT_EQ(parent.remove(kTraced, 2 * kPage), 2 * kPage);
}

TEST(MappingTable, MunmapOfTheMiddleSplitsTheMappingAndUnmapsOnlyThosePages) {
  MappingTable t;
  const uint64_t r = anon(4 * kPage);
  t.add(kTraced, r, 4 * kPage);
  EXPECT_EQ(t.remove(kTraced + kPage, kPage), kPage);
  EXPECT_EQ(t.mapped_bytes(), 3 * kPage);
  EXPECT_TRUE(mapped(r));
  EXPECT_FALSE(mapped(r + kPage));
  EXPECT_TRUE(mapped(r + 2 * kPage));
  EXPECT_EQ(t.touch(kTraced + kPage + 5, false), -ENOENT);
  EXPECT_EQ(t.touch(kTraced + 5, false), 0);
  EXPECT_EQ(t.touch(kTraced + 3 * kPage + 5, true), 0);
  EXPECT_EQ(t.remove(kTraced + 8 * kPage, kPage), 0u) << "never mapped";
  EXPECT_EQ(t.remove(kTraced, 4 * kPage), 3 * kPage);
  EXPECT_FALSE(mapped(r));
  EXPECT_EQ(t.mapped_bytes(), 0u);
}

TEST(MappingTable, AFixedMappingOverPartOfAnotherReplacesThatPart) {
  MappingTable t;
  const uint64_t r1 = anon(4 * kPage), r2 = anon(2 * kPage);
  t.add(kTraced, r1, 4 * kPage);
  t.add(kTraced + kPage, r2, 2 * kPage);  // as ld.so maps segments MAP_FIXED into a reservation
  EXPECT_EQ(t.mapped_bytes(), 4 * kPage);
  EXPECT_TRUE(mapped(r1));
  EXPECT_FALSE(mapped(r1 + kPage));
  EXPECT_FALSE(mapped(r1 + 2 * kPage));
  EXPECT_TRUE(mapped(r1 + 3 * kPage));
  // A write through the traced address lands in the newer mapping.
  ASSERT_EQ(t.touch(kTraced + kPage, true), 0);
  EXPECT_EQ(*reinterpret_cast<char*>(r2), static_cast<char>('a' + (kTraced + kPage) % 26));
  uint64_t covered = 0;
  int calls = 0;
  EXPECT_EQ(t.apply(kTraced, 4 * kPage, [&](uint64_t, uint64_t) {
    ++calls;
    return int64_t{0};
  }, &covered), 0);
  EXPECT_EQ(covered, 4 * kPage);
  EXPECT_EQ(calls, 3);
}

TEST(MappingTable, ATouchBeyondTheFilesEndIsEfaultNotSigbus) {
  TempDir d;
  const int fd = ::open(d.sub("f").c_str(), O_CREAT | O_RDWR, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::pwrite(fd, "0123456789", 10, 0), 10);
  void* p = ::mmap(nullptr, 2 * kPage, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ASSERT_NE(p, MAP_FAILED);
  MappingTable t;
  t.add(kTraced, reinterpret_cast<uint64_t>(p), 2 * kPage);
  EXPECT_EQ(t.touch(kTraced + kPage + 1, false), -EFAULT);  // the page past the end: SIGBUS if loaded
  ASSERT_EQ(t.touch(kTraced + 3, true), 0);
  uint64_t covered = 0;
  EXPECT_EQ(t.apply(kTraced, kPage, [](uint64_t a, uint64_t n) {
    return int64_t{::msync(reinterpret_cast<void*>(a), n, MS_SYNC)};
  }, &covered), 0);
  EXPECT_EQ(covered, kPage);
  char c = 0;
  ASSERT_EQ(::pread(fd, &c, 1, 3), 1);
  EXPECT_EQ(c, static_cast<char>('a' + (kTraced + 3) % 26)) << "the write did not reach the file";
  ::close(fd);
}

TEST(MappingTable, RemapMovesTheTracedRangeWithTheReplayMapping) {
  MappingTable t;
  const uint64_t r = anon(kPage);
  t.add(kTraced, r, kPage);
  const uint64_t moved_to = kTraced + 64 * kPage;
  const int64_t got = t.remap(kTraced, kPage, moved_to, 3 * kPage, [](uint64_t a, uint64_t n) {
    void* p = ::mremap(reinterpret_cast<void*>(a), n, 3 * kPage, MREMAP_MAYMOVE);
    return p == MAP_FAILED ? -int64_t{errno} : reinterpret_cast<int64_t>(p);
  });
  ASSERT_GT(got, 0);
  EXPECT_EQ(t.touch(kTraced, false), -ENOENT);
  EXPECT_EQ(t.touch(moved_to + 2 * kPage, true), 0);
  EXPECT_EQ(t.mapped_bytes(), 3 * kPage);
  EXPECT_EQ(t.remap(kTraced, kPage, 0, kPage, [](uint64_t, uint64_t) { return int64_t{0}; }), -ENOENT);
}

TEST(MappingTable, AnExecClearsEveryMapping) {
  MappingTable t;
  const uint64_t r = anon(kPage);
  t.add(kTraced, r, kPage);
  t.clear();
  EXPECT_FALSE(mapped(r));
  EXPECT_EQ(t.mapped_bytes(), 0u);
  EXPECT_EQ(t.touch(kTraced, false), -ENOENT);
}

// Replay threads of one process touch and unmap concurrently: every touch either finds the
// mapping or not, never an address the allocator reused (TSan checks the locking).
TEST(MappingTable, ConcurrentTouchesAndUnmapsAreSafe) {
  MappingTable t;
  constexpr int kRounds = 200;
  std::atomic<bool> done{false};
  std::thread toucher([&] {
    while (!done.load()) {
      const int64_t r = t.touch(kTraced + 7, true);
      EXPECT_TRUE(r == 0 || r == -ENOENT) << r;
    }
  });
  for (int i = 0; i < kRounds; ++i) {
    t.add(kTraced, anon(2 * kPage), 2 * kPage);
    EXPECT_EQ(t.remove(kTraced, 2 * kPage), 2 * kPage);
  }
  done = true;
  toucher.join();
  EXPECT_EQ(t.mapped_bytes(), 0u);
}

}  // namespace
}  // namespace rastro::replay
