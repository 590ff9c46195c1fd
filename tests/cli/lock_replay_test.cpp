// Locks replayed on the sandboxed files: tests/capture/lock_workload.cpp (two processes; the
// child meets the parent's classic, OFD and flock locks once without waiting — EAGAIN — and once
// waiting for their release) captured by each backend and replayed by both engines. Every lock
// call must replay (no skip), with the traced result: the contended attempts fail with EAGAIN in
// the replay too, because each replayed open owns its locks (replay/runtime/lock_replay.h), and
// the waiting ones wait for the replayed release instead of failing or hanging.
#include <cerrno>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "trace/io/trace_io.h"
#include "trace/syscalls/fcntl_lock.h"
#include "trace/syscalls/syscall_table.h"

#ifdef LOCK_WORKLOAD_EXE
namespace {

using rastro::cli_test::kRastro;
using rastro::cli_test::sh;
using rastro::cli_test::slurp;
using rastro::cli_test::TempDir;

class LockReplay : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(LockReplay, ContendedAttemptsFailWithEagainAndWaitsWaitForTheRelease) {
  const auto& [backend, engine] = GetParam();
  TempDir d("rastro-lockreplay");
  const std::string trace = d.path + "/locks.rastro";
  const auto cap = sh("ASAN_OPTIONS=detect_leaks=0 " + kRastro + " capture -b " + backend + " -q -o " + trace + " -- " +
                      LOCK_WORKLOAD_EXE + " " + d.path + "/locked");
  if (cap.status == 69) GTEST_SKIP() << backend << " cannot run here: " << cap.out;
  ASSERT_EQ(cap.status, 0) << cap.out;

  const std::string out = d.path + "/out.rastro", summary = d.path + "/summary.json";
  const auto rep = sh(kRastro + " replay -O fs -T fullspeed -e " + engine + " --root " + d.path + "/root --init " +
                      trace + " -o " + out + " --summary-json " + summary);
  ASSERT_EQ(rep.status, 0) << rep.out;
  const auto s = nlohmann::json::parse(slurp(summary));
  EXPECT_FALSE(s["skipped_by_reason"].contains("lock_args_not_recorded")) << s["skipped_by_reason"].dump();
  EXPECT_FALSE(s["unsupported_by_name"].contains("fcntl")) << s["unsupported_by_name"].dump();
  EXPECT_FALSE(s["unsupported_by_name"].contains("flock")) << s["unsupported_by_name"].dump();

  const auto replayed = rastro::trace::read_trace(out);
  const int flock_nr = rastro::trace::syscall_by_name("flock")->nr;
  int locks = 0, held = 0;
  for (const auto& e : replayed.events) {
    if (!rastro::trace::is_lock_call(e) && e.nr != flock_nr) continue;
    ++locks;
    SCOPED_TRACE(::testing::Message() << "request " << e.seq << " cmd " << e.arg(1).value);
    EXPECT_FALSE(e.flags & rastro::trace::kEventSkipped);
    EXPECT_EQ(e.rvalue, e.expected_rvalue);
    held += e.expected_rvalue == -EAGAIN && e.rvalue == -EAGAIN;
  }
  EXPECT_EQ(locks, 18) << "lock_workload.h lists 18 lock calls";
  EXPECT_EQ(held, 3) << "F_SETLK, F_OFD_SETLK and flock(LOCK_NB) of the child found the lock held";
}

INSTANTIATE_TEST_SUITE_P(BackendsEngines, LockReplay,
                         ::testing::Combine(::testing::Values("ptrace", "strace", "ebpf"),
                                            ::testing::Values("workers", "coordinator")),
                         [](const auto& p) { return std::get<0>(p.param) + "_" + std::get<1>(p.param); });

}  // namespace
#endif
