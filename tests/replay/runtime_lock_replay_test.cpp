// Locks in the replay (replay/runtime/lock_replay.h): what the kernel does with two opens of one
// file inside this one process stands for two replayed processes. Classic POSIX locks would never
// conflict here (one process owns them all); the replay's must.
#include "replay/runtime/lock_replay.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/thread_order.h"
#include "replay/runtime/call_executor.h"
#include "replay/runtime/fs_init.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;
using testing::TraceBuilder;

struct TwoOpens {
  TempDir dir;
  int a = -1, b = -1;
  TwoOpens() {
    const std::string p = dir.sub("locked");
    a = ::open(p.c_str(), O_RDWR | O_CREAT, 0644);
    b = ::open(p.c_str(), O_RDWR);
    EXPECT_GE(a, 0);
    EXPECT_GE(b, 0);
    EXPECT_EQ(::ftruncate(a, 4096), 0);
  }
  ~TwoOpens() {
    ::close(a);
    ::close(b);
  }
};

constexpr trace::LockFields kWrite100{F_WRLCK, SEEK_SET, 100, 10};

// `plan` (inferred with fs ordering) replayed by `eng` into a fresh root, where no call may be
// skipped or mismatch; the records are by plan request (and read the plan: it must outlive them).
EngineResult replay_fs_faithfully(EngineKind eng, const Plan& plan) {
  TempDir root;
  SandboxResolver sb(root.path());
  create_initial_state(sb, plan.init);
  EngineResult res = run_engine(eng, plan, sb, EngineOptions{});
  EXPECT_EQ(res.stats.skipped_total(), 0u);
  EXPECT_EQ(res.stats.mismatched, 0u) << (res.stats.mismatched_by_call.empty() ? "" : res.stats.mismatched_by_call.begin()->first);
  return res;
}

TEST(LockReplay, ClassicLocksOfTwoReplayedOpensConflictAsTheTracedProcessesDid) {
  TwoOpens f;
  // The premise: as classic locks in one process, the second would be granted.
  struct flock fl{};
  fl.l_type = F_WRLCK;
  fl.l_start = 100;
  fl.l_len = 10;
  ASSERT_EQ(::fcntl(f.a, F_SETLK, &fl), 0);
  EXPECT_EQ(::fcntl(f.b, F_SETLK, &fl), 0) << "one process's classic locks never conflict";
  fl.l_type = F_UNLCK;
  ASSERT_EQ(::fcntl(f.a, F_SETLK, &fl), 0);

  EXPECT_EQ(replay_fcntl_lock(f.a, F_SETLK, kWrite100, 0), 0);
  EXPECT_EQ(replay_fcntl_lock(f.b, F_SETLK, kWrite100, -EAGAIN), -EAGAIN);
  EXPECT_EQ(replay_fcntl_lock(f.b, F_SETLK, {F_RDLCK, SEEK_SET, 0, 100}, 0), 0) << "[0, 100) does not overlap";
  // POSIX lets F_SETLK say EACCES: the traced errno is kept when both found the lock held.
  EXPECT_EQ(replay_fcntl_lock(f.b, F_SETLK, kWrite100, -EACCES), -EACCES);
  // A traced success the replay cannot have is reported as it happened.
  EXPECT_EQ(replay_fcntl_lock(f.b, F_SETLK, kWrite100, 0), -EAGAIN);
  EXPECT_EQ(replay_fcntl_lock(f.a, F_SETLK, {F_UNLCK, SEEK_SET, 0, 0}, 0), 0);
  EXPECT_EQ(replay_fcntl_lock(f.b, F_SETLK, kWrite100, 0), 0) << "released";
}

TEST(LockReplay, QueriesAnswerWithoutTakingAndStracesUnlckAnswerIsNoError) {
  TwoOpens f;
  ASSERT_EQ(replay_fcntl_lock(f.a, F_SETLK, kWrite100, 0), 0);
  EXPECT_EQ(replay_fcntl_lock(f.b, F_GETLK, {F_WRLCK, SEEK_SET, 105, 1}, 0), 0);
  // strace prints F_GETLK's answer; "F_UNLCK" (nothing in the way) must not replay as EINVAL.
  EXPECT_EQ(replay_fcntl_lock(f.b, F_OFD_GETLK, {F_UNLCK, SEEK_SET, 4000, 10}, 0), 0);
  EXPECT_EQ(replay_fcntl_lock(f.b, F_SETLK, {F_WRLCK, SEEK_SET, 0, 50}, 0), 0) << "queries took nothing";
}

