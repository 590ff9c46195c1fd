// The real traces of tests/fixtures/characterize (README there): their fio iolog replayed by the
// installed fio moves exactly the bytes the traced calls moved (summed here from the events), and
// the synthetic trace drawn from each one's model replays completely with `rastro replay --init`,
// the fio job drawn from it moves the traced bytes per operation class, and the model ->
// synthetic -> model round trip holds every feature within its tolerance.
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_test_util.h"
#include "trace/io/trace_io.h"
#include "trace/syscalls/syscall_table.h"

namespace rastro::characterize {
namespace {

namespace fs = std::filesystem;
using rastro::cli_test::kRastro;
using rastro::cli_test::slurp;
const std::string kFixtures = std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/characterize/";

int run(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

class RealTrace : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("rastro-real-" + std::to_string(getpid()) + "-" + GetParam());
    fs::remove_all(dir);
    fs::create_directories(dir);
    trace = kFixtures + GetParam() + ".rastro";
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string dir, trace;
};

// Bytes the trace's successful read and write calls moved, summed from the events (not from the
// access log the code under test builds): the reference every fio run is held to.
struct TracedBytes {
  uint64_t read = 0, write = 0;
};
TracedBytes traced_bytes(const std::string& trace) {
  TracedBytes b;
  for (const trace::Event& e : trace::read_trace(trace).events) {
    const trace::SyscallInfo* s = trace::syscall_by_nr(e.nr);
    if (!s || s->ret != trace::ReturnKind::kCount || e.rvalue <= 0 || (e.flags & trace::kEventUnfinished)) continue;
    bool reads = s->classes & trace::kClassRead, writes = s->classes & trace::kClassWrite;
    if (reads && !writes) b.read += static_cast<uint64_t>(e.rvalue);
    if (writes && !reads) b.write += static_cast<uint64_t>(e.rvalue);
  }
  return b;
}

TEST_P(RealTrace, FioIologMovesTheTracedBytes) {
  if (run("fio --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "fio is not installed (scripts/setup.sh)";
  const TracedBytes traced = traced_bytes(trace);
  ASSERT_EQ(run(kRastro + " export -f fio-iolog " + trace + " -o " + dir + "/t.iolog"), 0);
  ASSERT_EQ(run("cd " + dir + " && sh t.iolog.layout.sh && fio --name=replay --read_iolog=t.iolog --replay_no_stall=1 "
                "--output-format=json --output=fio.json >fio.log 2>&1"),
            0)
      << slurp(dir + "/fio.log");
  nlohmann::json fio = nlohmann::json::parse(slurp(dir + "/fio.json"));
  const nlohmann::json& job = fio.at("jobs").at(0);
  EXPECT_EQ(job.at("error").get<int>(), 0);
  EXPECT_EQ(job.at("read").at("io_bytes").get<uint64_t>(), traced.read);
  EXPECT_EQ(job.at("write").at("io_bytes").get<uint64_t>(), traced.write);
}

// The fio job `rastro synth --fio` writes from the trace's model runs in the installed fio and
// moves the bytes the traced calls moved, per operation class (read, write), within 1 %.
TEST_P(RealTrace, FioJobMovesTheTracedBytesPerOperationClass) {
  if (run("fio --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "fio is not installed (scripts/setup.sh)";
  const TracedBytes traced = traced_bytes(trace);
  ASSERT_EQ(run(kRastro + " characterize " + trace + " -o " + dir + "/m.json >/dev/null"), 0);
  ASSERT_EQ(run(kRastro + " synth " + dir + "/m.json --fio " + dir + "/job.fio -o " + dir + "/s.rastro >/dev/null"), 0);
  ASSERT_EQ(run("cd " + dir + " && fio --output-format=json --output=fio.json job.fio >fio.log 2>&1"), 0)
      << slurp(dir + "/fio.log") << slurp(dir + "/job.fio");
  nlohmann::json fio = nlohmann::json::parse(slurp(dir + "/fio.json"));
  double read = 0, write = 0;
  for (const nlohmann::json& job : fio.at("jobs")) {
    EXPECT_EQ(job.at("error").get<int>(), 0) << job.at("jobname");
    read += job.at("read").at("io_bytes").get<double>();
    write += job.at("write").at("io_bytes").get<double>();
  }
  EXPECT_NEAR(read, static_cast<double>(traced.read), 0.01 * static_cast<double>(traced.read)) << slurp(dir + "/job.fio");
  EXPECT_NEAR(write, static_cast<double>(traced.write), 0.01 * static_cast<double>(traced.write)) << slurp(dir + "/job.fio");
}

TEST_P(RealTrace, SyntheticTraceReplaysCompletely) {
  ASSERT_EQ(run(kRastro + " characterize " + trace + " -o " + dir + "/m.json >/dev/null"), 0);
  ASSERT_EQ(run(kRastro + " synth " + dir + "/m.json -o " + dir + "/s.rastro >/dev/null"), 0);
  ASSERT_EQ(run(kRastro + " replay " + dir + "/s.rastro -e workers -o " + dir + "/r.rastro --root " + dir + "/root --init " +
                "--summary-json " + dir + "/sum.json >/dev/null 2>&1"),
            0);
  nlohmann::json sum = nlohmann::json::parse(slurp(dir + "/sum.json"));
  EXPECT_GT(sum.at("requests").get<uint64_t>(), 100u);
  EXPECT_EQ(sum.at("replayed"), sum.at("requests"));
  EXPECT_EQ(sum.at("skipped").get<uint64_t>(), 0u);
  // Every call that succeeded in the synthetic trace returns what the synthesizer computed: the
  // initial sizes it declared (initial_files) and, for files shared between threads, every
  // earlier write, removal and creation. A call that failed there (a stat of a removed file) may
  // differ: the fs ordering gives calls that failed no resource constraints, so another thread's
  // re-creation can run first (docs/replay.md, "Ordering (not yet)").
  uint64_t differing = 0;
  const trace::Trace replayed = trace::read_trace(dir + "/r.rastro");
  for (const trace::Event& e : replayed.events) {
    const trace::SyscallInfo* s = trace::syscall_by_nr(e.nr);
    if (!(e.flags & trace::kEventReplayed) || !s || s->ret == trace::ReturnKind::kFd) continue;
    if (e.rvalue == e.expected_rvalue) continue;
    ++differing;
    EXPECT_LT(e.expected_rvalue, 0) << trace::function_name(e, replayed.strings)
                                    << " returned " << e.rvalue << ", the synthetic trace says " << e.expected_rvalue;
  }
  EXPECT_EQ(sum.at("mismatched").get<uint64_t>(), differing);
}

// model -> synthetic -> model: every feature of every class within its tolerance (the command's
// exit status is 3 when one is not; docs/characterize.md, "Validation"), for every fixture and
// seeds 1..5 — not one lucky draw.
class RoundTrip : public ::testing::TestWithParam<std::tuple<const char*, int>> {
 protected:
  void SetUp() override {
    const auto& [name, seed] = GetParam();
    seed_ = std::to_string(seed);
    dir = fs::temp_directory_path() / ("rastro-roundtrip-" + std::to_string(getpid()) + "-" + name + "-" + seed_);
    fs::remove_all(dir);
    fs::create_directories(dir);
    trace = kFixtures + name + ".rastro";
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string dir, trace, seed_;
};

TEST_P(RoundTrip, IsWithinToleranceOnEveryFeature) {
  ASSERT_EQ(run(kRastro + " characterize " + trace + " -o " + dir + "/m.json >/dev/null"), 0);
  ASSERT_EQ(run(kRastro + " synth " + dir + "/m.json --seed " + seed_ + " -o " + dir + "/s.rastro >/dev/null"), 0);
  const int status = run(kRastro + " characterize " + trace + " --validate " + dir + "/s.rastro >" + dir + "/v.txt 2>&1");
  const std::string table = slurp(dir + "/v.txt");
  EXPECT_EQ(status, 0) << table;
  EXPECT_NE(table.find("All features within tolerance."), std::string::npos) << table;
  EXPECT_EQ(table.find("FAIL"), std::string::npos) << table;
  for (const char* feature : {"| mix.namespace |", "| read_size |", "| file_size |", "| sequential_fraction |"})
    EXPECT_NE(table.find(feature), std::string::npos) << feature << " is not checked\n" << table;
}

// Original and synthetic replayed on this machine: every category both traces have gets a row
// with both means and an interval (the numbers are the machine's; the structure is the contract).
TEST(RealTraceReplayComparison, ResponseTimesOfOriginalAndSyntheticReplays) {
  const std::string dir = fs::temp_directory_path() / ("rastro-real-cmp-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string trace = kFixtures + "tar_doc.rastro";
  ASSERT_EQ(run(kRastro + " characterize " + trace + " -o " + dir + "/m.json >/dev/null"), 0);
  ASSERT_EQ(run(kRastro + " synth " + dir + "/m.json -o " + dir + "/s.rastro >/dev/null"), 0);
  run(kRastro + " characterize " + trace + " --validate " + dir + "/s.rastro --replays 2 >" + dir + "/out.txt 2>&1");
  const std::string out = slurp(dir + "/out.txt");
  EXPECT_NE(out.find("2 replays of each trace"), std::string::npos) << out;
  for (const char* category : {"| read |", "| write |", "| open |", "| close |"}) {
    const size_t at = out.find(category);
    ASSERT_NE(at, std::string::npos) << category << "\n" << out;
    const std::string row = out.substr(at, out.find('\n', at) - at);
    EXPECT_NE(row.find('['), std::string::npos) << row;  // an interval, not n/a
  }
  EXPECT_NE(run(kRastro + " characterize " + trace + " --replays 2 >/dev/null 2>&1"), 0);  // needs --validate
  EXPECT_NE(run(kRastro + " characterize " + trace + " --validate " + dir + "/s.rastro --replays 1 >/dev/null 2>&1"), 0);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RealTrace, ::testing::Values("tar_doc", "git_commit", "fileserver"));
std::string fixture_and_seed(const ::testing::TestParamInfo<std::tuple<const char*, int>>& p) {
  return std::string(std::get<0>(p.param)) + "_seed" + std::to_string(std::get<1>(p.param));
}
// The macro workload, tar and git's commit pass on every seed (docs/characterize.md, the table).
INSTANTIATE_TEST_SUITE_P(Fileserver, RoundTrip, ::testing::Combine(::testing::Values("fileserver"), ::testing::Range(1, 6)),
                         fixture_and_seed);
INSTANTIATE_TEST_SUITE_P(Tar, RoundTrip, ::testing::Combine(::testing::Values("tar_doc"), ::testing::Range(1, 6)),
                         fixture_and_seed);
INSTANTIATE_TEST_SUITE_P(Git, RoundTrip, ::testing::Combine(::testing::Values("git_commit"), ::testing::Range(1, 6)),
                         fixture_and_seed);

}  // namespace
}  // namespace rastro::characterize
