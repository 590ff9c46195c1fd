// Replays micro-benchmark-like traces (RR/RW/SR/SW, 1-4 threads) with both engines under every
// ordering and timing policy: every call replayed, no mismatch, and every dependency respected
// (checked from the replay's own begin/end times).
#include <fcntl.h>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/runtime/fs_init.h"
#include "replay/plan/plan_names.h"
#include "replay/runtime/replay_output.h"
#include "trace/io/trace_io.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TraceBuilder;

enum class Micro { kRR, kRW, kSR, kSW };

// Thread k of pid 100 works on /data/file<k>; requests 5 us apart, interleaved across threads.
trace::Trace micro_trace(Micro type, int threads, int ops) {
  TraceBuilder b;
  for (int k = 0; k < threads; ++k) {
    int32_t tid = 100 + k;
    int fd = 3 + k;
    std::string path = "/data/file" + std::to_string(k);
    int64_t t = 1'000'000 + k * 1000;
    int flags = type == Micro::kSR ? O_RDONLY : type == Micro::kSW ? (O_WRONLY | O_CREAT | O_TRUNC) : (O_RDWR | O_CREAT);
    b.add(100, tid, "openat", {AT_FDCWD, 0, flags, 0644}, fd, {path}, t);
    for (int i = 0; i < ops; ++i) {
      t += 5000;
      int64_t off = ((i * 7 + k) % ops) * 4096;
      switch (type) {
        case Micro::kRR: b.add(100, tid, "pread64", {fd, 0, 4096, off}, 4096, {}, t); break;
        case Micro::kRW: b.add(100, tid, "pwrite64", {fd, 0, 4096, off}, 4096, {}, t); break;
        case Micro::kSR: b.add(100, tid, "read", {fd, 0, 4096}, 4096, {}, t); break;
        case Micro::kSW: b.add(100, tid, "write", {fd, 0, 4096}, 4096, {}, t); break;
      }
    }
    b.add(100, tid, "close", {fd}, 0, {}, t + 5000);
  }
  trace::Trace tr = b.take();
  tr.header.backend = "test-micro";
  return tr;
}

// No request began before any of its dependencies (explicit or program order) ended.
void expect_dependencies_respected(const Plan& plan, const std::vector<RequestRecord>& rec) {
  for (const PlanThread& th : plan.threads) {
    for (size_t i = 1; i < th.requests.size(); ++i) {
      EXPECT_GE(rec[th.requests[i]].begin_ns, rec[th.requests[i - 1]].end_ns) << "program order";
    }
  }
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    for (const Dep& dep : deps_of(plan, static_cast<uint32_t>(r))) {
      const uint32_t d = dep.request;
      EXPECT_GE(rec[r].begin_ns, rec[d].end_ns) << "request " << r << " dep " << d;
    }
  }
}

TEST(EngineMicroReplay, AllTypesThreadsEnginesOrderingsTimings) {
  const std::pair<Micro, const char*> types[] = {
      {Micro::kRR, "RR"}, {Micro::kRW, "RW"}, {Micro::kSR, "SR"}, {Micro::kSW, "SW"}};
  for (auto [type, tname] : types) {
    for (int threads : {1, 2, 4}) {
      for (Ordering ord : {Ordering::kThread, Ordering::kFs, Ordering::kTemporal}) {
        auto planned = infer_plan(micro_trace(type, threads, 12), ord);
        ASSERT_TRUE(planned.ok()) << planned.error();
        const Plan& plan = planned.value();
        for (EngineKind eng : {EngineKind::kWorkers, EngineKind::kCoordinator}) {
          for (const char* timing : {"fullspeed", "timestamp", "think:2"}) {
            SCOPED_TRACE(std::string(tname) + " threads=" + std::to_string(threads) + " ordering=" +
                         std::to_string(static_cast<int>(ord)) + " engine=" +
                         std::string(engine_name(eng)) + " timing=" + timing);
            testing::TempDir root;
            SandboxResolver sb(root.path());
            InitReport init = create_initial_state(sb, plan_initial_state(plan.trace));
            ASSERT_TRUE(init.problems.empty());
            EngineOptions opt;
            opt.timing = parse_timing(timing).take();
            EngineResult res = run_engine(eng, plan, sb, opt);
            const std::vector<RequestRecord> records = res.records();
            ASSERT_EQ(records.size(), plan.requests.size());
            EXPECT_EQ(res.stats.executed, plan.requests.size());
            EXPECT_EQ(res.stats.skipped_total(), 0u);
            EXPECT_EQ(res.stats.mismatched, 0u);
            expect_dependencies_respected(plan, records);
            for (const auto& r : records) {
              EXPECT_GE(r.begin_ns, r.planned_ns);
              EXPECT_EQ(r.flags, 0u);
            }
          }
        }
      }
    }
  }
}