TEST(LockReplay, BlockingRequestsWaitForTheReleaseButNeverHang) {
  TwoOpens f;
  ASSERT_EQ(replay_fcntl_lock(f.a, F_SETLK, kWrite100, 0), 0);
  // Held for good: the bounded wait gives up with an errno no traced lock call returns.
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(replay_fcntl_lock(f.b, F_SETLKW, kWrite100, 0, 100ms), -ETIMEDOUT);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 100ms);
  // Released by another replay thread meanwhile: the wait ends with the lock.
  std::thread holder([&] {
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(replay_fcntl_lock(f.a, F_SETLK, {F_UNLCK, SEEK_SET, 0, 0}, 0), 0);
  });
  t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(replay_fcntl_lock(f.b, F_OFD_SETLKW, kWrite100, 0), 0);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 40ms) << "it did not wait";
  holder.join();
  EXPECT_EQ(replay_fcntl_lock(f.a, F_SETLK, kWrite100, -EAGAIN), -EAGAIN) << "the waiter holds it now";
}

TEST(LockReplay, FlockNonBlockingFailsBlockingWaitsBounded) {
  TwoOpens f;
  ASSERT_EQ(replay_flock(f.a, LOCK_EX, 0), 0);
  EXPECT_EQ(replay_flock(f.b, LOCK_SH | LOCK_NB, -EWOULDBLOCK), -EWOULDBLOCK);
  EXPECT_EQ(replay_flock(f.b, LOCK_SH, 0, 100ms), -ETIMEDOUT);
  std::thread holder([&] {
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(replay_flock(f.a, LOCK_UN, 0), 0);
  });
  EXPECT_EQ(replay_flock(f.b, LOCK_SH, 0), 0);
  holder.join();
}

// A trace whose capture could not read the struct flock (the 3-argument form) skips the call by
// its own reason, never as "unsupported".
TEST(LockReplay, ThreeArgumentLockCallsAreSkippedByName) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_RDWR, 0644}, 3, {"/db"});
  b.add(1, 1, "fcntl", {3, F_SETLK, 0x7ffd0000}, 0);
  trace::Trace t = b.take();
  TempDir dir;
  SandboxResolver sb(dir.path());
  ProcessTable procs(process_seeds(t));
  CallExecutor ex(sb, procs, t.strings);
  ThreadScratch scratch;
  EXPECT_EQ(ex.execute(t.events[0], nullptr, scratch).flags, 0u);
  const CallOutcome o = ex.execute(t.events[1], nullptr, scratch);
  EXPECT_EQ(o.skip, SkipReason::kLockArgsNotRecorded);
  EXPECT_STREQ(skip_reason_name(o.skip), "lock_args_not_recorded");
  EXPECT_EQ(scratch.stats.skipped[static_cast<size_t>(SkipReason::kLockArgsNotRecorded)], 1u);
  EXPECT_TRUE(scratch.stats.unsupported.empty());
}

// A parent takes a write lock and forks; the child opens the file on its own: its F_SETLK finds
// the parent's lock held (EAGAIN), its F_SETLKW then waits for the parent's release. Inferred with
// fs ordering and replayed by both engines, the EAGAIN is reproduced (each replayed open owns its
// locks) and the wait ends with the parent's replayed release.
//
// (The fork orders the child's failed attempt after the parent's lock here; the next test has two
// unrelated processes, where only the fs ordering of the failed attempt does.)
TEST(LockReplay, ContentionTraceReplaysItsEagainWithBothEngines) {
  TraceBuilder b;
  auto lock = [&](int32_t pid, int fd, trace::LockFields f, int64_t cmd, int64_t rv, int64_t begin, int64_t dur) {
    trace::set_lock_fields(b.add(pid, pid, "fcntl", {fd, cmd, 0}, rv, {}, begin, dur), f);
  };
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_RDWR, 0644}, 3, {"/db"}, 1'000'000);
  lock(1, 3, kWrite100, F_SETLK, 0, 1'010'000, 2000);
  b.add(1, 1, "fork", {}, 2, {}, 1'020'000, 3000);
  b.add(2, 2, "openat", {AT_FDCWD, 0, O_RDWR, 0}, 4, {"/db"}, 1'030'000);
  lock(2, 4, kWrite100, F_SETLK, -EAGAIN, 1'040'000, 2000);
  lock(2, 4, {F_RDLCK, SEEK_SET, 0, 50}, F_SETLK, 0, 1'050'000, 2000);
  lock(2, 4, kWrite100, F_SETLKW, 0, 1'060'000, 150'000);  // waits for the parent's release
  lock(1, 3, {F_UNLCK, SEEK_SET, 0, 0}, F_SETLK, 0, 1'100'000, 2000);
  b.add(1, 1, "close", {3}, 0, {}, 1'300'000);
  b.add(2, 2, "close", {4}, 0, {}, 1'310'000);
  const trace::Trace t = b.take();
  const Plan plan = infer_plan(t, Ordering::kFs).take();
  for (EngineKind eng : {EngineKind::kWorkers, EngineKind::kCoordinator}) {
    SCOPED_TRACE(engine_name(eng));
    const EngineResult res = replay_fs_faithfully(eng, plan);
    int eagain = 0;
    for (size_t r = 0; r < plan.requests.size(); ++r) {
      const trace::Event& e = plan.trace.events[plan.requests[r].event];
      if (e.rvalue == -EAGAIN) {
        ++eagain;
        EXPECT_EQ(res.records()[r].rvalue, -EAGAIN);
      }
    }
    EXPECT_EQ(eagain, 1);
  }
}

