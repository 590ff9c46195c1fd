// Ordering unit tests on hand-made traces (SPEC §4, issue 5).
#include <algorithm>
#include <iterator>
#include <limits>
#include <sstream>
#include <fstream>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_names.h"
#include "trace/formats/text/text_format.h"
#include "trace/model/page_fault.h"
#include "tests/replay/trace_builder_plan.h"

namespace rastro::replay {
namespace {

using testing::Edge;
using testing::PlanTraceBuilder;
using testing::edges_of;
using testing::dump;

constexpr int64_t O_WRONLY_ = 01, O_RDWR_ = 02, O_CREAT_ = 0100, O_EXCL_ = 0200, O_TRUNC_ = 01000,
                  O_APPEND_ = 02000, O_LARGEFILE_ = 0100000, O_DIRECTORY_ = 0200000;
constexpr int64_t CLONE_VM_ = 0x100, CLONE_FILES_ = 0x400;
constexpr int64_t kENOENT = -2;

Plan infer(trace::Trace t, Ordering o) {
  auto r = infer_plan(std::move(t), o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
  return r.ok() ? std::move(r.value()) : Plan{};
}

// Thesis Table 2.1 (times in the table's units, here µs). The table gives no threads; each
// request runs on its own thread of one process so that only the ordering's own edges appear.
// Request 3's flags are the table's 3101 read as octal (O_WRONLY|O_CREAT|O_TRUNC|O_APPEND), as
// request 0's 32961 is O_WRONLY|O_CREAT|O_EXCL|O_LARGEFILE.
trace::Trace table_2_1(bool one_thread = false) {
  PlanTraceBuilder b;
  auto tid = [&](int i) { return one_thread ? 10 : 10 + i; };
  const int64_t us = 1000;
  b.add(10, tid(0), 0 * us, 1 * us, "open", {"/parentA/fileA", O_WRONLY_ | O_CREAT_ | O_EXCL_ | O_LARGEFILE_, 0600}, 5);
  b.add(10, tid(1), 2 * us, 3 * us, "mkdir", {"/parentB", 0755}, 0);
  b.add(10, tid(2), 4 * us, 6 * us, "write", {5, 0, 1024}, 1024);
  b.add(10, tid(3), 5 * us, 6 * us, "open", {"/parentB/.lock", O_WRONLY_ | O_CREAT_ | O_TRUNC_ | O_APPEND_, 0666}, 6);
  b.add(10, tid(4), 7 * us, 8 * us, "close", {5}, 0);
  b.add(10, tid(5), 7 * us, 9 * us, "unlink", {"/parentB/.lock"}, 0);
  b.add(10, tid(6), 12 * us, 13 * us, "creat", {"/parentC/", 0}, 0);
  b.add(10, tid(7), 14 * us, 15 * us, "stat", {"/parentC/.lock", 0}, kENOENT);
  return b.take();
}

TEST(InferenceTable21, FsEdgesAreExactlyTheResourceDependencies) {
  Plan p = infer(table_2_1(), Ordering::kFs);
  ASSERT_EQ(p.requests.size(), 8u);
  const std::set<Edge> want = {
      {0, 2, "fd-stage"},  // write(5) waits for the open that created fd 5
      {1, 3, "path"},      // open(/parentB/.lock) waits for mkdir(/parentB)
      {2, 4, "fd-stage"},  // close(5) waits for the other user of fd 5, the write
      {3, 5, "path"},      // unlink(/parentB/.lock) waits for the open of it
  };
  EXPECT_EQ(edges_of(p), want);
  EXPECT_EQ(p.figures.edges_by_kind[static_cast<int>(EdgeKind::kFdStage)], 2u);
  EXPECT_EQ(p.figures.edges_by_kind[static_cast<int>(EdgeKind::kPath)], 2u);
  EXPECT_EQ(p.figures.unconstrained, 4u);  // open, mkdir, creat, and the failed stat
  EXPECT_EQ(p.figures.failed, 1u);
  // ASAP with traced durations: chains 0->2->4 (1+2+1) and 1->3->5 (1+1+2).
  EXPECT_EQ(p.figures.critical_path_ns, 4000);
  EXPECT_EQ(p.figures.max_parallelism, 4u);  // open, mkdir, creat, stat all start at 0
  EXPECT_DOUBLE_EQ(p.figures.mean_parallelism, 10.0 / 4.0);
  EXPECT_EQ(p.trace.str(p.paths[6][0]), "/parentC");
}

TEST(InferenceTable21, TemporalEdgesAreTheReducedCompletedBeforeBeganOrder) {
  Plan p = infer(table_2_1(), Ordering::kTemporal);
  const std::set<Edge> want = {
      {0, 1, "temporal"}, {1, 2, "temporal"}, {1, 3, "temporal"}, {2, 4, "temporal"}, {3, 4, "temporal"},
      {2, 5, "temporal"}, {3, 5, "temporal"}, {4, 6, "temporal"}, {5, 6, "temporal"}, {6, 7, "temporal"},
  };
  EXPECT_EQ(edges_of(p), want);
  EXPECT_EQ(p.figures.critical_path_ns, 8000);
  EXPECT_EQ(p.figures.unconstrained, 1u);
}

// Page faults are no calls: under temporal ordering they keep their thread's order and take no
// part in the order between threads (two processes starting side by side, each faulting its
// libraries in, must not wait for each other's faults).
TEST(InferenceTemporal, PageFaultsAreOrderedWithinTheirThreadOnly) {
  PlanTraceBuilder b;
  auto fault = [&](int pid, int64_t at) {
    const size_t i = b.add(pid, pid, at, at, "mm_fault", {"/lib.so", 0, 4096, 0, 0x7000}, 0);
    b.trace().events[i].flags = trace::kEventPageFault;
  };
  b.add(1, 1, 0, 10, "openat", {-100, "/a", 0}, 3);  // 0
  fault(1, 20);                                       // 1
  fault(2, 30);                                       // 2: after 0 and 1 in the trace
  b.add(1, 1, 40, 50, "close", {3}, 0);               // 3
  fault(2, 60);                                       // 4: after 3
  b.add(2, 2, 70, 80, "openat", {-100, "/b", 0}, 4);  // 5: after 3 and every fault
  Plan p = infer(b.take(), Ordering::kTemporal);
  const std::set<Edge> want = {
      {0, 1, "thread"}, {1, 3, "thread"}, {2, 4, "thread"}, {4, 5, "thread"},
      {3, 5, "temporal"},  // the call waits for the other thread's last call, not its faults
  };
  EXPECT_EQ(edges_of(p), want);
}

TEST(InferenceTable21, ThreadOrderingHasNoEdgesAcrossThreads) {
  Plan p = infer(table_2_1(), Ordering::kThread);
  EXPECT_TRUE(edges_of(p).empty());
  EXPECT_EQ(p.figures.unconstrained, 8u);
  EXPECT_EQ(p.threads.size(), 8u);
}

TEST(InferenceTable21, OneThreadGivesOnlyProgramOrder) {
  for (Ordering o : {Ordering::kThread, Ordering::kFs, Ordering::kTemporal}) {
    Plan p = infer(table_2_1(true), o);
    std::set<Edge> want;
    for (uint32_t r = 1; r < 8; ++r) want.emplace(r - 1, r, "thread");
    EXPECT_EQ(edges_of(p), want) << ordering_name(o);
    EXPECT_EQ(p.figures.critical_path_ns, 10000);
  }
}

TEST(InferenceFs, OverlappingUsersOfAnFdStayConcurrent) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "open", {"/f", 0}, 3);
  b.add(1, 2, 20, 50, "pread64", {3, 0, 4096, 0}, 4096);      // 1
  b.add(1, 3, 30, 60, "pread64", {3, 0, 4096, 4096}, 4096);   // 2: overlaps 1
  b.add(1, 4, 70, 80, "pread64", {3, 0, 4096, 8192}, 4096);   // 3: after both
  Plan p = infer(b.take(), Ordering::kFs);
  const std::set<Edge> want = {
      {0, 1, "fd-stage"}, {0, 2, "fd-stage"},
      {2, 3, "fd-seq"},  // the last user completed before 3 began; 1 is not waited for
  };
  EXPECT_EQ(edges_of(p), want);
  EXPECT_EQ(p.figures.max_parallelism, 2u);
}

// Thread 1's open returns 3 while thread 2's close(3) is in flight: the close began later but
// freed 3 first (replay/passes/fd_reuse.h). The close ends thread 2's lifetime (it waits for
// that lifetime's write), and thread 3's read uses the new one, created by thread 1's open.
TEST(InferenceFs, CloseOverlappingTheCreateThatReusesItsFdEndsTheOldLifetime) {
  PlanTraceBuilder b;
  b.add(1, 2, 0, 10, "open", {"/old", O_RDWR_}, 3);            // 0
  b.add(1, 4, 20, 30, "write", {3, 0, 10}, 10);                // 1: another user of the old 3
  b.add(1, 1, 100, 200, "open", {"/new", O_RDWR_}, 3);         // 2
  b.add(1, 2, 110, 150, "close", {3}, 0);                      // 3: began after 2, ended first
  b.add(1, 3, 300, 310, "read", {3, 0, 10}, 10);               // 4
  Plan p = infer(b.take(), Ordering::kFs);
  const std::set<Edge> want = {
      {0, 1, "fd-stage"},  // the write uses the fd the first open created
      {1, 3, "fd-stage"},  // close(3) waits for the other user of *its* lifetime
      {2, 4, "fd-stage"},  // the read uses the new lifetime
  };
  EXPECT_EQ(edges_of(p, false), want) << dump(edges_of(p, false));
  EXPECT_EQ(p.figures.inherited_fds, 0u);
}

// The mirror image: thread 1's open began first but returned 3 after thread 2 had opened, used
// and closed its own 3. Thread 3's write after that uses thread 1's lifetime.
TEST(InferenceFs, CreateThatReturnsItsFdLastTakesItAfterTheOverlappingLifetime) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 600, "open", {"/a", O_RDWR_}, 3);             // 0: returns last
  b.add(1, 2, 5, 30, "open", {"/b", O_RDWR_}, 3);              // 1
  b.add(1, 4, 40, 50, "write", {3, 0, 10}, 10);                // 2: thread 2's lifetime
  b.add(1, 2, 100, 110, "close", {3}, 0);                      // 3
  b.add(1, 3, 700, 710, "write", {3, 0, 10}, 10);              // 4: thread 1's lifetime
  Plan p = infer(b.take(), Ordering::kFs);
  const std::set<Edge> want = {
      {1, 2, "fd-stage"},  // the write uses the fd the second open created
      {2, 3, "fd-stage"},  // whose close waits for it
      {0, 4, "fd-stage"},  // the later write uses the first open's fd
  };
  EXPECT_EQ(edges_of(p, false), want) << dump(edges_of(p, false));
  EXPECT_EQ(p.figures.inherited_fds, 0u);
}

