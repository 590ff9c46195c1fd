// `--think-work` on the command line (replay/runtime/think_work.h): refused where no call waits,
// a bad mode named, and, replayed with think timing, the replayer's CPU time — counted by the
// kernel for the child process (getrusage), which we did not write — grows by the traced gaps it
// works through, where waiting them sleeps.
#include <sys/resource.h>

#include <fcntl.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "trace_fixture.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"
#include "trace/syscalls/syscall_table.h"

namespace {

namespace fs = std::filesystem;
namespace trace = rastro::trace;
using rastro::cli_test::kRastro;
using rastro::cli_test::sh;
using rastro::cli_test::slurp;
using rastro::cli_test::TempDir;

constexpr int kCalls = 11;
constexpr int64_t kGapNs = 40'000'000;  // the thread's own work between its calls, in the trace

// One thread opens a file, then seeks it 11 times, 40 ms of its own work apart: 10 gaps, 400 ms.
// With `offcpu_ns`, the capture saw the thread off-CPU for that much of each gap.
std::string write_gappy_trace(const std::string& dir, int64_t offcpu_ns = 0) {
  trace::Trace t;
  const trace::StrId file = t.strings.intern("/data/f");
  auto call = [&](const char* name, std::initializer_list<trace::Arg> args, int64_t rv, int64_t begin) {
    rastro::cli_test::append_call(t, name, args, rv, begin, 2'000);
  };
  int64_t at = 1'000'000;
  call("openat", {{trace::ArgType::kDirFd, -100, 0}, {trace::ArgType::kPath, 0, file}, {trace::ArgType::kOpenFlags, O_RDONLY, 0}},
       3, at);
  for (int i = 0; i < kCalls; ++i) {
    at += 2'000 + (i == 0 ? 10'000 : kGapNs);
    call("lseek", {{trace::ArgType::kFd, 3, file}, {trace::ArgType::kOffset, 0, 0}, {trace::ArgType::kWhence, SEEK_SET, 0}},
         0, at);
    t.events.back().flags |= trace::kEventOffCpu;
    if (i > 0) t.events.back().gap_offcpu_ns = offcpu_ns;
  }
  call("close", {{trace::ArgType::kFd, 3, file}}, 0, at + 12'000);
  t.header.complete = true;
  const std::string path = dir + (offcpu_ns ? "/gappy-offcpu.rastro" : "/gappy.rastro");
  trace::write_trace(path, t);
  return path;
}

// CPU time (user + system) of the children reaped so far, in ns.
int64_t children_cpu_ns() {
  rusage ru{};
  getrusage(RUSAGE_CHILDREN, &ru);
  auto ns = [](const timeval& tv) { return static_cast<int64_t>(tv.tv_sec) * 1'000'000'000 + tv.tv_usec * 1'000; };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

std::string replay(const std::string& trace, const std::string& dir, const std::string& name, const std::string& flags) {
  return kRastro + " replay -q -O fs " + flags + " " + trace + " --root " + dir + "/" + name + " --init -o " + dir + "/" +
         name + ".rastro --summary-json " + dir + "/" + name + ".json";
}

TEST(ThinkWorkCli, RefusedAtFullSpeedAndABadModeNamed) {
  TempDir d;
  const std::string trace = write_gappy_trace(d.path);
  auto r = sh(replay(trace, d.path, "fast", "-T fullspeed --think-work memory"));
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("--think-work memory:4MiB: at full speed no call waits"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d.path + "/fast.rastro"));
  r = sh(replay(trace, d.path, "bad", "-T think --think-work cpu"));
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("unknown think work 'cpu'"), std::string::npos) << r.out;
}

TEST(ThinkWorkCli, TheReplayerWorksThroughTheTracedGapsWhereWaitingSleeps) {
  TempDir d;
  const std::string trace = write_gappy_trace(d.path);
  int64_t cpu = children_cpu_ns();
  auto r = sh(replay(trace, d.path, "waits", "-T think"));
  ASSERT_EQ(r.status, 0) << r.out;
  const int64_t waiting = children_cpu_ns() - cpu;
  cpu = children_cpu_ns();
  r = sh(replay(trace, d.path, "works", "-T think --think-work memory:256K"));
  ASSERT_EQ(r.status, 0) << r.out;
  const int64_t working = children_cpu_ns() - cpu;
  // 10 gaps of 40 ms worked through: 400 ms more on a CPU (at least 40 % of it on a loaded machine).
  std::printf("replayer CPU time: waiting %.1f ms, working %.1f ms\n", waiting / 1e6, working / 1e6);
  EXPECT_GT(working - waiting, 160'000'000) << "waiting " << waiting << " ns, working " << working << " ns";
  const auto works = nlohmann::json::parse(slurp(d.path + "/works.json"));
  EXPECT_EQ(works["timing"], "think+memory:256KiB");
  EXPECT_EQ(works["mismatched"], 0);
  const auto waits = nlohmann::json::parse(slurp(d.path + "/waits.json"));
  EXPECT_EQ(waits["timing"], "think");
}

// The compiled replayer carries each call's gap off-CPU time into its static data: of 10 gaps of
// 40 ms, 30 ms each off-CPU in the trace, it works 100 ms, not 400.
TEST(ThinkWorkCli, TheCompiledReplayerWorksOnlyTheOnCpuPartOfEachGap) {
  TempDir d;
  const std::string trace = write_gappy_trace(d.path, 30'000'000);
  const std::string compiled = d.path + "/c";
  const auto comp = sh(kRastro + " compile -O fs -T think " + trace + " -o " + compiled + " --build");
  ASSERT_EQ(comp.status, 0) << comp.out;
  auto run = [&](const std::string& name, const std::string& flags) {
    const int64_t cpu = children_cpu_ns();
    const auto r = sh(compiled + "/replay --root " + d.path + "/" + name + " --init -o " + d.path + "/" + name +
                      ".rastro " + flags);
    EXPECT_EQ(r.status, 0) << r.out;
    return children_cpu_ns() - cpu;
  };
  const int64_t waiting = run("waits", "");
  const int64_t working = run("works", "--think-work memory:256K");
  std::printf("compiled replayer CPU time: waiting %.1f ms, working %.1f ms\n", waiting / 1e6, working / 1e6);
  EXPECT_GT(working - waiting, 40'000'000);   // 10 x 10 ms on a CPU, at least 40 % of it
  EXPECT_LT(working - waiting, 250'000'000);  // not the whole 400 ms of gaps
}

}  // namespace
