#include "workloads/micro/micro_bench.h"

#include "replay/runtime/fs_init.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/workloads/test_dir.h"
#include "workloads/common/trace_emit.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::workloads {
namespace {

using testing::ScopedDir;

MicroOptions small(MicroType type, const std::string& dir) {
  MicroOptions o;
  o.type = type;
  o.threads = 2;
  o.ops = 300;
  o.block = 4096;
  o.file_size = 4096 * 512;
  o.dir = dir;
  o.seed = 7;
  return o;
}

trace::Trace run_to_memory(const MicroOptions& o) {
  StopSignal stop{0};
  trace::MemorySink sink;
  micro_to_sink(o, {"rastro", "bench", "micro"}, stop, sink);
  return sink.take();
}

std::vector<const trace::Event*> data_events(const trace::Trace& t, std::string_view fn) {
  std::vector<const trace::Event*> out;
  for (const auto& e : t.events) {
    if (trace::function_name(e, t.strings) == fn) out.push_back(&e);
  }
  return out;
}

struct TypeCase {
  MicroType type;
  const char* function;
  bool random;
};

class MicroTypes : public ::testing::TestWithParam<TypeCase> {};

TEST_P(MicroTypes, TraceHasThreadsTimesOpsRequestsWithRightOffsets) {
  ScopedDir dir("micro");
  const TypeCase c = GetParam();
  const MicroOptions o = small(c.type, dir.path);
  const trace::Trace t = run_to_memory(o);

  // Exactly threads x ops requests of the right function, plus one openat and close per thread.
  const auto reqs = data_events(t, c.function);
  ASSERT_EQ(reqs.size(), o.threads * o.ops);
  EXPECT_EQ(data_events(t, "openat").size(), 2u);
  EXPECT_EQ(data_events(t, "close").size(), 2u);
  EXPECT_EQ(t.events.size(), o.threads * o.ops + 4);
  EXPECT_TRUE(t.header.complete);
  EXPECT_EQ(t.header.backend, "reference-micro");
  EXPECT_EQ(t.header.extra.value("partial", true), false);

  const trace::SyscallInfo* info = trace::syscall_by_name(c.function);
  ASSERT_NE(info, nullptr);
  std::map<int32_t, std::vector<const trace::Event*>> by_tid;
  for (const auto* e : reqs) {
    EXPECT_EQ(e->nr, info->nr);
    ASSERT_EQ(e->nargs, info->nargs);
    for (int i = 0; i < info->nargs; ++i) EXPECT_EQ(e->arg(i).type, info->args[static_cast<size_t>(i)]);
    EXPECT_EQ(e->rvalue, static_cast<int64_t>(o.block));   // rvalue = block size
    EXPECT_EQ(e->arg(1).value, 0);                          // kBuf is always 0
    EXPECT_EQ(e->arg(2).value, static_cast<int64_t>(o.block));
    EXPECT_LE(e->begin_ns, e->end_ns);
    EXPECT_EQ(e->pid, getpid());
    const std::string path(t.str(e->arg(0).str));
    EXPECT_EQ(path.rfind(dir.path, 0), 0u) << path;  // the fd carries the file path
    by_tid[e->tid].push_back(e);
  }
  ASSERT_EQ(by_tid.size(), 2u);  // two real, distinct thread ids
  for (auto& [tid, evs] : by_tid) {
    EXPECT_NE(tid, getpid());
    ASSERT_EQ(evs.size(), o.ops);
    if (c.random) {
      std::set<int64_t> distinct;
      for (const auto* e : evs) {
        const int64_t off = e->arg(3).value;
        EXPECT_EQ(off % static_cast<int64_t>(o.block), 0);
        EXPECT_GE(off, 0);
        EXPECT_LE(off + static_cast<int64_t>(o.block), static_cast<int64_t>(o.file_size));
        distinct.insert(off);
      }
      // 300 draws from 512 blocks: a sequential or constant pattern would give far fewer/more.
      EXPECT_GT(distinct.size(), 150u);
      bool sequential = true;
      for (size_t k = 1; k < evs.size(); ++k) {
        sequential = sequential && evs[k]->arg(3).value == evs[k - 1]->arg(3).value + 4096;
      }
      EXPECT_FALSE(sequential);
    } else {
      // read/write have no offset argument: sequential means the same fd, in program order,
      // each returning a full block, and the file position advanced by exactly ops*block
      // (checked for SW below through the file size, for SR through the rvalues).
      EXPECT_EQ(evs.front()->nargs, 3);
      for (size_t k = 1; k < evs.size(); ++k) EXPECT_GE(evs[k]->begin_ns, evs[k - 1]->end_ns);
    }
  }
  // Each thread: openat first, close last, with the path.
  for (const auto& e : t.events) {
    if (trace::function_name(e, t.strings) == "openat") {
      EXPECT_EQ(e.arg(0).value, AT_FDCWD);
      EXPECT_FALSE(t.str(e.arg(1).str).empty());
      EXPECT_GE(e.rvalue, 0);
    }
  }
  // Settings carry what --init needs.
  ASSERT_TRUE(t.header.settings.contains("initial_files"));
  EXPECT_EQ(t.header.settings["initial_files"].size(), 2u);
  EXPECT_EQ(t.header.settings["initial_files"][0]["size"].get<uint64_t>(), o.file_size);
  EXPECT_EQ(t.header.settings["seed"].get<uint64_t>(), 7u);
  // ... and the replayer's --init reads them: each file at its full size (512 blocks), not only
  // as far as the 300 requests reached.
  size_t files = 0;
  for (const auto& e : replay::plan_initial_state(t).entries) {
    if (e.kind != replay::InitEntry::Kind::kFile) continue;
    EXPECT_EQ(e.size, o.file_size) << e.path;
    ++files;
  }
  EXPECT_EQ(files, 2u);
}

INSTANTIATE_TEST_SUITE_P(All, MicroTypes,
                         ::testing::Values(TypeCase{MicroType::kRandomRead, "pread64", true},
                                           TypeCase{MicroType::kRandomWrite, "pwrite64", true},
                                           TypeCase{MicroType::kSequentialRead, "read", false},
                                           TypeCase{MicroType::kSequentialWrite, "write", false}),
                         [](const auto& p) { return std::string(micro_type_name(p.param.type)); });

TEST(MicroBench, SameSeedSameOffsetsDifferentSeedDifferent) {
  ScopedDir dir("micro");
  MicroOptions o = small(MicroType::kRandomRead, dir.path);
  auto offsets = [](const trace::Trace& t) {
    // Per thread in thread order (tids differ between runs, so key by first appearance of path).
    std::map<std::string, std::vector<int64_t>> m;
    for (const auto& e : t.events) {
      if (trace::function_name(e, t.strings) == "pread64") m[std::string(t.str(e.arg(0).str))].push_back(e.arg(3).value);
    }
    return m;
  };
  const auto a = offsets(run_to_memory(o));
  const auto b = offsets(run_to_memory(o));
  EXPECT_EQ(a, b);
  o.seed = 8;
  const auto c = offsets(run_to_memory(o));
  EXPECT_NE(a, c);
  // And the two threads of one run do not share a sequence.
  ASSERT_EQ(a.size(), 2u);
  EXPECT_NE(a.begin()->second, a.rbegin()->second);
}

TEST(MicroBench, OffsetDerivationIsTheDocumentedOne) {
  MicroOptions o;
  o.type = MicroType::kRandomWrite;
  o.ops = 3;
  o.file_size = 4096 * 1000;
  o.seed = 42;
  std::mt19937_64 rng(42 + 0x9E3779B97F4A7C15ull * 2);  // thread 1
  const auto offs = micro_offsets(o, 1);
  for (uint64_t off : offs) EXPECT_EQ(off, (rng() % 1000) * 4096);
}

TEST(MicroBench, SequentialWriteAdvancesTheFile) {
  ScopedDir dir("micro");
  MicroOptions o = small(MicroType::kSequentialWrite, dir.path);
  o.threads = 1;
  o.file_size = 4096 * 300;  // exactly ops blocks
  run_to_memory(o);
  // The prepared file was reused; writes covered it once sequentially, so its size is unchanged,
  // and a second SW with one more op than fits is refused before any work.
  struct stat st;
  ASSERT_EQ(::stat(micro_file_path(dir.path, 0).c_str(), &st), 0);
  EXPECT_EQ(st.st_size, 4096 * 300);
  o.ops = 301;
  StopSignal stop{0};
  bool stopped = false;
  EXPECT_THROW(prepare_micro(o, stop, &stopped), Error);
}

TEST(MicroBench, PauseSeparatesRequests) {
  ScopedDir dir("micro");
  MicroOptions o = small(MicroType::kSequentialRead, dir.path);
  o.threads = 1;
  o.ops = 50;
  o.pause_ns = 50'000;
  const trace::Trace t = run_to_memory(o);
  const auto reqs = data_events(t, "read");
  ASSERT_EQ(reqs.size(), 50u);
  for (size_t k = 1; k < reqs.size(); ++k) {
    // A lower bound only: the pause may overshoot on a loaded machine, never undershoot.
    EXPECT_GE(reqs[k]->begin_ns - reqs[k - 1]->end_ns, 50'000);
  }
}

TEST(MicroBench, BadInputIsRefusedBeforeAnyWork) {
  ScopedDir dir("micro");
  StopSignal stop{0};
  bool stopped = false;
  MicroOptions o = small(MicroType::kRandomRead, dir.path + "/sub");
  o.threads = 0;
  EXPECT_THROW(prepare_micro(o, stop, &stopped), Error);
  o.threads = 1;
  o.ops = 0;
  EXPECT_THROW(prepare_micro(o, stop, &stopped), Error);
  o.ops = 10;
  o.block = 0;
  EXPECT_THROW(prepare_micro(o, stop, &stopped), Error);
  o.block = 8192;
  o.file_size = 4096;
  EXPECT_THROW(prepare_micro(o, stop, &stopped), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/sub"));  // nothing was created
  // Not enough space: an absurd file size is refused by the statvfs check, before filling.
  o.block = 4096;
  o.file_size = 1ull << 60;
  try {
    prepare_micro(o, stop, &stopped);
    FAIL() << "expected a free-space error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not enough free space"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(micro_file_path(dir.path + "/sub", 0)));
  // A --dir that is a file.
  o.file_size = 4096 * 16;
  const std::string file = dir.path + "/plain";
  { std::FILE* f = std::fopen(file.c_str(), "w"); std::fclose(f); }
  o.dir = file;
  EXPECT_THROW(prepare_micro(o, stop, &stopped), Error);
}

TEST(MicroBench, StopLeavesAValidPartialTrace) {
  ScopedDir dir("micro");
  MicroOptions o = small(MicroType::kSequentialRead, dir.path);
  o.ops = 500;
  StopSignal stop{0};
  bool stopped = false;
  const std::string abs = prepare_micro(o, stop, &stopped);
  ASSERT_FALSE(stopped);
  stop.store(2);  // as if SIGINT arrived before the first request
  const WorkloadRun run = run_micro(o, abs, stop);
  EXPECT_EQ(run.stopped_by, 2);
  EXPECT_EQ(run.stop_reason, "interrupted by SIGINT");
  trace::MemorySink sink;
  emit_run(run, sink);
  // Each thread still opened and closed its file: the partial trace is replayable.
  EXPECT_EQ(sink.trace().events.size(), 4u);
}

}  // namespace
}  // namespace rastro::workloads
