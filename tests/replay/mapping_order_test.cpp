// The fs ordering's mapping resource (replay/passes/address_spaces.h): threads of one process
// that map, use and unmap the same traced addresses are replayed in the traced order.
#include <sys/mman.h>

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "replay/engines/engine.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_names.h"
#include "replay/runtime/sandbox_resolver.h"
#include "replay_test_util.h"
#include "tests/replay/trace_builder_plan.h"
#include "trace/model/page_fault.h"

namespace rastro::replay {
namespace {

using testing::PlanTraceBuilder;
using testing::dump;
using testing::edges_of;

constexpr int64_t kA = 0x7f0000400000, kB = 0x7f0000800000;
constexpr int64_t kAnon = MAP_PRIVATE | MAP_ANONYMOUS;

Plan infer(trace::Trace t, Ordering o) {
  auto r = infer_plan(std::move(t), o);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error());
  return r.ok() ? std::move(r.value()) : Plan{};
}

size_t add_fault(PlanTraceBuilder& b, int32_t tid, int64_t at, int64_t address) {
  const size_t i = b.add(1, tid, at, at, "mm_fault", {"/f", 0, 4096, 0, address}, 0);
  b.trace().events[i].flags = trace::kEventPageFault;
  b.trace().events[i].nargs = trace::kFaultArgs;
  return i;
}

// git's pattern: thread 2 maps an object file at A, faults on it and unmaps it; then thread 3 of
// the same process gets A from its own mmap.
TEST(MappingOrder, AnMmapWaitsForTheReleaseOfItsRangeByAnotherThread) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "open", {"/f", 0}, 3);                          // 0
  b.add(1, 2, 20, 30, "mmap", {0, 100, PROT_READ, MAP_PRIVATE, 3, 0}, kA);  // 1
  add_fault(b, 2, 31, kA + 10);                                      // 2
  b.add(1, 2, 40, 50, "munmap", {kA, 100}, 0);                       // 3
  b.add(1, 3, 60, 70, "mmap", {0, 8192, PROT_READ, MAP_PRIVATE, 3, 0}, kA);  // 4 the range again
  b.add(1, 3, 80, 90, "msync", {kA + 4096, 4096, MS_SYNC}, 0);      // 5
  b.add(1, 3, 91, 95, "munmap", {kA, 8192}, 0);                      // 6
  const Plan p = infer(b.take(), Ordering::kFs);
  const auto e = edges_of(p, false);
  EXPECT_TRUE(e.count({3, 4, "mapping"})) << dump(e);  // the mmap after the munmap that freed A
  // Same thread: program order already says it (no mapping edge of its own).
  for (const auto& [from, to, kind] : e) EXPECT_FALSE(kind == "mapping" && to != 4) << dump(e);
  EXPECT_EQ(p.figures.edges_by_kind[static_cast<int>(EdgeKind::kMapping)], 1u);

  // Without its own thread's order to lean on: a thread's msync and fault on another thread's
  // mapping wait for that mmap, and the munmap waits for them.
  PlanTraceBuilder c;
  c.add(1, 1, 0, 10, "mmap", {0, 8192, PROT_READ, kAnon, -1, 0}, kB);  // 0
  c.add(1, 2, 20, 30, "msync", {kB, 4096, MS_SYNC}, 0);               // 1
  add_fault(c, 3, 35, kB + 5000);                                      // 2
  add_fault(c, 3, 36, kA);                                             // 3 no traced mapping: no edge
  c.add(1, 1, 40, 50, "munmap", {kB, 8192}, 0);                        // 4
  const Plan q = infer(c.take(), Ordering::kFs);
  const auto f = edges_of(q, false);
  EXPECT_TRUE(f.count({0, 1, "mapping"})) << dump(f);
  EXPECT_TRUE(f.count({0, 2, "mapping"})) << dump(f);
  EXPECT_TRUE(f.count({1, 4, "mapping"})) << dump(f);
  EXPECT_TRUE(f.count({2, 4, "mapping"})) << dump(f);  // thread 3's user of B
  for (const auto& [from, to, kind] : f) EXPECT_NE(to, 3u) << dump(f);

  // A fault is in the mapping of its byte, not in the one that follows it.
  PlanTraceBuilder g;
  g.add(1, 1, 0, 10, "mmap", {0, 8192, PROT_READ, kAnon, -1, 0}, kB);         // 0
  g.add(1, 2, 20, 30, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kB + 8192);  // 1 right after it
  add_fault(g, 3, 40, kB + 8191);                                              // 2 B's last byte
  const auto h = edges_of(infer(g.take(), Ordering::kFs), false);
  EXPECT_EQ(h, (std::set<testing::Edge>{{0, 2, "mapping"}})) << dump(h);
}

