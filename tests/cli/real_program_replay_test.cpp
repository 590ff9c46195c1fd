// Replaying traces of real programs, captured here with `rastro capture -b ptrace`: tar, sqlite3
// and a parallel make (several processes, pipes, fork/exec). Both engines must replay them with
// at most 1% of the replayed calls mismatching the trace (measured: tar 0/313, sqlite3 0/160,
// make -j2 0/774, its stdout/stderr emulated), respect every
// fs-ordering dependency, and leave everything outside the sandbox root as it was.
#include <sys/stat.h>

#include <cerrno>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "real_replay_util.h"
#include "replay/passes/replay_passes.h"
#include "replay/plan/thread_order.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace {

namespace fs = std::filesystem;
using rastro::cli_test::capture_ptrace;
using rastro::cli_test::kRastro;
using rastro::cli_test::replay_fullspeed;
using rastro::cli_test::sh;
using rastro::cli_test::slurp;
using rastro::cli_test::TempDir;

constexpr double kMaxMismatchRate = 0.01;

// Builds the program's input under `dir` and returns the command line to capture.
std::string prepare(const std::string& program, const std::string& dir) {
  if (program == "tar") {
    fs::create_directories(dir + "/src/sub");
    for (int i = 1; i <= 20; ++i) {
      std::ofstream f(dir + "/src/f" + std::to_string(i), std::ios::binary);
      for (int b = 0; b < i * 700; ++b) f.put(static_cast<char>(b * 31 + i));
    }
    std::ofstream(dir + "/src/sub/notes.txt") << "notes\n";
    fs::create_symlink("f1", dir + "/src/link");
    return "tar cf " + dir + "/out.tar -C " + dir + " src";
  }
  if (program == "sqlite3") {
    return "sqlite3 " + dir + "/db.sqlite \"create table t(a, b); begin; insert into t values(1, randomblob(3000)); "
           "insert into t select a + 1, b from t; insert into t select a + 2, b from t; insert into t select a + 4, b "
           "from t; commit; create index i on t(a); select count(*) from t;\"";
  }
  // make -j2: four independent rules run in parallel by child shells, then one that joins them.
  fs::create_directories(dir + "/mk");
  std::ofstream(dir + "/mk/Makefile") << "all: a.o b.o c.o d.o\n\tcat a.o b.o c.o d.o > all\n%.o: %.c\n\tcp $< $@\n";
  for (const char* x : {"a", "b", "c", "d"}) std::ofstream(dir + "/mk/" + x + ".c") << x << "\n";
  return "make -s -j2 -C " + dir + "/mk";
}