// Until the overlapping release, the releasing thread's uses are the old lifetime's: thread 1
// writes to its 3 and closes it while thread 2's open, which returns 3, is in flight.
TEST(InferenceFs, UseBeforeTheOverlappingReleaseStaysWithTheOldLifetime) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 200, "open", {"/a", O_RDWR_}, 3);             // 0
  b.add(1, 2, 150, 300, "open", {"/b", O_RDWR_}, 3);           // 1: needs 0's 3 released
  b.add(1, 1, 201, 210, "write", {3, 0, 10}, 10);              // 2: still 0's lifetime
  b.add(1, 1, 211, 220, "close", {3}, 0);                      // 3: the release
  b.add(1, 3, 400, 410, "write", {3, 0, 10}, 10);              // 4: 1's lifetime
  Plan p = infer(b.take(), Ordering::kFs);
  const std::set<Edge> want = {{1, 4, "fd-stage"}};  // 2 and 3 follow 0 in thread order
  EXPECT_EQ(edges_of(p, false), want) << dump(edges_of(p, false));
  EXPECT_EQ(p.figures.inherited_fds, 0u);
}

TEST(InferenceFs, FailedCallsTakeNoPartInTheOrderButOfTheNamesTheyFoundAbsent) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "mkdir", {"/d", 0755}, 0);
  b.add(1, 2, 20, 30, "open", {"/d/x", 0}, kENOENT);        // failed: /d exists, nothing to wait for
  b.add(1, 3, 40, 50, "unlink", {"/d/y"}, kENOENT);         // failed: removes nothing, but saw /d/y absent
  b.add(1, 4, 60, 70, "open", {"/d/y", O_CREAT_ | O_EXCL_ | O_WRONLY_, 0644}, 3);
  b.add(1, 5, 80, 90, "write", {7, 0, 10}, -9);             // EBADF on an unknown fd
  Plan p = infer(b.take(), Ordering::kFs);
  // The create needs /d, and comes after the unlink that found /d/y absent (run first, that
  // unlink would remove the new file).
  const std::set<Edge> want = {{0, 3, "path"}, {2, 3, "path"}};
  EXPECT_EQ(edges_of(p), want);
  EXPECT_EQ(p.figures.failed, 3u);
  EXPECT_EQ(p.figures.inherited_fds, 0u);  // a failed call opens no fd lifetime
}

