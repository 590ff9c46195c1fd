#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "replay/runtime/fd_map.h"
#include "replay/runtime/process_state.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

int devnull() { return open("/dev/null", O_RDONLY | O_CLOEXEC); }

TEST(RuntimeFdMap, MapsClosesAndCopies) {
  FdTable t;
  EXPECT_EQ(t.get(3).state, FdState::kNone);
  int a = devnull();
  t.set_open(3, a, false, "/x");
  EXPECT_EQ(t.get(3).state, FdState::kOpen);
  EXPECT_EQ(t.get(3).fd, a);
  EXPECT_EQ(t.path(3), "/x");
  int big = devnull();
  t.set_open(100000, big, true, "/big");  // beyond the direct slots
  EXPECT_EQ(t.get(100000).fd, big);
  EXPECT_TRUE(t.get(100000).cloexec);
  EXPECT_EQ(t.open_count(), 2u);

  auto copy = t.copy();
  EXPECT_EQ(copy->open_count(), 2u);
  EXPECT_NE(copy->get(3).fd, a);  // a duplicate, not the same descriptor
  EXPECT_EQ(copy->path(3), "/x");

  FdLookup l = t.take(3);
  EXPECT_EQ(l.fd, a);
  close(l.fd);
  EXPECT_EQ(t.get(3).state, FdState::kClosed);
  EXPECT_EQ(copy->get(3).state, FdState::kOpen);  // the child's copy is independent

  t.close_cloexec();
  EXPECT_EQ(t.get(100000).state, FdState::kClosed);
  t.set_state(5, FdState::kRefused);
  EXPECT_EQ(t.get(5).state, FdState::kRefused);
}

TEST(RuntimeFdMap, SeedsInheritedFdsAndFollowsForks) {
  testing::TraceBuilder b;
  b.add(10, 10, "write", {1, 0, 5}, 5);                             // inherited stdout
  b.add(10, 10, "read", {7, 0, 10}, 10);                            // unknown origin, never created
  b.add(10, 10, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 4, {"/f"});  // created
  b.add(10, 10, "read", {4, 0, 10}, 10);
  b.add(10, 10, "read", {9, 0, 10}, 10);                            // used before its open ...
  b.add(10, 10, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 9, {"/g"});  // ... here
  b.add(10, 10, "fork", {}, 11);
  b.add(11, 11, "read", {4, 0, 10}, 10);
  trace::Trace t = b.take();
  auto seeds = process_seeds(t);
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_EQ(seeds[0].pid, 10);
  EXPECT_EQ(seeds[0].inherited_fds, (std::vector<int>{1, 7}));  // 9 is used before its open
  EXPECT_EQ(seeds[1].inherited_fds, (std::vector<int>{4}));

  ProcessTable procs(seeds);
  ProcessState* parent = procs.find(10);
  ProcessState* child = procs.find(11);
  ASSERT_TRUE(parent && child);
  EXPECT_EQ(parent->fds->get(1).state, FdState::kOpen);  // /dev/null duplicate
  int f = devnull();
  parent->fds->set_open(4, f, false, "/f");
  parent->set_cwd("/work");
  procs.spawn(10, 11, 0, false);
  EXPECT_EQ(child->fds->get(4).state, FdState::kOpen);
  EXPECT_NE(child->fds->get(4).fd, f);
  EXPECT_EQ(child->cwd(), "/work");
  EXPECT_NE(child->fds.get(), parent->fds.get());

  // CLONE_FILES shares the table.
  procs.spawn(10, 11, CLONE_FILES, true);
  EXPECT_EQ(child->fds.get(), parent->fds.get());
}

TEST(RuntimeFdMap, SpawnRequestsFindTheCreatingClone) {
  testing::TraceBuilder b;
  b.add(10, 10, "clone", {CLONE_VM | CLONE_THREAD | CLONE_FILES, 0, 0, 0, 0}, 12);
  b.add(10, 12, "write", {1, 0, 1}, 1);
  b.add(10, 10, "write", {1, 0, 1}, 1);
  Plan p = testing::hand_plan(b.take(), false);
  auto s = spawn_requests(p);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], -1);
  EXPECT_EQ(s[1], 0);
}

}  // namespace
}  // namespace rastro::replay