// Size and mtime of every file under `dir` except the subtree `skip`: what a replay must not change.
std::map<std::string, std::pair<uintmax_t, int64_t>> snapshot(const std::string& dir, const std::string& skip) {
  std::map<std::string, std::pair<uintmax_t, int64_t>> out;
  for (auto it = fs::recursive_directory_iterator(dir); it != fs::recursive_directory_iterator(); ++it) {
    if (it->path().string().starts_with(skip)) {
      it.disable_recursion_pending();
      continue;
    }
    struct stat st {};
    if (lstat(it->path().c_str(), &st) != 0) continue;
    out[it->path().string()] = {static_cast<uintmax_t>(st.st_size), st.st_mtim.tv_sec * 1'000'000'000 + st.st_mtim.tv_nsec};
  }
  return out;
}

class RealProgramReplay : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(RealProgramReplay, FewMismatchesDependenciesRespectedNothingOutsideTheRootTouched) {
  const auto& [program, engine] = GetParam();
  if (sh("command -v " + program).status != 0) GTEST_SKIP() << program << " is not installed (scripts/setup.sh installs it)";
  TempDir d("rastro-realreplay");
  const std::string work = d.path + "/work";
  fs::create_directories(work);
  const std::string trace = d.path + "/" + program + ".rastro";
  const auto cap = capture_ptrace(trace, prepare(program, work));
  ASSERT_EQ(cap.status, 0) << cap.out;

  const auto before = snapshot(d.path, d.path + "/root");
  const auto rep = replay_fullspeed(d.path, engine, trace);
  ASSERT_EQ(rep.run.status, 0) << rep.run.out;
  auto after = snapshot(d.path, d.path + "/root");
  after.erase(rep.out);
  after.erase(rep.summary_path);
  EXPECT_EQ(after, before) << "the replay changed something outside its root";

  const auto& s = rep.summary;
  const auto replayed = s["replayed"].get<uint64_t>(), mismatched = s["mismatched"].get<uint64_t>();
  EXPECT_GT(replayed, 100u) << s.dump();
  // One replay process per traced process with --processes (make runs a shell per rule); else one.
  if (engine.find("--processes") != std::string::npos) {
    EXPECT_GE(s["replay_processes"].get<uint64_t>(), program == "make" ? 5u : 1u) << s.dump();
  } else {
    EXPECT_EQ(s["replay_processes"].get<uint64_t>(), 1u) << s.dump();
  }
  EXPECT_LE(static_cast<double>(mismatched), kMaxMismatchRate * static_cast<double>(replayed))
      << program << ": " << s["mismatched_by_call"].dump();
  std::printf("%s, %s engine: %llu replayed, %llu mismatched %s, %llu skipped %s\n", program.c_str(), engine.c_str(),
              static_cast<unsigned long long>(replayed), static_cast<unsigned long long>(mismatched),
              s["mismatched_by_call"].dump().c_str(), static_cast<unsigned long long>(s["skipped"].get<uint64_t>()),
              s["skipped_by_reason"].dump().c_str());

  // The output lists the plan's requests in order: no replayed request began before a replayed
  // dependency ended.
  const rastro::trace::Trace replay_out = rastro::trace::read_trace(rep.out);
  const rastro::replay::Plan plan =
      rastro::replay::infer_plan(rastro::trace::read_trace(trace), rastro::replay::Ordering::kFs).take();
  ASSERT_EQ(plan.requests.size(), replay_out.events.size());
  auto ran = [&](uint32_t r) {
    const auto& e = replay_out.events[r];
    return (e.flags & rastro::trace::kEventReplayed) && !(e.flags & rastro::trace::kEventSkipped);
  };
  size_t checked = 0;
  const std::vector<uint32_t> prev = rastro::replay::thread_predecessors(plan);  // program order
  for (uint32_t r = 0; r < plan.requests.size(); ++r) {
    if (!ran(r)) continue;
    auto respected = [&](uint32_t dep) {
      if (!ran(dep)) return;
      EXPECT_GE(replay_out.events[r].begin_ns, replay_out.events[dep].end_ns) << r << " began before " << dep;
      ++checked;
    };
    if (prev[r] != rastro::replay::kNoRequest) respected(prev[r]);
    for (const rastro::replay::Dep& edge : rastro::replay::deps_of(plan, r)) respected(edge.request);
  }
  EXPECT_GT(checked, 0u);
}

INSTANTIATE_TEST_SUITE_P(Programs, RealProgramReplay,
                         ::testing::Combine(::testing::Values("tar", "sqlite3", "make"),
                                            ::testing::Values("workers", "coordinator", "workers --processes", "coordinator --processes")),
                         [](const auto& p) {
                           return rastro::cli_test::param_name(std::get<0>(p.param) + "_" + std::get<1>(p.param));
                         });

TEST(InferCli, FiguresCountEveryRequestAndThePlanJsonListsThem) {
  TempDir d("rastro-infer");
  const std::string ref = d.path + "/ref.rastro";
  ASSERT_EQ(sh(kRastro + " bench micro --type sw --threads 2 --ops 50 --dir " + d.path + "/data -o " + ref).status, 0);
  const auto figures = sh(kRastro + " infer -O fs --json " + ref + " -o " + d.path + "/plan.json");
  ASSERT_EQ(figures.status, 0) << figures.out;
  const auto j = nlohmann::json::parse(figures.out.substr(figures.out.find('{')));
  const size_t events = rastro::trace::read_trace(ref).events.size();
  EXPECT_EQ(j["requests"].get<size_t>(), events) << j.dump();
  const auto plan = nlohmann::json::parse(slurp(d.path + "/plan.json"));
  EXPECT_EQ(plan["requests"].size(), events);
  const auto bad = sh(kRastro + " infer -O nonsense " + ref);
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("nonsense"), std::string::npos) << bad.out;
}

}  // namespace

// A program that writes to a pipe whose reader has gone, survives the EPIPE (Python ignores
// SIGPIPE) and goes on: every replayer must get the same EPIPE and finish, not die of SIGPIPE
// (exit 141, no output trace, no summary — what all three replayers did before).
class ReplayBrokenPipe : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplayBrokenPipe, TheWriteGetsEpipeAndTheReplayFinishes) {
  // Debian's interpreter, not a version manager's shell shim (whose own calls would swamp the trace).
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (sh("command -v " + python).status != 0) GTEST_SKIP() << "python3 is not installed";
  TempDir d("rastro-epipe");
  const std::string prog = d.path + "/epipe.py", trace = d.path + "/epipe.rastro";
  std::ofstream(prog) << "import os\n"
                         "r, w = os.pipe()\n"
                         "os.close(r)\n"
                         "try:\n"
                         "    os.write(w, b'x' * 16)\n"
                         "except BrokenPipeError:\n"
                         "    pass\n"
                         "open('" << d.path << "/after.txt', 'w').write('survived\\n')\n";
  const auto cap = capture_ptrace(trace, python + " " + prog);
  ASSERT_EQ(cap.status, 0) << cap.out;
  const auto rep = replay_fullspeed(d.path, GetParam(), trace);
  ASSERT_EQ(rep.run.status, 0) << rep.run.out;
  const auto& s = rep.summary;
  // The write the program saw fail with EPIPE failed with EPIPE in the replay too.
  const auto replayed = rastro::trace::read_trace(rep.out);
  int epipe_writes = 0;
  for (const auto& e : replayed.events)
    if ((e.flags & rastro::trace::kEventReplayed) && e.expected_rvalue == -EPIPE) {
      ++epipe_writes;
      EXPECT_EQ(e.rvalue, -EPIPE) << rastro::trace::function_name(e, replayed.strings);
    }
  EXPECT_EQ(epipe_writes, 1) << s.dump();
  // The call after the broken pipe was replayed too: the file exists inside the root.
  EXPECT_TRUE(fs::exists(d.path + "/root" + d.path + "/after.txt")) << s.dump();
}

INSTANTIATE_TEST_SUITE_P(Engines, ReplayBrokenPipe, ::testing::Values("workers", "coordinator", "workers --processes", "coordinator --processes"),
                         [](const auto& p) { return rastro::cli_test::param_name(p.param); });