TEST(EngineMicroReplay, TimestampKeepsTracedOffsets) {
  auto plan = infer_plan(micro_trace(Micro::kRR, 1, 20), Ordering::kThread).take();
  testing::TempDir root;
  SandboxResolver sb(root.path());
  create_initial_state(sb, plan_initial_state(plan.trace));
  EngineOptions opt;
  opt.timing = parse_timing("timestamp").take();
  EngineResult res = run_workers(plan, sb, opt);
  const std::vector<RequestRecord> records = res.records();
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    EXPECT_EQ(records[r].planned_ns - res.start_ns, trace_times(plan, static_cast<uint32_t>(r)).begin_ns);
  }
}

TEST(EngineMicroReplay, OutputTraceCarriesReplayFields) {
  auto plan = infer_plan(micro_trace(Micro::kSW, 2, 5), Ordering::kFs).take();
  // One call the engines cannot replay, and one the trace got wrong.
  testing::TempDir root;
  SandboxResolver sb(root.path());
  create_initial_state(sb, plan_initial_state(plan.trace));
  EngineResult res = run_engine(EngineKind::kWorkers, plan, sb, EngineOptions{});
  ReplaySummary s = summarize_replay(plan.trace, res.log, res.stats, res.dependency_waits, res.wall_ns);
  EXPECT_EQ(s.replayed, plan.requests.size());
  EXPECT_EQ(s.mismatched, 0u);
  EXPECT_GT(s.wall_ns, 0);
  EXPECT_FALSE(s.concurrency_ecdf_replay.empty());
  nlohmann::json j = s.to_json();
  for (const char* k : {"replayed", "skipped", "mismatched", "issue_error_p50_ns", "issue_error_p99_ns", "wall_ns"}) {
    EXPECT_TRUE(j.contains(k)) << k;
  }

  testing::TempDir out;
  std::string path = out.sub("out.rastro");
  trace::TraceHeader h;
  h.backend = "replay-workers";
  write_replay_trace(path, h, plan.trace, res.log, s);
  const std::vector<RequestRecord> records = res.records();
  trace::Trace back = trace::read_trace(path);
  ASSERT_EQ(back.events.size(), plan.requests.size());
  EXPECT_EQ(back.header.extra["replay_summary"]["replayed"], plan.requests.size());
  for (size_t i = 0; i < back.events.size(); ++i) {
    const trace::Event& e = back.events[i];
    const trace::Event& src = plan.trace.events[plan.requests[i].event];
    EXPECT_TRUE(e.flags & trace::kEventReplayed);
    EXPECT_EQ(e.expected_rvalue, src.rvalue);
    EXPECT_EQ(e.nr, src.nr);
    EXPECT_EQ(e.tid, src.tid);
    EXPECT_EQ(e.begin_ns, records[i].begin_ns);
    EXPECT_EQ(e.planned_ns, records[i].planned_ns);
    for (int a = 0; a < e.nargs; ++a) {
      EXPECT_EQ(back.str(e.arg(a).str), plan.trace.str(src.arg(a).str));
    }
  }
}