// git gc: pack-refs unlinks the loose ref .git/refs/heads/master, and the next git process's lstat
// of it fails. Nothing else ties the two processes' calls together (the parent's wait for the
// first is not in the trace): a replay that ran the lstat first found the ref (r13c, 2026-11-29).
TEST(InferenceFs, ACallThatFoundItsPathAbsentComesBetweenItsRemovalAndItsRemaking) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "open", {"/r/m", O_CREAT_ | O_WRONLY_, 0644}, 3);         // 0
  b.add(1, 1, 11, 12, "close", {3}, 0);                                        // 1
  b.add(2, 2, 20, 21, "unlink", {"/r/m"}, 0);                                  // 2 (pack-refs)
  b.add(3, 3, 30, 31, "lstat", {"/r/m", 0}, kENOENT);                          // 3 (the next git)
  b.add(4, 4, 40, 41, "mkdir", {"/q", 0755}, 0);                               // 4
  b.add(5, 5, 50, 51, "rmdir", {"/q"}, 0);                                     // 5
  b.add(6, 6, 60, 61, "stat", {"/q/f", 0}, kENOENT);                           // 6 (below a removed dir)
  b.add(7, 7, 70, 71, "open", {"/r/m", O_CREAT_ | O_EXCL_ | O_WRONLY_, 0644}, 3);  // 7 (made again)
  Plan p = infer(b.take(), Ordering::kFs);
  auto e = edges_of(p);
  EXPECT_TRUE(e.count({2, 3, "path"})) << dump(e);  // the lstat saw the unlink's result
  EXPECT_TRUE(e.count({5, 6, "path"})) << dump(e);  // the directory above was removed
  EXPECT_TRUE(e.count({3, 7, "path"})) << dump(e);  // the name is made again after the lstat
  EXPECT_TRUE(e.count({2, 7, "path"})) << dump(e);  // (as any creation waits for the removal)
}

TEST(InferenceFs, RemovalWaitsForEveryUserAndRecreationForTheRemoval) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "open", {"/f", O_CREAT_ | O_EXCL_ | O_WRONLY_, 0644}, 3);  // 0
  b.add(1, 1, 11, 12, "close", {3}, 0);                                     // 1
  b.add(1, 2, 20, 30, "stat", {"/f", 0}, 0);                                // 2
  b.add(1, 3, 21, 31, "access", {"/f", 0}, 0);                              // 3
  b.add(1, 4, 40, 50, "unlink", {"/f"}, 0);                                 // 4
  b.add(1, 5, 60, 70, "open", {"/f", O_CREAT_ | O_EXCL_ | O_WRONLY_, 0644}, 4);  // 5
  b.add(1, 6, 80, 90, "stat", {"/f", 0}, 0);                                // 6
  Plan p = infer(b.take(), Ordering::kFs);
  auto e = edges_of(p);
  // stat/access need /f to exist (created by 0) and use its file after thread 1's close: the
  // close is later in thread 1, so it alone is kept (it implies the open).
  EXPECT_TRUE(e.count({1, 2, "file"})) << dump(e);
  EXPECT_TRUE(e.count({1, 3, "file"})) << dump(e);
  EXPECT_TRUE(e.count({2, 4, "path"})) << dump(e);  // unlink waits for every user of the name
  EXPECT_TRUE(e.count({3, 4, "path"})) << dump(e);
  EXPECT_TRUE(e.count({0, 4, "path"})) << dump(e);  // (thread 1's last user of the name: the open)
  EXPECT_TRUE(e.count({4, 5, "path"})) << dump(e);  // the O_EXCL create waits for the unlink
  EXPECT_TRUE(e.count({5, 6, "path"})) << dump(e);  // the new file's user waits for its creation
  EXPECT_FALSE(e.count({0, 6, "path"})) << dump(e);
}