TEST(MappingOrder, PartialUnmapsFixedMappingsRemapsAndExecs) {
  PlanTraceBuilder b;
  b.add(1, 1, 0, 10, "mmap", {0, 3 * 4096, PROT_READ, kAnon, -1, 0}, kA);          // 0 [A, A+3p)
  b.add(1, 2, 20, 30, "munmap", {kA + 4096, 4096}, 0);                              // 1 the middle page
  b.add(1, 3, 40, 50, "mprotect", {kA, 4096, PROT_NONE}, 0);                        // 2 the first: still A's
  b.add(1, 3, 60, 70, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA + 4096);       // 3 the hole again
  b.add(1, 4, 80, 90, "mmap", {kA + 2 * 4096, 4096, PROT_READ, kAnon | MAP_FIXED, -1, 0}, kA + 2 * 4096);  // 4 over the last page
  b.add(1, 5, 100, 110, "mremap", {kA + 4096, 4096, 8192, MREMAP_MAYMOVE, 0}, kB);  // 5 moves 3's mapping
  b.add(1, 6, 120, 130, "madvise", {kB, 8192, MADV_DONTNEED}, 0);                   // 6 the moved one
  b.add(1, 7, 140, 150, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA + 4096);     // 7 freed by the mremap
  const Plan p = infer(b.take(), Ordering::kFs);
  const auto e = edges_of(p, false);
  EXPECT_TRUE(e.count({0, 1, "mapping"})) << dump(e);  // the munmap of part of 0's mapping
  EXPECT_TRUE(e.count({0, 2, "mapping"})) << dump(e);  // the first page is still 0's
  EXPECT_TRUE(e.count({1, 3, "mapping"})) << dump(e);  // the hole 1 made
  EXPECT_TRUE(e.count({0, 4, "mapping"})) << dump(e);  // MAP_FIXED replaces the last page, still 0's
  EXPECT_TRUE(e.count({3, 5, "mapping"})) << dump(e);  // mremap of 3's mapping
  EXPECT_TRUE(e.count({5, 6, "mapping"})) << dump(e);  // madvise of where it moved
  EXPECT_TRUE(e.count({5, 7, "mapping"})) << dump(e);  // the range the mremap left
  for (const auto& [from, to, kind] : e) EXPECT_FALSE(from == 2 && to == 4) << "2 used the first page only";

  // An exec replaces the address space: the new image's mmap of A follows nothing of the old.
  PlanTraceBuilder c;
  c.add(1, 1, 0, 10, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA);  // 0
  c.add(1, 2, 20, 30, "execve", {"/bin/x", 0, 0}, 0);                  // 1
  c.add(1, 2, 40, 50, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA);  // 2
  const auto f = edges_of(infer(c.take(), Ordering::kFs), false);
  for (const auto& [from, to, kind] : f) EXPECT_NE(kind, "mapping") << dump(f);

  // Another process's address space is its own; thread ordering has no cross-thread edges.
  PlanTraceBuilder d;
  d.add(1, 1, 0, 10, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA);  // 0
  d.add(1, 1, 20, 30, "munmap", {kA, 4096}, 0);                         // 1
  d.add(2, 2, 40, 50, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA);  // 2
  d.add(1, 3, 60, 70, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA);  // 3
  trace::Trace dt = d.take();
  const auto g = edges_of(infer(dt, Ordering::kFs), false);
  EXPECT_TRUE(g.count({1, 3, "mapping"})) << dump(g);
  for (const auto& [from, to, kind] : g) EXPECT_NE(to, 2u) << dump(g);
  for (const auto& [from, to, kind] : edges_of(infer(dt, Ordering::kThread), false)) EXPECT_EQ(kind, "thread");
}

// Thread 11 maps A and unmaps it after 400 mprotects of a mapping of its own; then thread 10 maps
// A and works on it with 800 mprotects. At full speed both threads start at once: without the
// mapping edge, thread 10's mmap of A came first, thread 11's mmap of A replaced it in the
// replay's table and its munmap removed it, and thread 10's mprotects and munmap found nothing
// (`mapping_not_in_trace`: 392-478 calls skipped in three runs).
trace::Trace threads_reusing_an_address() {
  testing::TraceBuilder b;
  int64_t t = 1'000'000;
  auto add = [&](int32_t tid, std::string_view name, std::vector<int64_t> args, int64_t rv) {
    b.add(1, tid, name, std::move(args), rv, {}, t, 500);
    t += 1000;
  };
  add(11, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kB);
  for (int i = 0; i < 400; ++i) add(11, "mprotect", {kB, 4096, i % 2 ? PROT_READ : PROT_NONE}, 0);
  add(11, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA);
  add(11, "munmap", {kA, 4096}, 0);
  add(10, "mmap", {0, 4096, PROT_READ, kAnon, -1, 0}, kA);
  for (int i = 0; i < 800; ++i) add(10, "mprotect", {kA, 4096, i % 2 ? PROT_READ : PROT_NONE}, 0);
  add(10, "munmap", {kA, 4096}, 0);
  add(11, "munmap", {kB, 4096}, 0);
  return b.take();
}

TEST(MappingOrder, ThreadsReusingAnAddressReplayAtFullSpeedWithoutSkips) {
  const Plan plan = infer(threads_reusing_an_address(), Ordering::kFs);
  EXPECT_EQ(plan.figures.edges_by_kind[static_cast<int>(EdgeKind::kMapping)], 1u);
  for (EngineKind eng : {EngineKind::kWorkers, EngineKind::kCoordinator}) {
    for (int rep = 0; rep < 3; ++rep) {
      testing::TempDir root;
      SandboxResolver sb(root.path());
      EngineOptions o;
      o.timing = TimingSpec{TimingPolicy::kFullspeed};
      const EngineResult res = run_engine(eng, plan, sb, o);
      EXPECT_EQ(res.stats.skipped_total(), 0u) << static_cast<int>(eng) << " rep " << rep;
      EXPECT_EQ(res.stats.mismatched, 0u) << static_cast<int>(eng) << " rep " << rep;
    }
  }
}

}  // namespace
}  // namespace rastro::replay