TEST(EngineMicroReplay, ForkedChildUsesCopiedFds) {
  TraceBuilder b;
  b.add(1, 1, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {"/f"});
  b.add(1, 1, "fork", {}, 2);
  b.add(2, 2, "write", {3, 0, 100}, 100);
  b.add(2, 2, "close", {3}, 0);
  b.add(1, 1, "write", {3, 0, 50}, 50);
  b.add(1, 1, "close", {3}, 0);
  for (EngineKind eng : {EngineKind::kWorkers, EngineKind::kCoordinator}) {
    testing::TempDir root;
    SandboxResolver sb(root.path());
    TraceBuilder copy = b;
    Plan plan = testing::hand_plan(copy.take(), false);
    EngineResult res = run_engine(eng, plan, sb, EngineOptions{});
    EXPECT_EQ(res.stats.skipped_total(), 0u);
    EXPECT_EQ(res.stats.mismatched, 0u);
    EXPECT_EQ(res.stats.emulated, 1u);
    EXPECT_EQ(std::filesystem::file_size(root.sub("f")), 150u);
    // The child's first request waited for the fork.
    const std::vector<RequestRecord> records = res.records();
    EXPECT_GE(records[2].begin_ns, records[1].end_ns);
  }
}

}  // namespace
}  // namespace rastro::replay

namespace rastro::replay {
namespace {

// Real traces reuse fd numbers across threads (thread A closes 3, thread B later opens a new 3).
// Replayed concurrently, the two lifetimes must not be confused (fd keys per lifetime).
TEST(EngineMicroReplay, ReusedFdNumbersAcrossThreadsStayApart) {
  trace::Trace t = testing::two_threads_reusing_fd3();
  for (Ordering ord : {Ordering::kThread, Ordering::kFs}) {
    auto plan = infer_plan(t, ord).take();
    for (EngineKind eng : {EngineKind::kWorkers, EngineKind::kCoordinator}) {
      for (int rep = 0; rep < 5; ++rep) {
        testing::TempDir root;
        SandboxResolver sb(root.path());
        EngineResult res = run_engine(eng, plan, sb, EngineOptions{});
        EXPECT_EQ(res.stats.skipped_total(), 0u);
        EXPECT_EQ(res.stats.mismatched, 0u);
        EXPECT_EQ(std::filesystem::file_size(root.sub("a")), 500u);
        EXPECT_EQ(std::filesystem::file_size(root.sub("b")), 1000u);
      }
    }
  }
}

}  // namespace
}  // namespace rastro::replay