// `cp s.img s2.img && du -k *.img`: the shell's glob lists the directory after cp, another
// process, made s2.img there; nothing but the directory ties the listing to that create. The
// listing waits for the entry changes that completed before it began, and a later change (another
// process's unlink) waits for the listing, so the replayed listing shows the traced entries.
TEST(InferenceFs, ADirectoryListingIsOrderedWithTheChangesOfItsEntries) {
  PlanTraceBuilder b;
  b.add(2, 2, 0, 10, "open", {"/d/x", O_CREAT_ | O_WRONLY_, 0644}, 3);  // 0 (cp)
  b.add(2, 2, 11, 12, "close", {3}, 0);                                 // 1
  b.add(1, 1, 20, 21, "open", {"/d", O_DIRECTORY_}, 4);                 // 2 (the shell)
  b.add(1, 1, 22, 23, "getdents64", {4, 0, 32768}, 96);                 // 3
  b.add(1, 1, 24, 25, "close", {4}, 0);                                 // 4
  b.add(3, 3, 30, 31, "unlink", {"/d/x"}, 0);                           // 5 (rm)
  b.add(4, 4, 40, 41, "stat", {"/d", 0}, 0);                            // 6 (uses /d, changes nothing)
  Plan p = infer(b.take(), Ordering::kFs);
  auto e = edges_of(p);
  EXPECT_TRUE(e.count({0, 3, "path"})) << dump(e);  // the listing shows x
  EXPECT_TRUE(e.count({3, 5, "path"})) << dump(e);  // and x is removed after it
  for (const auto& [from, to, kind] : e) EXPECT_FALSE(from == 3 && to == 6) << "a stat is no entry change";
}

TEST(InferenceFs, RenamingADirectoryRenamesEveryPathBelowIt) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "mkdir", {"/d", 0755}, 0);                                  // 0
  b.add(1, 1, 11, 20, "mkdir", {"/d/sub", 0755}, 0);                             // 1
  b.add(1, 1, 21, 30, "open", {"/d/sub/f", O_CREAT_ | O_WRONLY_, 0644}, 3);      // 2
  b.add(1, 1, 31, 40, "close", {3}, 0);                                          // 3
  b.add(1, 2, 50, 60, "rename", {"/d", "/e"}, 0);                                // 4
  b.add(1, 3, 70, 80, "open", {"/e/sub/f", 0}, 3);                               // 5
  b.add(1, 4, 71, 81, "open", {"/d/sub/f", O_CREAT_ | O_EXCL_ | O_WRONLY_, 0644}, kENOENT);  // 6 failed
  b.add(1, 5, 90, 95, "mkdir", {"/d", 0755}, 0);                                 // 7
  b.add(1, 6, 96, 99, "stat", {"/e/sub", 0}, 0);                                 // 8
  Plan p = infer(b.take(), Ordering::kFs);
  auto e = edges_of(p);
  // rename waits for the users below /d: thread 1's last is the close of /d/sub/f's file.
  EXPECT_TRUE(e.count({3, 4, "file"})) << dump(e);
  EXPECT_TRUE(e.count({4, 5, "path"})) << dump(e);  // /e/sub/f exists since the rename
  EXPECT_TRUE(e.count({4, 7, "path"})) << dump(e);  // /d is absent since the rename
  EXPECT_TRUE(e.count({4, 8, "path"})) << dump(e);
  // The failed create found /d/sub/f absent: it comes after the rename that took /d away.
  EXPECT_TRUE(e.count({4, 6, "path"})) << dump(e);
  // The file opened through the new name is the one created under the old name.
  EXPECT_EQ(p.trace.str(p.paths[5][0]), "/e/sub/f");
}

TEST(InferenceFs, ForkedChildInheritsFdsAndCwd) {
  PlanTraceBuilder b;
  b.add(100, 100, 0, 10, "chdir", {"/work"}, 0);                 // 0
  b.add(100, 100, 11, 20, "open", {"data", 0}, 3);              // 1 -> /work/data
  b.add(100, 100, 21, 30, "fork", {}, 200);                      // 2
  b.add(200, 200, 31, 40, "read", {3, 0, 100}, 100);             // 3 child uses inherited fd 3
  b.add(200, 200, 41, 50, "open", {"other", 0}, 4);             // 4 child's cwd is /work
  b.add(200, 200, 51, 60, "close", {3}, 0);                      // 5 closes the child's copy
  b.add(100, 100, 61, 70, "read", {3, 0, 100}, 100);             // 6 parent's fd 3 still open
  b.add(100, 100, 71, 80, "write", {1, 0, 5}, 5);                // 7 stdout: inherited, no creator
  Plan p = infer(b.take(), Ordering::kFs);
  auto e = edges_of(p, false);
  EXPECT_TRUE(e.count({1, 3, "fd-stage"})) << dump(e);  // child's read waits for the parent's open
  // Same open file description (shared offset): the parent's read waits for the child's last
  // completed use of it, its close (which follows the child's read in program order).
  EXPECT_TRUE(e.count({5, 6, "fd-seq"})) << dump(e);
  for (const auto& [from, to, kind] : e) EXPECT_NE(to, 7u);
  EXPECT_EQ(p.trace.str(p.paths[1][0]), "/work/data");
  EXPECT_EQ(p.trace.str(p.paths[4][0]), "/work/other");
  EXPECT_EQ(p.figures.inherited_fds, 1u);
  EXPECT_EQ(p.figures.by_action[static_cast<int>(RequestAction::kLifecycle)], 1u);
}

