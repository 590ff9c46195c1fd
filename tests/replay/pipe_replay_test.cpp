// A shell pipeline `writer | reader` (the shape of `tar cf - | gzip`), hand-written so the trace is
// exact: the shell makes a pipe and forks both; the reader's reads began *before* the writes that
// fed them (they blocked in the trace), and its last read is the end-of-file the writer's exit
// gave. Every engine and ordering must replay it with the traced results, each read ending after
// the write that supplied its bytes began, and the end-of-file after the writer's exit.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/runtime/stream_io.h"
#include "replay/session/replay_session.h"
#include "replay_test_util.h"

namespace rastro::replay {
namespace {

using testing::TraceBuilder;

constexpr int32_t kShell = 10, kWriter = 11, kReader = 12, kGzip = 13;

// The writer of a shell's pipe 3/4: its stdout onto the write end, 2 × 10 KiB, exit.
void add_pipe_writer(TraceBuilder& b) {
  b.add(kWriter, kWriter, "dup2", {4, 1}, 1, {}, 4000, 50);
  b.add(kWriter, kWriter, "close", {3}, 0, {}, 4100, 50);
  b.add(kWriter, kWriter, "close", {4}, 0, {}, 4200, 50);
  b.add(kWriter, kWriter, "write", {1, 0, 10240}, 10240, {}, 20000, 2000);
  b.add(kWriter, kWriter, "write", {1, 0, 10240}, 10240, {}, 40000, 2000);
  b.add(kWriter, kWriter, "exit_group", {0}, 0, {}, 60000, 100);
}

trace::Trace pipeline() {
  TraceBuilder b;
  b.add(kShell, kShell, "pipe2", {(int64_t{4} << 32) | 3, 0}, 0, {}, 1000, 100);
  b.add(kShell, kShell, "clone", {SIGCHLD, 0, 0, 0, 0}, kWriter, {}, 2000, 300);
  b.add(kShell, kShell, "clone", {SIGCHLD, 0, 0, 0, 0}, kReader, {}, 2500, 300);
  b.add(kShell, kShell, "close", {3}, 0, {}, 3000, 50);
  b.add(kShell, kShell, "close", {4}, 0, {}, 3100, 50);

  add_pipe_writer(b);

  b.add(kReader, kReader, "dup2", {3, 0}, 0, {}, 4500, 50);
  b.add(kReader, kReader, "close", {3}, 0, {}, 4600, 50);
  b.add(kReader, kReader, "close", {4}, 0, {}, 4700, 50);
  b.add(kReader, kReader, "read", {0, 0, 32768}, 10240, {}, 10000, 12500);  // blocked until the write
  b.add(kReader, kReader, "read", {0, 0, 32768}, 10240, {}, 23000, 19500);
  b.add(kReader, kReader, "read", {0, 0, 32768}, 0, {}, 43000, 17200);      // end-of-file at the exit
  b.add(kReader, kReader, "exit_group", {0}, 0, {}, 61000, 100);
  return b.take();
}

// The plan request of the n-th call `name` of `pid`.
uint32_t request_of(const Plan& plan, int32_t pid, std::string_view name, int n) {
  for (uint32_t r = 0; r < plan.requests.size(); ++r) {
    const trace::Event& e = plan.trace.events[plan.requests[r].event];
    if (e.pid == pid && trace::function_name(e, plan.trace.strings) == name && n-- == 0) return r;
  }
  ADD_FAILURE() << "no " << name << " #" << n << " of " << pid;
  return 0;
}

class PipeReplay : public ::testing::TestWithParam<std::tuple<EngineKind, Ordering>> {
 protected:
  // Infers the plan of `tr` under the test's ordering and replays it with its engine in a fresh root.
  void replay(trace::Trace tr) {
    const auto [engine, ordering] = GetParam();
    auto p = infer_plan(std::move(tr), ordering);
    ASSERT_TRUE(p.ok()) << p.error();
    plan = std::move(p.value());
    testing::TempDir root;
    SandboxResolver sb(root.path());
    res = run_engine(engine, plan, sb, EngineOptions{});
    records = res.records();
  }
  // Every request replayed (not skipped) with its traced result.
  void expect_every_call_as_traced() const {
    ASSERT_EQ(records.size(), plan.requests.size());
    for (uint32_t r = 0; r < plan.requests.size(); ++r) {
      const trace::Event& e = plan.trace.events[plan.requests[r].event];
      EXPECT_EQ(records[r].flags, 0u) << r << " " << trace::function_name(e, plan.trace.strings) << " of " << e.pid
                                          << ": replayed " << records[r].rvalue << ", traced " << e.rvalue;
    }
  }
  Plan plan;
  EngineResult res;
  std::vector<RequestRecord> records;  // res's, by plan request
};

TEST_P(PipeReplay, ReadersReplayAfterTheirWritersWithTheTracedResults) {
  ASSERT_NO_FATAL_FAILURE(replay(pipeline()));
  expect_every_call_as_traced();
  EXPECT_EQ(res.stats.mismatched, 0u);
  EXPECT_EQ(res.stats.skipped_total(), 0u);
  for (int k = 0; k < 2; ++k) {
    const auto& w = records[request_of(plan, kWriter, "write", k)];
    const auto& rd = records[request_of(plan, kReader, "read", k)];
    EXPECT_GE(rd.end_ns, w.begin_ns) << "read " << k << " finished before its bytes were written";
  }
  const auto& eof = records[request_of(plan, kReader, "read", 2)];
  EXPECT_GE(eof.end_ns, records[request_of(plan, kWriter, "exit_group", 0)].begin_ns)
      << "end-of-file before the writer's exit";
}

// git's way to learn that a child's exec worked: the parent reads a close-on-exec pipe until
// the exec closes the child's write end (end-of-file). The child closes its copy of the read end
// first; that close must not wait for the parent's read (another process's use of the fd it
// inherited), or the read waits for the exec that waits for the read.
trace::Trace exec_handshake() {
  TraceBuilder b;
  b.add(20, 20, "pipe2", {(int64_t{4} << 32) | 3, O_CLOEXEC}, 0, {}, 1000, 100);
  b.add(20, 20, "clone", {SIGCHLD, 0, 0, 0, 0}, 21, {}, 2000, 300);
  b.add(20, 20, "close", {4}, 0, {}, 3000, 50);
  b.add(20, 20, "read", {3, 0, 8}, 0, {}, 3100, 5000);  // end-of-file at the child's exec
  b.add(20, 20, "close", {3}, 0, {}, 9000, 50);
  b.add(21, 21, "close", {3}, 0, {}, 4000, 50);
  b.add(21, 21, "execve", {0, 0, 0}, 0, {"/bin/true"}, 6000, 1000);
  b.add(21, 21, "exit_group", {0}, 0, {}, 9500, 100);
  return b.take();
}

TEST_P(PipeReplay, AChildsCloseOfItsCopyDoesNotWaitForTheParentsRead) {
  ASSERT_NO_FATAL_FAILURE(replay(exec_handshake()));
  EXPECT_EQ(res.stats.mismatched, 0u);
  const auto& rd = records[request_of(plan, 20, "read", 0)];
  EXPECT_EQ(rd.rvalue, 0);
  EXPECT_LT(rd.end_ns - rd.begin_ns, stream_wait_budget_ns(0) / 2) << "the read waited out its deadline";
}

// The tar pipeline's temporal replays (docs/replay.md): a writer's 10 KiB write found the replay's
// pipe fuller than the traced one had been (a kernel pipe holds 16 pages, so its byte capacity
// depends on how reads and writes interleaved), blocked, and its reader, ordered after that write,
// never came: the write returned short after its 1 s deadline. Here the writer writes 100 KiB
// before its reader's first read began (a traced pipe of a larger capacity); the replay's pipe
// must take it without blocking.
trace::Trace writes_ahead_of_the_reader() {
  TraceBuilder b;
  b.add(30, 30, "pipe2", {(int64_t{4} << 32) | 3, 0}, 0, {}, 1000, 100);
  for (int i = 0; i < 10; ++i) b.add(30, 30, "write", {4, 0, 10240}, 10240, {}, 2000 + i * 1000, 200);
  b.add(30, 30, "clone", {SIGCHLD, 0, 0, 0, 0}, 31, {}, 20000, 300);
  for (int i = 0; i < 10; ++i) b.add(31, 31, "read", {3, 0, 10240}, 10240, {}, 30000 + i * 1000, 200);
  return b.take();
}

TEST_P(PipeReplay, WritesTheTraceMadeAheadOfTheReaderDoNotBlock) {
  ASSERT_NO_FATAL_FAILURE(replay(writes_ahead_of_the_reader()));
  EXPECT_EQ(res.stats.mismatched, 0u);
  for (int k = 0; k < 10; ++k) {
    const auto& w = records[request_of(plan, 30, "write", k)];
    EXPECT_EQ(w.rvalue, 10240) << "write " << k;
    EXPECT_LT(w.end_ns - w.begin_ns, stream_wait_budget_ns(0) / 2) << "write " << k << " waited out its deadline";
  }
}

// strace under load stamped gzip's read from tar's pipe ending 4.6 µs before the write that filled
// it began (a shell pipeline's capture): by the stamps the write came after the read, so the
// temporal order made the write wait for the read that waited for its bytes, and the replay
// stalled for the stream deadline (1 s) and failed the read with EAGAIN. The two ends of a pipe
// are ordered by the pipe (infer_order.cpp, stream_of). Here the reader's first read "ends" 10 ns
// before the first write begins; the shell closes its ends before either child's first call, so
// each child must get the ends from the table as it was at its fork.
trace::Trace read_stamped_before_its_write() {
  trace::Trace t = pipeline();
  for (trace::Event& e : t.events)
    if (e.pid == kReader && e.begin_ns == 10000) e.end_ns = 19990;  // the write begins at 20000
  return t;
}

TEST_P(PipeReplay, AReadStampedEndingBeforeTheWriteThatFedItWaitsOnlyForThePipe) {
  ASSERT_NO_FATAL_FAILURE(replay(read_stamped_before_its_write()));
  EXPECT_EQ(res.stats.mismatched, 0u);
  const auto& rd = records[request_of(plan, kReader, "read", 0)];
  EXPECT_EQ(rd.rvalue, 10240);
  EXPECT_LT(rd.end_ns - rd.begin_ns, stream_wait_budget_ns(0) / 2) << "the read waited out its deadline";
}

// The same pipeline through a named FIFO (`mkfifo p; tar cf p src & gzip < p`): the shell makes
// the FIFO; the writer's creat and the reader's open each waited in the trace until the other
// side opened. The replay must not block on either open (the traced writer opened first), and
// must move the traced bytes through the FIFO and give the reader its end-of-file.
trace::Trace named_fifo_pipeline() {
  TraceBuilder b;
  b.add(kShell, kShell, "mknodat", {AT_FDCWD, 0, S_IFIFO | 0666, 0}, 0, {"/p"}, 1000, 100);
  b.add(kShell, kShell, "clone", {SIGCHLD, 0, 0, 0, 0}, kWriter, {}, 2000, 300);
  b.add(kShell, kShell, "clone", {SIGCHLD, 0, 0, 0, 0}, kReader, {}, 2500, 300);
  b.add(kWriter, kWriter, "creat", {0, 0666}, 3, {"/p"}, 3000, 2000);
  b.add(kWriter, kWriter, "write", {3, 0, 10240}, 10240, {}, 20000, 2000);
  b.add(kWriter, kWriter, "write", {3, 0, 10240}, 10240, {}, 40000, 2000);
  b.add(kWriter, kWriter, "close", {3}, 0, {}, 59000, 100);
  b.add(kWriter, kWriter, "exit_group", {0}, 0, {}, 60000, 100);
  // The reader's shell opens the FIFO onto stdin (`gzip < p`) and forks the program that reads it.
  b.add(kReader, kReader, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 3, {"/p"}, 4900, 200);
  b.add(kReader, kReader, "dup2", {3, 0}, 0, {}, 5200, 50);
  b.add(kReader, kReader, "close", {3}, 0, {}, 5300, 50);
  b.add(kReader, kReader, "clone", {SIGCHLD, 0, 0, 0, 0}, kGzip, {}, 5400, 300);
  b.add(kGzip, kGzip, "read", {0, 0, 32768}, 10240, {}, 10000, 12500);
  b.add(kGzip, kGzip, "read", {0, 0, 32768}, 10240, {}, 23000, 19500);
  b.add(kGzip, kGzip, "read", {0, 0, 32768}, 0, {}, 43000, 16200);
  b.add(kGzip, kGzip, "exit_group", {0}, 0, {}, 62000, 100);
  b.add(kReader, kReader, "close", {0}, 0, {}, 61000, 100);
  b.add(kReader, kReader, "exit_group", {0}, 0, {}, 63000, 100);
  return b.take();
}

TEST_P(PipeReplay, ANamedFifoCarriesTheTracedBytesWithoutBlockingItsOpens) {
  ASSERT_NO_FATAL_FAILURE(replay(named_fifo_pipeline()));
  expect_every_call_as_traced();
  EXPECT_EQ(res.stats.skipped_total(), 0u);
  const auto& eof = records[request_of(plan, kGzip, "read", 2)];
  EXPECT_GE(eof.end_ns, records[request_of(plan, kWriter, "close", 0)].begin_ns) << "end-of-file before the writer closed";
  EXPECT_LT(eof.end_ns - eof.begin_ns, stream_wait_budget_ns(0) / 2) << "the end-of-file waited out its deadline";
}

// bash's process substitution, `wc < <(cat f)`: the shell's pipe reaches the reader as the path
// /dev/fd/3, which it opens (a new description of the pipe's read end) before the shell closes its
// own copy. The replay reopens its pipe there, not a /dev/null stand-in: the reader's bytes are
// the writer's, and the writer gets no EPIPE from a pipe without readers.
trace::Trace process_substitution() {
  TraceBuilder b;
  b.add(kShell, kShell, "pipe2", {(int64_t{4} << 32) | 3, 0}, 0, {}, 1000, 100);
  b.add(kShell, kShell, "clone", {SIGCHLD, 0, 0, 0, 0}, kWriter, {}, 2000, 300);
  b.add(kShell, kShell, "close", {4}, 0, {}, 2400, 50);
  b.add(kShell, kShell, "clone", {SIGCHLD, 0, 0, 0, 0}, kReader, {}, 2500, 300);
  b.add(kShell, kShell, "close", {3}, 0, {}, 9000, 50);
  add_pipe_writer(b);
  b.add(kReader, kReader, "openat", {AT_FDCWD, 0, O_RDONLY, 0}, 5, {"/dev/fd/3"}, 4500, 100);
  b.add(kReader, kReader, "dup2", {5, 0}, 0, {}, 4700, 50);
  b.add(kReader, kReader, "close", {5}, 0, {}, 4800, 50);
  b.add(kReader, kReader, "close", {3}, 0, {}, 4900, 50);
  b.add(kReader, kReader, "read", {0, 0, 32768}, 10240, {}, 10000, 12500);
  b.add(kReader, kReader, "read", {0, 0, 32768}, 10240, {}, 23000, 19500);
  b.add(kReader, kReader, "read", {0, 0, 32768}, 0, {}, 43000, 17200);
  b.add(kReader, kReader, "exit_group", {0}, 0, {}, 61000, 100);
  return b.take();
}

TEST_P(PipeReplay, DevFdOfAPipeReopensTheReplayPipe) {
  ASSERT_NO_FATAL_FAILURE(replay(process_substitution()));
  expect_every_call_as_traced();
  EXPECT_EQ(res.stats.emulated_files, 0u) << "/dev/fd/3 served by a stand-in";
  const auto& eof = records[request_of(plan, kReader, "read", 2)];
  EXPECT_GE(eof.end_ns, records[request_of(plan, kWriter, "exit_group", 0)].begin_ns) << "end-of-file before the writer's exit";
}

INSTANTIATE_TEST_SUITE_P(EnginesAndOrderings, PipeReplay,
                         ::testing::Combine(::testing::Values(EngineKind::kWorkers, EngineKind::kCoordinator),
                                            ::testing::Values(Ordering::kThread, Ordering::kFs, Ordering::kTemporal)));

// Whether the root may hold a FIFO (sandbox_resolver.h, RootFifos) is the session's to decide: a
// trace that makes one keeps the non-blocking opens whatever the root, and so does a root that
// held anything before the replay.
TEST(RootFifosOfASession, OnlyAnEmptyRootReplayingATraceWithoutMkfifoHoldsNone) {
  auto with_fifo = infer_plan(named_fifo_pipeline(), Ordering::kFs);
  auto without = infer_plan(pipeline(), Ordering::kFs);
  ASSERT_TRUE(with_fifo.ok() && without.ok());
  EXPECT_EQ(root_fifos(with_fifo.value(), true), RootFifos::kPossible);
  EXPECT_EQ(root_fifos(without.value(), true), RootFifos::kNone);
  EXPECT_EQ(root_fifos(without.value(), false), RootFifos::kPossible);
}

// The named-FIFO pipeline through the whole session into a fresh root: its opens must not block
// nor be refused (a session that took the root for FIFO-free would refuse the FIFO with EPERM).
TEST(RootFifosOfASession, ANamedFifoPipelineReplaysThroughTheSession) {
  auto p = infer_plan(named_fifo_pipeline(), Ordering::kFs);
  ASSERT_TRUE(p.ok()) << p.error();
  testing::TempDir dir;
  SessionOptions o;
  o.root = dir.sub("root");
  o.out = dir.sub("replayed.rastro");
  o.engine_name = "workers";
  const ReplaySummary s = run_replay_session(p.value(), o, [](const Plan& plan, const SandboxResolver& sb,
                                                              const EngineOptions& eo) {
    return run_engine(EngineKind::kWorkers, plan, sb, eo);
  });
  EXPECT_EQ(s.requests, s.replayed);
  EXPECT_EQ(s.skipped, 0u);
  EXPECT_EQ(s.mismatched, 0u) << s.to_text();
}

}  // namespace
}  // namespace rastro::replay
