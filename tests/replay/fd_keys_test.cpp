// replay/passes/fd_keys.h: the process seeds and fd keys. The resolve_paths and resolve_fds
// passes compute them inside their own walks (SeedCollector, FdKeyAssigner), the engines with
// process_seeds/compute_fd_keys for a plan built by hand: both must agree, and the seeds must
// say what the trace says (expected values worked out by hand below).
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/fd_keys.h"
#include "replay/passes/replay_passes.h"
#include "trace/importers/strace/strace_import.h"
#include "trace/io/trace_sink.h"
#include "trace_builder_plan.h"

namespace rastro::replay {
namespace {

using testing::PlanTraceBuilder;

trace::Trace strace_log(const std::string& log) {
  std::ifstream in(std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/strace/" + log, std::ios::binary);
  trace::MemorySink sink;
  trace::import_strace(in, log, sink, {});
  sink.finish();
  return sink.take();
}

class FdKeysOfTheWalks : public ::testing::TestWithParam<std::string> {};

TEST_P(FdKeysOfTheWalks, EqualTheStandaloneComputation) {
  auto p = infer_plan(strace_log(GetParam()), Ordering::kFs);
  ASSERT_TRUE(p.ok()) << p.error();
  const Plan& plan = p.value();
  ASSERT_GT(plan.requests.size(), 5u);
  std::vector<ProcessSeed> seeds;
  const FdKeys keys = compute_fd_keys(plan.trace, request_events(plan), &seeds);
  ASSERT_EQ(seeds.size(), plan.processes.size());
  for (size_t i = 0; i < seeds.size(); ++i) {
    EXPECT_EQ(seeds[i].pid, plan.processes[i].pid);
    EXPECT_EQ(seeds[i].cwd, plan.processes[i].cwd);
    EXPECT_EQ(seeds[i].inherited_fds, plan.processes[i].inherited_fds);
    EXPECT_EQ(seeds[i].inherited_traced_fds, plan.processes[i].inherited_traced_fds);
    EXPECT_EQ(seeds[i].tids, plan.processes[i].tids);
  }
  EXPECT_EQ(keys.count, plan.fd_keys.count);
  ASSERT_EQ(keys.keys.size(), plan.fd_keys.keys.size());
  for (size_t r = 0; r < keys.keys.size(); ++r) ASSERT_EQ(keys.keys[r], plan.fd_keys.keys[r]) << "request " << r;
}

INSTANTIATE_TEST_SUITE_P(StraceFixtures, FdKeysOfTheWalks,
                         ::testing::Values("cp_r.log", "git_init.log", "locks.log", "mt_writer.log", "sqlite3.log",
                                           "pid_prefix.log"));

// fd 0 read, fd 3 opened then used, fd 7 used but never created, a pipe (5, 6), a second thread:
// inherited are 0 (always) and 7; 3, 5 and 6 were created. Unknown calls and failures create
// nothing (the failed open "returning" 9 leaves 9 a use-before-open, not inherited: never used).
// A probe that failed with EBADF (fd 4) found no fd: not inherited either.
TEST(SeedCollector, InheritedFdsAreTheOnesUsedBeforeAnyCreation) {
  PlanTraceBuilder b;
  b.add(10, 10, 0, 1, "read", {0, "", 4}, 4);
  b.add(10, 10, 2, 3, "openat", {-100, "/f", 0, 0}, 3);
  b.add(10, 11, 4, 5, "read", {3, "", 4}, 4);
  b.add(10, 10, 6, 7, "write", {7, "", 4}, 4);
  b.add(10, 11, 8, 9, "pipe2", {static_cast<int64_t>((uint64_t{6} << 32) | 5), 0}, 0);
  b.add(10, 11, 10, 11, "close", {5}, 0);
  b.add(10, 10, 12, 13, "openat", {-100, "/g", 0, 0}, -2);
  b.add(10, 11, 13, 14, "fcntl", {4, 1, 0}, -9);  // F_GETFD: EBADF
  b.add(20, 20, 14, 15, "fstat", {1, 0}, 0);
  const trace::Trace t = b.take();
  SeedCollector c;
  for (const trace::Event& e : t.events) c.add(e);
  const std::vector<ProcessSeed> seeds = c.take(t.header);
  ASSERT_EQ(seeds.size(), 2u);
  EXPECT_EQ(seeds[0].pid, 10);
  EXPECT_EQ(seeds[0].inherited_fds, (std::vector<int>{0, 7}));
  EXPECT_EQ(seeds[0].tids, (std::vector<int32_t>{10, 11}));
  EXPECT_EQ(seeds[1].pid, 20);
  EXPECT_EQ(seeds[1].inherited_fds, (std::vector<int>{1}));
  EXPECT_EQ(seeds[1].tids, (std::vector<int32_t>{20}));
}

}  // namespace
}  // namespace rastro::replay