// A replayed fork copies the table as it is when the fork runs: another thread's open of an fd
// the child uses must come first, and that thread's close of it after (else the child lacks
// the fd: fd_use_before_open). A thread's clone copies nothing.
TEST(InferenceFs, AForkWaitsForTheOpensItCopiesAndTheirClosesWaitForIt) {
  PlanTraceBuilder b;
  b.add(1, 2, 0, 10, "open", {"/a", 0}, 3);                          // 0 thread 2
  b.add(1, 1, 20, 30, "fork", {}, 200);                              // 1 thread 1
  b.add(1, 2, 25, 28, "open", {"/b", 0}, 4);                         // 2 began after the fork
  b.add(200, 200, 31, 40, "read", {3, 0, 100}, 100);                 // 3 child's copy of fd 3
  b.add(1, 2, 50, 60, "close", {3}, 0);                              // 4 thread 2 closes fd 3
  b.add(1, 1, 61, 70, "clone", {CLONE_VM_ | CLONE_FILES_, 0}, 3);    // 5 a thread: shares the table
  b.add(1, 3, 71, 80, "open", {"/c", 0}, 5);                         // 6 the new thread
  b.add(1, 1, 81, 90, "clone3", {"{flags=CLONE_VM|CLONE_THREAD}", 88}, 4);  // 7 a thread (flags not recorded)
  b.add(1, 4, 91, 95, "fstat", {5, 0}, 0);                           // 8
  Plan p = infer(b.take(), Ordering::kFs);
  auto e = edges_of(p, false);
  EXPECT_TRUE(e.count({0, 1, "fd-stage"})) << dump(e);  // the fork after the open it copies
  EXPECT_TRUE(e.count({1, 4, "fd-stage"})) << dump(e);  // the parent's close after the fork
  EXPECT_FALSE(e.count({2, 1, "fd-stage"})) << dump(e);
  for (const auto& [from, to, kind] : e) {
    EXPECT_NE(to, 5u) << "a thread's clone waited: " << dump(e);
    EXPECT_NE(to, 7u) << "a thread's clone3 waited: " << dump(e);
  }
}

TEST(InferenceFs, ThreadsShareTheFdTableAndDirfdsResolve) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "openat", {-100, "/srv", O_DIRECTORY_, 0}, 5);      // 0
  b.add(1, 2, 20, 30, "openat", {5, "a/../b", O_RDWR_, 0}, 6);           // 1
  b.add(1, 3, 40, 50, "fstat", {6, 0}, 0);                                // 2
  b.add(1, 1, 60, 70, "dup2", {6, 1}, 1);                                 // 3
  b.add(1, 4, 80, 90, "write", {1, 0, 8}, 8);                             // 4 the dup'ed fd
  b.add(1, 3, 91, 95, "close", {6}, 0);                                   // 5
  Plan p = infer(b.take(), Ordering::kFs);
  auto e = edges_of(p, false);
  EXPECT_EQ(p.trace.str(p.paths[1][0]), "/srv/b");
  EXPECT_TRUE(e.count({0, 1, "fd-stage"})) << dump(e);  // openat waits for its dirfd's open
  EXPECT_TRUE(e.count({1, 2, "fd-stage"})) << dump(e);
  EXPECT_TRUE(e.count({3, 4, "fd-stage"})) << dump(e);  // write(1) waits for the dup2 that made fd 1
  EXPECT_TRUE(e.count({3, 5, "fd-stage"})) << dump(e);  // close(6) waits for thread 1's use (dup2)
}

TEST(InferenceActions, UnknownCallsAreKeptButUnconstrainedMemoryCallsAndFaultsAreReplayed) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "open", {"/f", 0}, 3);
  b.add(1, 2, 20, 30, "mmap", {0, 4096, 1, 2, 3, 0}, 0x7000);
  b.add(1, 2, 31, 40, "frobnicate", {}, 0);
  const size_t fault = b.add(1, 2, 41, 41, "mm_fault", {"/f", 0, 4096, 0, 0x7000}, 0);
  b.trace().events[fault].flags = trace::kEventPageFault;
  Plan p = infer(b.take(), Ordering::kFs);
  ASSERT_EQ(p.requests.size(), 4u);
  EXPECT_EQ(p.requests[1].action, RequestAction::kReplay);  // mapped by the runtime
  EXPECT_EQ(p.requests[2].action, RequestAction::kSkipUnknown);
  EXPECT_EQ(p.requests[3].action, RequestAction::kReplay);  // touched in the replay mapping
  const auto e = edges_of(p);
  EXPECT_TRUE(e.count({0, 1, "fd-stage"})) << "the mmap waits for the open of its fd";
  EXPECT_TRUE(e.count({1, 2, "thread"}));
  for (const auto& [from, to, kind] : e) EXPECT_TRUE(to != 2 || kind == "thread") << "unknown call constrained";
  EXPECT_EQ(p.figures.by_action[static_cast<int>(RequestAction::kReplay)], 3u);
}

// A faulted page says the mapped file existed and reached it; a fault-around range (rounded up to
// whole pages past the end of the file) says nothing about its size.
TEST(InferenceInitialState, FaultedPagesSizeTheMappedFile) {
  PlanTraceBuilder b;
  auto fault = [&](int64_t begin, const char* file, int64_t offset, int64_t how) {
    const size_t i = b.add(1, 1, begin, begin, "mm_fault", {file, offset, 4096, how, 0x7000 + offset}, 0);
    trace::Event& e = b.trace().events[i];
    e.flags = trace::kEventPageFault;
    e.nargs = trace::kFaultArgs;
    e.args[trace::kFaultArgFile].type = trace::ArgType::kPath;
  };
  fault(0, "/usr/bin/prog", 8192, 0);
  fault(1, "/usr/bin/prog", 0, trace::kFaultExec);
  fault(2, "/usr/bin/prog", 65536, trace::kFaultAround);
  Plan p = infer(b.take(), Ordering::kFs);
  const InitEntry* prog = nullptr;
  for (const InitEntry& e : p.init.entries)
    if (e.path == "/usr/bin/prog") prog = &e;
  ASSERT_NE(prog, nullptr);
  EXPECT_EQ(prog->kind, InitEntry::Kind::kFile);
  EXPECT_EQ(prog->size, 8193u);
}

TEST(InferencePaths, NormalizePath) {
  EXPECT_EQ(normalize_path("/a/b", "c"), "/a/b/c");
  EXPECT_EQ(normalize_path("/a/b", "../c/./d/"), "/a/c/d");
  EXPECT_EQ(normalize_path("/a", "/x//y/.."), "/x");
  EXPECT_EQ(normalize_path("/", "../../.."), "/");
  EXPECT_EQ(normalize_path("/a", ""), "/a");
}