// Whether request `to` is ordered after request `from` in the plan (through any chain of
// dependencies, program order included).
bool ordered_after(const Plan& plan, uint32_t to, uint32_t from) {
  std::vector<bool> seen(plan.requests.size(), false);
  const std::vector<uint32_t> prev = thread_predecessors(plan);  // program order (not stored)
  std::vector<uint32_t> todo{to};
  auto visit = [&](uint32_t d) {
    if (!seen[d]) {
      seen[d] = true;
      todo.push_back(d);
    }
  };
  while (!todo.empty()) {
    const uint32_t r = todo.back();
    todo.pop_back();
    if (r == from) return true;
    if (prev[r] != kNoRequest) visit(prev[r]);
    for (const Dep& dep : deps_of(plan, r)) visit(dep.request);
  }
  return false;
}

// Two unrelated processes (no fork between them) contend for /db: process 1 takes an fcntl write
// lock and a shared flock, process 2's F_SETLK finds the write lock held (EACCES, which POSIX
// allows) and its flock(LOCK_EX | LOCK_NB) the flock held (EWOULDBLOCK), then process 1 releases
// both and process 2's next attempt succeeds. The failed attempts observed process 1's locks: the
// fs ordering must put each after the acquire and before the release, or a replay may run them
// before the lock is taken (and succeed) or after it is released.
TEST(LockReplay, AttemptThatFoundTheLockHeldIsOrderedBetweenTheHoldersAcquireAndRelease) {
  TraceBuilder b;
  auto lock = [&](int32_t pid, int fd, trace::LockFields f, int64_t rv, int64_t begin) {
    trace::set_lock_fields(b.add(pid, pid, "fcntl", {fd, F_SETLK, 0}, rv, {}, begin, 2000), f);
  };
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_RDWR, 0644}, 3, {"/db"}, 1'000'000);
  b.add(2, 2, "openat", {AT_FDCWD, 0, O_RDWR, 0}, 4, {"/db"}, 1'005'000);
  lock(1, 3, kWrite100, 0, 1'010'000);                                          // acquire
  b.add(1, 1, "flock", {3, LOCK_SH}, 0, {}, 1'015'000);                          // acquire
  lock(2, 4, kWrite100, -EACCES, 1'040'000);                                    // held
  b.add(2, 2, "flock", {4, LOCK_EX | LOCK_NB}, -EWOULDBLOCK, {}, 1'045'000);   // held
  lock(1, 3, {F_UNLCK, SEEK_SET, 0, 0}, 0, 1'100'000);                         // release
  b.add(1, 1, "flock", {3, LOCK_UN}, 0, {}, 1'105'000);                          // release
  lock(2, 4, kWrite100, 0, 1'200'000);
  b.add(2, 2, "flock", {4, LOCK_EX | LOCK_NB}, 0, {}, 1'205'000);
  b.add(1, 1, "close", {3}, 0, {}, 1'300'000);
  b.add(2, 2, "close", {4}, 0, {}, 1'310'000);
  const trace::Trace t = b.take();
  // Requests are in begin order: 2 and 3 acquire, 4 and 5 find held, 6 and 7 release.
  const Plan plan = infer_plan(t, Ordering::kFs).take();
  ASSERT_EQ(plan.trace.events[plan.requests[4].event].rvalue, -EACCES);
  ASSERT_EQ(plan.trace.events[plan.requests[5].event].rvalue, -EWOULDBLOCK);
  for (uint32_t held : {4u, 5u}) {
    EXPECT_TRUE(ordered_after(plan, held, 2)) << held << " after the fcntl lock";
    EXPECT_TRUE(ordered_after(plan, held, 3)) << held << " after the flock";
    EXPECT_TRUE(ordered_after(plan, 6, held)) << "the fcntl release after " << held;
    EXPECT_TRUE(ordered_after(plan, 7, held)) << "the flock release after " << held;
  }
  for (EngineKind eng : {EngineKind::kWorkers, EngineKind::kCoordinator}) {
    SCOPED_TRACE(engine_name(eng));
    const EngineResult res = replay_fs_faithfully(eng, plan);
    EXPECT_EQ(res.records()[4].rvalue, -EACCES);
    EXPECT_EQ(res.records()[5].rvalue, -EWOULDBLOCK);
  }
}

}  // namespace
}  // namespace rastro::replay
