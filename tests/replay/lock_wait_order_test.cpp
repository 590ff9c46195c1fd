// Lock waits whose tracer stamped them ending before the release that ended them began. strace
// under load recorded exactly this for tests/capture/lock_workload (the child's F_OFD_SETLKW
// ended 3 µs before the parent's unlock began; CI, and here with a SCHED_FIFO hog beside it): the
// fs and temporal orders made the unlock wait for the lock wait that waited for it, and the replay
// stalled for the lock wait limit (5 s) and reported -ETIMEDOUT. No release may wait for another
// thread's lock wait (infer_order.cpp, note_lock_call), and every lock call must replay with its
// traced result.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/syscall.h>

#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay_test_util.h"
#include "trace/syscalls/fcntl_lock.h"
#include "trace_builder_plan.h"

namespace rastro::replay {
namespace {

using testing::TraceBuilder;

constexpr int32_t kParent = 10, kChild = 11;
constexpr int64_t kAtFdcwd = -100;

void lock(TraceBuilder& b, int32_t pid, int fd, int cmd, trace::LockFields f, int64_t begin, int64_t dur) {
  trace::Event& e = b.add(pid, pid, "fcntl", {fd, cmd, 0}, 0, {}, begin, dur);
  trace::set_lock_fields(e, f);
}

// The parent holds a classic write lock and an flock() lock; its forked child opens the file
// itself and waits for each. Each wait is stamped ending 10 ns before the parent's release began.
trace::Trace stamped_before_their_release() {
  TraceBuilder b;
  b.add(kParent, kParent, "openat", {kAtFdcwd, 0, O_RDWR | O_CREAT, 0644}, 3, {"/locked"}, 1000, 100);
  lock(b, kParent, 3, F_SETLK, {F_WRLCK, SEEK_SET, 0, 10}, 2000, 100);
  b.add(kParent, kParent, "flock", {3, LOCK_EX}, 0, {}, 2200, 100);
  b.add(kParent, kParent, "clone", {SIGCHLD, 0, 0, 0, 0}, kChild, {}, 3000, 300);
  b.add(kChild, kChild, "openat", {kAtFdcwd, 0, O_RDWR, 0}, 4, {"/locked"}, 4000, 100);
  lock(b, kChild, 4, F_SETLKW, {F_WRLCK, SEEK_SET, 0, 10}, 5000, 99'990);    // "ends" at 104'990
  lock(b, kParent, 3, F_SETLK, {F_UNLCK, SEEK_SET, 0, 10}, 105'000, 100);   // the release
  b.add(kChild, kChild, "flock", {4, LOCK_SH}, 0, {}, 105'200, 95'790);       // "ends" at 200'990
  b.add(kParent, kParent, "flock", {3, LOCK_UN}, 0, {}, 201'000, 100);        // the release
  lock(b, kChild, 4, F_SETLK, {F_UNLCK, SEEK_SET, 0, 0}, 300'000, 100);
  b.add(kChild, kChild, "close", {4}, 0, {}, 301'000, 100);
  b.add(kChild, kChild, "exit_group", {0}, 0, {}, 302'000, 100);
  b.add(kParent, kParent, "close", {3}, 0, {}, 400'000, 100);
  b.add(kParent, kParent, "exit_group", {0}, 0, {}, 401'000, 100);
  return b.take();
}

bool is_lock_wait(const Plan& p, uint32_t r) {
  return trace::may_wait_for_lock_release(p.trace.events[p.requests[r].event]);
}

bool is_release(const Plan& p, uint32_t r) { return trace::releases_lock(p.trace.events[p.requests[r].event]); }

class LockWaitOrder : public ::testing::TestWithParam<std::tuple<EngineKind, Ordering>> {};

TEST_P(LockWaitOrder, AWaitStampedBeforeItsReleaseNeitherPrecedesItNorTimesOut) {
  const auto [engine, ordering] = GetParam();
  auto inferred = infer_plan(stamped_before_their_release(), ordering);
  ASSERT_TRUE(inferred.ok()) << inferred.error();
  const Plan plan = std::move(inferred.value());

  int waits = 0;
  for (uint32_t r = 0; r < plan.requests.size(); ++r) waits += is_lock_wait(plan, r);
  ASSERT_EQ(waits, 3) << "the child's F_SETLKW and flock(LOCK_SH) and the parent's flock(LOCK_EX) may wait; "
                         "F_SETLK, the unlocks and LOCK_UN do not";
  int releases = 0;
  for (uint32_t r = 0; r < plan.requests.size(); ++r) releases += is_release(plan, r);
  ASSERT_EQ(releases, 3) << "the parent's F_UNLCK and LOCK_UN, the child's F_UNLCK";
  for (const auto& [from, to, kind] : testing::edges_of(plan, false))
    EXPECT_FALSE(is_lock_wait(plan, from) && is_release(plan, to))
        << "release " << to << " waits for lock wait " << from << " (" << kind << ")";

  testing::TempDir root;
  SandboxResolver sb(root.path());
  const EngineResult res = run_engine(engine, plan, sb, EngineOptions{});
  const std::vector<RequestRecord> records = res.records();
  ASSERT_EQ(records.size(), plan.requests.size());
  for (uint32_t r = 0; r < plan.requests.size(); ++r) {
    const trace::Event& e = plan.trace.events[plan.requests[r].event];
    SCOPED_TRACE(::testing::Message() << "request " << r << " " << trace::function_name(e, plan.trace.strings));
    EXPECT_EQ(records[r].flags, 0u) << "replayed " << records[r].rvalue << ", traced " << e.rvalue;  // skip, mismatch
    if (e.nr == SYS_fcntl || e.nr == SYS_flock) {
      EXPECT_EQ(records[r].rvalue, e.rvalue);  // not -ETIMEDOUT
    }
  }
  EXPECT_EQ(res.stats.mismatched, 0u);
}

// Thread ordering has no edges across threads to begin with (and would open the file before its
// creation); the two orders that do are the ones a lock wait could deadlock.
INSTANTIATE_TEST_SUITE_P(EnginesAndOrderings, LockWaitOrder,
                         ::testing::Combine(::testing::Values(EngineKind::kWorkers, EngineKind::kCoordinator),
                                            ::testing::Values(Ordering::kFs, Ordering::kTemporal)));

}  // namespace
}  // namespace rastro::replay