TEST(InferencePasses, PassManagerRefusesAPassWhoseInputIsNotProduced) {
  PassManager pm;
  EXPECT_THROW(pm.add(CreateInferOrderPass()), std::logic_error);
  EXPECT_EQ(AllReplayPasses().names(),
            (std::vector<std::string>{"parse", "resolve_paths", "resolve_fds", "infer_order", "cross_rank_order", "uring_batches", "plan"}));
}

// ---- random traces ------------------------------------------------------------------------

trace::Trace random_trace(uint32_t seed, int threads, int events, int files) {
  std::mt19937 rng(seed);
  PlanTraceBuilder b;
  std::vector<int64_t> now(static_cast<size_t>(threads), 0);
  std::vector<std::vector<int>> open_fds(static_cast<size_t>(threads));
  int next_fd = 3;
  for (int i = 0; i < events; ++i) {
    const auto t = static_cast<size_t>(rng() % static_cast<unsigned>(threads));
    const int64_t begin = now[t] + static_cast<int64_t>(rng() % 50);
    const int64_t end = begin + static_cast<int64_t>(rng() % 40);  // zero-length calls too
    now[t] = end;
    const int tid = 10 + static_cast<int>(t);
    const std::string path = "/r/" + std::to_string(rng() % static_cast<unsigned>(files));
    const bool fails = rng() % 10 == 0;
    switch (rng() % 8) {
      case 0:
        b.add(1, tid, begin, end, "open", {path, O_CREAT_ | O_RDWR_, 0644}, fails ? kENOENT : next_fd);
        if (!fails) open_fds[t].push_back(next_fd++);
        break;
      case 1:
      case 2:
      case 3:
        if (!open_fds[t].empty())
          b.add(1, tid, begin, end, "pwrite64", {open_fds[t].back(), 0, 10, 0}, fails ? -9 : 10);
        else
          b.add(1, tid, begin, end, "stat", {path, 0}, fails ? kENOENT : 0);
        break;
      case 4:
        if (!open_fds[t].empty()) {
          b.add(1, tid, begin, end, "close", {open_fds[t].back()}, 0);
          open_fds[t].pop_back();
        }
        break;
      case 5:
        b.add(1, tid, begin, end, "unlink", {path}, fails ? kENOENT : 0);
        break;
      case 6:
        b.add(1, tid, begin, end, "rename", {path, "/r/" + std::to_string(rng() % static_cast<unsigned>(files))}, 0);
        break;
      default:
        b.add(1, tid, begin, end, "mkdir", {path + "d", 0755}, fails ? -17 : 0);
        break;
    }
  }
  return b.take();
}

TEST(InferenceRandom, PlansAreAcyclicAndDepsPointBackwards) {
  for (uint32_t seed = 1; seed <= 30; ++seed) {
    for (Ordering o : {Ordering::kThread, Ordering::kFs, Ordering::kTemporal}) {
      Plan p = infer(random_trace(seed, 1 + static_cast<int>(seed % 6), 400, 6), o);
      ASSERT_EQ(p.requests.size(), p.trace.events.size());
      for (uint32_t r = 0; r < p.requests.size(); ++r) {
        for (const Dep& d : deps_of(p, r)) ASSERT_LT(d.request, r) << "seed " << seed;
      }
      // compute_figures runs Boost's topological_sort; a corrupted plan must be refused.
      if (!p.deps.empty()) {
        Plan bad = p;
        const uint32_t last = static_cast<uint32_t>(bad.requests.size() - 1);
        // The owner of deps[0] now waits for the last request, which waits for the owner (a
        // dependency appended to the CSR storage is the last request's).
        bad.deps[0].request = last;
        uint32_t owner = 0;
        while (deps_of(bad, owner).empty()) ++owner;
        ASSERT_EQ(bad.requests[owner].deps_begin, 0u);
        bad.deps.push_back(Dep{owner, EdgeKind::kThread});
        EXPECT_FALSE(compute_figures(bad).ok());
      }
    }
  }
}

// A plan with a forward dependency (not one inference makes, but a plan can be edited or built
// by hand) is ordered by Boost's topological sort: request 0 waits for request 1 here.
TEST(InferenceFigures, ForwardDependencyWithoutCycleIsScheduledAfterIt) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "stat", {"/a", 0}, 0);    // 0: 10 ns
  b.add(1, 2, 5, 25, "stat", {"/b", 0}, 0);    // 1: 20 ns
  b.add(1, 3, 30, 70, "stat", {"/c", 0}, 0);   // 2: 40 ns, independent
  Plan p = infer(b.take(), Ordering::kThread);
  ASSERT_TRUE(p.deps.empty());
  p.deps.push_back(Dep{1, EdgeKind::kPath});
  p.requests[0].deps_begin = 0;  // [0, 1): the others' begin after it
  p.requests[1].deps_begin = p.requests[2].deps_begin = 1;
  ASSERT_TRUE(compute_figures(p).ok());
  EXPECT_EQ(p.figures.critical_path_ns, 40);  // max(20 + 10, 40)
  EXPECT_EQ(p.figures.max_parallelism, 2u);
  EXPECT_EQ(p.figures.edges_by_kind[static_cast<int>(EdgeKind::kPath)], 1u);
}

