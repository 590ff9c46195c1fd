// Real programs whose traffic goes through pipes and special files, captured here with `rastro
// capture -b ptrace`: a `tar cf - | gzip | gunzip | tar xf -` pipeline, `dd if=/dev/zero`,
// `head -c N /dev/urandom` and `cat /proc/self/status`. Every replayer must give every read and
// write its traced result (the pipes carry the traced byte counts between the replayed processes;
// the special files are emulated), refuse nothing as a special path, and finish.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "real_replay_util.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace {

namespace fs = std::filesystem;
using rastro::cli_test::capture_ptrace;
using rastro::cli_test::replay_fullspeed;
using rastro::cli_test::sh;
using rastro::cli_test::TempDir;

class PipeAndSpecialFileReplay : public ::testing::TestWithParam<std::string> {};

TEST_P(PipeAndSpecialFileReplay, EveryReadAndWriteGetsItsTracedResult) {
  for (const char* tool : {"tar", "gzip", "dd", "head", "cat"})
    if (sh(std::string("command -v ") + tool).status != 0) GTEST_SKIP() << tool << " is not installed";
  TempDir d("rastro-pipe-special");
  const std::string work = d.path + "/work";
  fs::create_directories(work + "/src/sub");
  fs::create_directories(work + "/x");
  for (int i = 1; i <= 12; ++i) {
    std::ofstream f(work + "/src/f" + std::to_string(i), std::ios::binary);
    for (int b = 0; b < i * 3000; ++b) f.put(static_cast<char>(b * 7 + i));
  }
  std::ofstream(work + "/src/sub/notes.txt") << "notes\n";
  const std::string trace = d.path + "/t.rastro";
  const std::string cmd = "cd " + work + " && tar cf - src | gzip -1 | gunzip | tar xf - -C x && "
                          "dd if=/dev/zero of=z bs=4096 count=64 2>/dev/null && head -c 10000 /dev/urandom > r && "
                          "cat /proc/self/status > s";
  const auto cap = capture_ptrace(trace, "sh -c '" + cmd + "'");
  ASSERT_EQ(cap.status, 0) << cap.out;

  const auto rep = replay_fullspeed(d.path, GetParam(), trace);
  ASSERT_EQ(rep.run.status, 0) << rep.run.out;
  const auto& s = rep.summary;
  const auto& skipped = s["skipped_by_reason"];
  EXPECT_FALSE(skipped.contains("special_path")) << s.dump();
  EXPECT_FALSE(skipped.contains("fd_of_refused_path")) << s.dump();
  EXPECT_GT(s["emulated_files"].get<uint64_t>(), 64u) << "dd's /dev/zero reads alone are 64";

  // Every replayed read and write (pipes, /dev/zero, /dev/urandom, /proc/self/status, files) has
  // its traced result.
  const rastro::trace::Trace replayed = rastro::trace::read_trace(rep.out);
  size_t data_calls = 0;
  for (const auto& e : replayed.events) {
    const std::string_view name = rastro::trace::function_name(e, replayed.strings);
    if (!(e.flags & rastro::trace::kEventReplayed) || (e.flags & rastro::trace::kEventSkipped)) continue;
    if (name != "read" && name != "write" && name != "readv" && name != "writev") continue;
    ++data_calls;
    EXPECT_EQ(e.rvalue, e.expected_rvalue) << name << " of pid " << e.pid << " (seq " << e.seq << ")";
  }
  EXPECT_GT(data_calls, 200u);
}

INSTANTIATE_TEST_SUITE_P(Engines, PipeAndSpecialFileReplay,
                         ::testing::Values("workers", "coordinator", "workers --processes", "coordinator --processes"),
                         [](const auto& p) { return rastro::cli_test::param_name(p.param); });

}  // namespace