namespace rastro::replay {
namespace {

// Replays `tr` (rounds of /a<i> and /b<i> written by threads reusing fd 3) with both engines
// under fs and temporal ordering (thread order alone has no cross-thread edge): every call
// replays and each file gets exactly the bytes written through its own lifetime of fd 3.
void expect_fd_reuse_replays(const trace::Trace& tr, int rounds, uintmax_t a_bytes, uintmax_t b_bytes) {
  for (Ordering ord : {Ordering::kFs, Ordering::kTemporal}) {
    auto plan = infer_plan(tr, ord).take();
    EXPECT_EQ(plan.figures.inherited_fds, 0u) << ordering_name(ord);
    for (EngineKind eng : {EngineKind::kWorkers, EngineKind::kCoordinator}) {
      testing::TempDir root;
      SandboxResolver sb(root.path());
      EngineResult res = run_engine(eng, plan, sb, EngineOptions{});
      EXPECT_EQ(res.stats.skipped_total(), 0u) << ordering_name(ord);
      EXPECT_EQ(res.stats.mismatched, 0u) << ordering_name(ord);
      for (int round = 0; round < rounds; ++round) {
        EXPECT_EQ(std::filesystem::file_size(root.sub("a" + std::to_string(round))), a_bytes);
        EXPECT_EQ(std::filesystem::file_size(root.sub("b" + std::to_string(round))), b_bytes);
      }
    }
  }
}

// The fileserver pattern (replay/passes/fd_reuse.h): thread 11's open returns 3 although it
// began just before thread 10's close(3), which returned first. Walking the trace in begin
// order, the close must still end thread 10's lifetime of 3, and thread 11's writes go to /b.
TEST(EngineMicroReplay, CloseThatOverlapsTheOpenReusingItsFdEndsTheOldLifetime) {
  TraceBuilder b;
  int64_t t = 1'000'000;
  for (int round = 0; round < 20; ++round, t += 100'000) {
    const std::string a = "/a" + std::to_string(round), bb = "/b" + std::to_string(round);
    b.add(1, 10, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {a}, t, 1000);
    b.add(1, 10, "write", {3, 0, 10}, 10, {}, t + 2000, 1000);
    b.add(1, 11, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {bb}, t + 4000, 3000);  // ends t+7000
    b.add(1, 10, "close", {3}, 0, {}, t + 4015, 900);                                                    // ends t+4915
    b.add(1, 11, "write", {3, 0, 20}, 20, {}, t + 8000, 1000);
    b.add(1, 12, "write", {3, 0, 30}, 30, {}, t + 10'000, 1000);  // another thread, same lifetime
    b.add(1, 11, "close", {3}, 0, {}, t + 12'000, 1000);
  }
  expect_fd_reuse_replays(b.take(), 20, 10, 50);
}

}  // namespace
}  // namespace rastro::replay

namespace rastro::replay {
namespace {

// The mirror image (replay/passes/fd_reuse.h): thread 10's open began first but returned 3 last
// (preempted before the syscall); meanwhile thread 11 opened, wrote and closed its own 3.
TEST(EngineMicroReplay, CreateThatReturnsItsFdLastTakesItAfterTheOverlappingLifetime) {
  TraceBuilder b;
  int64_t t = 1'000'000;
  for (int round = 0; round < 20; ++round, t += 200'000) {
    const std::string a = "/a" + std::to_string(round), bb = "/b" + std::to_string(round);
    b.add(1, 10, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {a}, t, 60'000);  // ends t+60000
    b.add(1, 11, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {bb}, t + 500, 2500);
    b.add(1, 11, "write", {3, 0, 20}, 20, {}, t + 4000, 1000);
    b.add(1, 11, "close", {3}, 0, {}, t + 10'000, 1000);
    b.add(1, 10, "write", {3, 0, 10}, 10, {}, t + 61'000, 1000);
    b.add(1, 12, "write", {3, 0, 30}, 30, {}, t + 63'000, 1000);  // another thread, thread 10's lifetime
    b.add(1, 10, "close", {3}, 0, {}, t + 65'000, 1000);
  }
  expect_fd_reuse_replays(b.take(), 20, 40, 20);
}

}  // namespace
}  // namespace rastro::replay

namespace rastro::replay {
namespace {

// Between an earlier-begun create and the overlapping release it waits for (fd_reuse.h), the
// releasing thread still uses the old lifetime: thread 10 writes to its 3 and then closes it
// while thread 11's open, which will return 3, is in flight.
TEST(EngineMicroReplay, UseBeforeTheOverlappingReleaseStaysWithTheOldLifetime) {
  TraceBuilder b;
  int64_t t = 1'000'000;
  for (int round = 0; round < 20; ++round, t += 100'000) {
    const std::string a = "/a" + std::to_string(round), bb = "/b" + std::to_string(round);
    b.add(1, 10, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {a}, t, 20'000);
    b.add(1, 11, "openat", {AT_FDCWD, 0, O_CREAT | O_WRONLY | O_TRUNC, 0644}, 3, {bb}, t + 15'000, 15'000);
    b.add(1, 10, "write", {3, 0, 10}, 10, {}, t + 20'100, 900);
    b.add(1, 10, "close", {3}, 0, {}, t + 21'100, 900);
    b.add(1, 11, "write", {3, 0, 20}, 20, {}, t + 31'000, 1000);
    b.add(1, 11, "close", {3}, 0, {}, t + 33'000, 1000);
  }
  expect_fd_reuse_replays(b.take(), 20, 10, 20);
}

}  // namespace
}  // namespace rastro::replay