// Program order is each thread's list (PlanThread::requests), also where a plan built by hand
// lists them out of index order: then the figures read it from the lists (a forward edge here,
// 2 before 0) and order the plan with Boost's topological sort.
TEST(InferenceFigures, ProgramOrderIsTheThreadsListAlsoOutOfIndexOrder) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "stat", {"/a", 0}, 0);    // 0: 10 ns
  b.add(1, 2, 5, 25, "stat", {"/b", 0}, 0);    // 1: 20 ns
  b.add(1, 3, 30, 70, "stat", {"/c", 0}, 0);   // 2: 40 ns
  Plan p = infer(b.take(), Ordering::kThread);
  ASSERT_TRUE(p.deps.empty());
  EXPECT_EQ(p.figures.critical_path_ns, 40);  // three threads, no edges
  EXPECT_EQ(p.figures.max_parallelism, 3u);
  p.threads.resize(1);
  p.threads[0].requests = {2, 0, 1};
  for (Request& q : p.requests) q.thread = 0;
  ASSERT_TRUE(compute_figures(p).ok());
  EXPECT_EQ(p.figures.critical_path_ns, 70);  // one chain: 40 + 10 + 20
  EXPECT_EQ(p.figures.max_parallelism, 1u);
  EXPECT_EQ(p.figures.edges_by_kind[static_cast<int>(EdgeKind::kThread)], 2u);
  EXPECT_EQ(p.figures.unconstrained, 1u);  // 2, the first of the list
  p.threads[0].requests = {2, 0, 2};  // a cycle through program order is refused
  EXPECT_FALSE(compute_figures(p).ok());
}

// Enough requests for the figures' radix sort of start and end times (its small-range sort
// stops at 64), with durations from 1 ns to past 2^40 ns (several 8-bit digits): the peak
// parallelism of the ASAP schedule equals a plain std::sort sweep of the same intervals. Under
// thread ordering each thread is a chain: a call starts where its thread's previous one ended.
TEST(InferenceFigures, MaxParallelismOfManyCallsEqualsASweepOfTheirSchedule) {
  std::mt19937_64 rng(11);
  PlanTraceBuilder b;
  constexpr int kThreads = 7, kCalls = 3000;
  std::vector<int64_t> thread_end(kThreads, 0), starts, ends;
  for (int i = 0; i < kCalls; ++i) {
    const int t = static_cast<int>(rng() % kThreads);
    const int64_t d = int64_t{1} << (rng() % 42);  // 1 ns ... 2^41 ns
    b.add(1, 10 + t, i, i + 1, "stat", {"/a", 0}, 0);  // (traced times: only the order matters)
    b.trace().events.back().end_ns = b.trace().events.back().begin_ns + d;
    starts.push_back(thread_end[static_cast<size_t>(t)]);
    thread_end[static_cast<size_t>(t)] += d;
    ends.push_back(thread_end[static_cast<size_t>(t)]);
  }
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  uint32_t level = 0, peak = 0;
  for (size_t i = 0, j = 0; i < starts.size();) {
    if (ends[j] <= starts[i]) {
      --level;
      ++j;
    } else {
      peak = std::max(peak, ++level);
      ++i;
    }
  }
  Plan p = infer(b.take(), Ordering::kThread);
  EXPECT_EQ(p.figures.max_parallelism, peak);
  EXPECT_GT(peak, 1u);
  ASSERT_TRUE(compute_figures(p).ok());
  EXPECT_EQ(p.figures.max_parallelism, peak);
}

// The plan pass computes the figures from its columns before the Requests exist; recomputed from
// the finished plan (compute_figures, as for a plan read back) they must not change. Overlapping
// threads, a failed call, a skipped unknown call and an unfinished one.
TEST(InferenceFigures, FromTheColumnsEqualThoseOfTheFinishedPlan) {
  for (Ordering o : {Ordering::kThread, Ordering::kFs, Ordering::kTemporal}) {
    PlanTraceBuilder b;
    b.add(1, 1, 0, 30, "openat", {-100, "/a", 0100, 0644}, 3);
    b.add(1, 2, 10, 50, "stat", {"/a", 0}, 0);
    b.add(1, 1, 40, 45, "write", {3, "", 4}, 4);
    b.add(1, 2, 55, 60, "stat", {"/missing", 0}, -2);
    b.add(1, 3, 20, 90, "no_such_call", {}, 0);
    b.add(1, 1, 60, 100, "close", {3}, 0);
    const size_t last = b.add(1, 3, 95, 95, "read", {3, "", 4}, 0);
    b.trace().events[last].flags |= trace::kEventUnfinished;
    Plan p = infer(b.take(), o);
    const PlanFigures from_columns = p.figures;
    ASSERT_TRUE(compute_figures(p).ok());
    const PlanFigures& again = p.figures;
    for (int k = 0; k < kEdgeKinds; ++k) EXPECT_EQ(from_columns.edges_by_kind[k], again.edges_by_kind[k]) << k;
    EXPECT_EQ(from_columns.critical_path_ns, again.critical_path_ns);
    EXPECT_EQ(from_columns.max_parallelism, again.max_parallelism);
    EXPECT_EQ(from_columns.mean_parallelism, again.mean_parallelism);
    EXPECT_EQ(from_columns.unconstrained, again.unconstrained);
    EXPECT_GT(from_columns.critical_path_ns, 0);
  }
}

// Fuzz finding F6 (docs/reliability.md): a trace with timestamps near 2^63 overflowed the plan
// figures' sums of durations (signed overflow, undefined behaviour: UBSan in the sanitizer build
// aborts here on a regression). They saturate now, so the figures stay non-negative.
TEST(InferenceFigures, ExtremeTimestampsDoNotOverflowTheFigures) {
  std::ifstream f(std::string(RASTRO_SOURCE_DIR) + "/tests/fuzz/crashes/replay_plan-duration-overflow.tsv",
                  std::ios::binary);
  ASSERT_TRUE(f) << "reproducer missing";
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  for (Ordering o : {Ordering::kThread, Ordering::kFs, Ordering::kTemporal}) {
    std::istringstream in(text.substr(1));  // the fuzz target's first byte picks the ordering
    Plan p = infer(trace::read_text_trace(in, "replay_plan-duration-overflow.tsv"), o);
    EXPECT_GE(p.figures.critical_path_ns, 0) << ordering_name(o);
    EXPECT_GE(p.figures.mean_parallelism, 0.0) << ordering_name(o);
  }
}

// The plan's times are relative to the trace's first begin. A hostile trace spanning more than
// 2^63 ns (first begin near -2^63, a later one near 2^63) made that difference signed overflow
// (UBSan aborts the fuzz run); it saturates now, so later requests never appear to begin before
// earlier ones, and the figures from the columns still equal those of the finished plan.
TEST(InferenceFigures, TimesRelativeToAFarNegativeFirstBeginSaturate) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  for (Ordering o : {Ordering::kThread, Ordering::kFs, Ordering::kTemporal}) {
    PlanTraceBuilder b;
    b.add(1, 1, kMin + 10, kMin + 1010, "openat", {-100, "/a", 0, 0}, 3);
    b.add(1, 2, 1000, 1500, "stat", {"/b", 0}, 0);  // begin - t0 = 2^63 + 990: overflows
    b.add(1, 3, kMax - 2000, kMax - 1000, "close", {3}, 0);
    Plan p = infer(b.take(), o);
    ASSERT_EQ(p.requests.size(), 3u) << ordering_name(o);
    EXPECT_EQ(trace_times(p, 0).begin_ns, 0) << ordering_name(o);
    EXPECT_EQ(trace_times(p, 0).end_ns, 1000) << ordering_name(o);
    for (uint32_t r = 1; r < 3; ++r) {
      EXPECT_EQ(trace_times(p, r).begin_ns, kMax) << ordering_name(o) << " request " << r;
      EXPECT_EQ(trace_times(p, r).end_ns, kMax) << ordering_name(o) << " request " << r;
    }
    const PlanFigures from_columns = p.figures;
    ASSERT_TRUE(compute_figures(p).ok());
    EXPECT_EQ(from_columns.critical_path_ns, p.figures.critical_path_ns) << ordering_name(o);
    EXPECT_EQ(from_columns.mean_parallelism, p.figures.mean_parallelism) << ordering_name(o);
  }
}

TEST(InferenceRandom, TemporalIsSparseAndReachesExactlyTheCompletedBeforeBeganCalls) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const int threads = 1 + static_cast<int>(seed % 5);
    Plan p = infer(random_trace(seed, threads, 250, 5), Ordering::kTemporal);
    const auto n = p.requests.size();
    std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
    const std::vector<uint32_t> prev = thread_predecessors(p);  // program order (not stored)
    for (uint32_t r = 0; r < n; ++r) {
      auto reaches = [&](uint32_t d) {
        reach[r][d] = true;
        for (uint32_t x = 0; x < r; ++x)
          if (reach[d][x]) reach[r][x] = true;
      };
      if (prev[r] != kNoRequest) reaches(prev[r]);
      uint32_t temporal = 0;
      for (const Dep& dep : deps_of(p, r)) {
        temporal += dep.kind == EdgeKind::kTemporal;
        reaches(dep.request);
      }
      ASSERT_LE(temporal, static_cast<uint32_t>(threads)) << "request " << r;
    }
    for (uint32_t r = 0; r < n; ++r) {
      for (uint32_t x = 0; x < r; ++x) {
        const bool before = trace_times(p, x).end_ns <= trace_times(p, r).begin_ns ||
                            p.requests[x].thread == p.requests[r].thread;
        ASSERT_EQ(reach[r][x], before) << "seed " << seed << " " << x << " -> " << r;
      }
    }
  }
}

// Garbage in: random known syscalls with random argument values and strings, odd pids/tids,
// end before begin, unfinished flags, more nargs than args. Inference must neither crash (ASan
// in CI) nor produce a cyclic or forward-pointing plan.
TEST(InferenceRandom, GarbageEventsNeverBreakInference) {
  const auto table = trace::all_syscalls();
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    trace::Trace t;
    const std::vector<std::string> strs = {"", "/", "a/../../b", "/x/./y//", "..", "/x", "/x/y", "rel", "/\x01\n"};
    for (int i = 0; i < 500; ++i) {
      trace::Event e;
      e.seq = static_cast<uint64_t>(i);
      e.pid = static_cast<int32_t>(rng() % 4) - 1;
      e.tid = static_cast<int32_t>(rng() % 6);
      e.begin_ns = static_cast<int64_t>(rng() % 10000) - 100;
      e.end_ns = e.begin_ns + static_cast<int64_t>(rng() % 300) - 50;
      const auto& info = table[rng() % table.size()];
      e.nr = rng() % 20 == 0 ? 9999 : info.nr;
      e.nargs = static_cast<uint8_t>(rng() % 20 == 0 ? 200 : info.nargs);
      for (size_t a = 0; a < trace::kMaxArgs; ++a) {
        e.args[a].type = rng() % 10 == 0 ? static_cast<trace::ArgType>(rng() % 27) : info.args[a];
        e.args[a].value = static_cast<int64_t>(rng() % 12) - 3 + (rng() % 8 == 0 ? (int64_t{5} << 32) : 0);
        e.args[a].str = t.strings.intern(strs[rng() % strs.size()]);
      }
      e.rvalue = static_cast<int64_t>(rng() % 14) - 4;
      e.flags = rng() % 15 == 0 ? uint32_t{trace::kEventUnfinished} : 0u;
      t.events.push_back(e);
    }
    for (Ordering o : {Ordering::kThread, Ordering::kFs, Ordering::kTemporal}) {
      auto r = infer_plan(t, o);
      ASSERT_TRUE(r.ok()) << r.error();
      const Plan& p = r.value();
      for (uint32_t q = 0; q < p.requests.size(); ++q)
        for (const Dep& d : deps_of(p, q)) ASSERT_LT(d.request, q);
    }
  }
}

}  // namespace
}  // namespace rastro::replay
