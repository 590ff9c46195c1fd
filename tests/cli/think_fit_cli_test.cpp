// `rastro think-fit`: every candidate replayed by `rastro replay`, the ratios it reports are the ones
// `rastro compare` gives for those replays, the fit is the lowest score, no root is left behind;
// the flags it owns refused before anything is made, a failing replay named by its log.
#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_test_util.h"
#include "trace_fixture.h"
#include "trace/io/trace_io.h"
#include "trace/model/trace.h"

namespace {

namespace fs = std::filesystem;
namespace trace = rastro::trace;
using rastro::cli_test::kRastro;
using rastro::cli_test::sh;
using rastro::cli_test::slurp;
using rastro::cli_test::TempDir;

// One thread opens a file it reads, then seeks and reads it 8 times, 2 ms of its own work apart,
// each call taking `call_ns`.
std::string write_trace(const std::string& dir, const std::string& name = "seeks", int64_t call_ns = 3'000) {
  trace::Trace t;
  const trace::StrId file = t.strings.intern("/data/f");
  int64_t at = 1'000'000;
  auto call = [&](const char* syscall, std::initializer_list<trace::Arg> args, int64_t rv) {
    rastro::cli_test::append_call(t, syscall, args, rv, at, call_ns);
    at += 2'000'000;
  };
  call("openat", {{trace::ArgType::kDirFd, -100, 0}, {trace::ArgType::kPath, 0, file}, {trace::ArgType::kOpenFlags, O_RDONLY, 0}},
       3);
  for (int i = 0; i < 8; ++i) {
    call("lseek", {{trace::ArgType::kFd, 3, file}, {trace::ArgType::kOffset, 0, 0}, {trace::ArgType::kWhence, SEEK_SET, 0}}, 0);
    call("read", {{trace::ArgType::kFd, 3, file}, {trace::ArgType::kBuf, 0, 0}, {trace::ArgType::kCount, 4096, 0}}, 4096);
  }
  call("close", {{trace::ArgType::kFd, 3, file}}, 0);
  t.header.complete = true;
  const std::string path = dir + "/" + name + ".rastro";
  trace::write_trace(path, t);
  return path;
}

TEST(ThinkFitCli, ReportsCompareRatiosPerCandidateAndFitsTheLowestScore) {
  TempDir d;
  const std::string trace = write_trace(d.path);
  const std::string out = d.path + "/fit";
  const auto r = sh(kRastro + " think-fit " + trace + " -d " + out + " --candidate none --candidate memory:256K " +
                    "--rounds 2 --max-rounds 3 --json " + d.path + "/fit.json -- -e workers -O fs");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(slurp(d.path + "/fit.json"));
  ASSERT_EQ(j["candidates"].size(), 2u);
  ASSERT_EQ(j["classes"], nlohmann::json({"data"})) << j.dump();  // lseek and read; open/close has 2 calls
  size_t best = 0;
  for (size_t k = 0; k < 2; ++k) {
    const auto& c = j["candidates"][k];
    // The geometric mean of what `rastro compare` reports for the candidate's two replays.
    double log_sum = 0;
    for (const auto& replay : c["replays"]) {
      ASSERT_TRUE(fs::exists(replay.get<std::string>())) << replay;
      const auto cmp = sh(kRastro + " compare --json " + trace + " " + replay.get<std::string>());
      ASSERT_EQ(cmp.status, 0) << cmp.out;
      const auto report = nlohmann::json::parse(cmp.out);
      for (const auto& row : report["by_class"])
        if (row["key"] == "data") log_sum += std::log(row["latency_ratio_median_corrected"].get<double>());
    }
    const double ratio = std::exp(log_sum / static_cast<double>(c["replays"].size()));
    EXPECT_NEAR(c["ratio"]["data"].get<double>(), ratio, 1e-9 * ratio) << c.dump();
    EXPECT_NEAR(c["score"].get<double>(), std::fabs(std::log(ratio)), 1e-9) << c.dump();
    if (c["score"].get<double>() < j["candidates"][best]["score"].get<double>()) best = k;
  }
  EXPECT_EQ(j["fit"], j["candidates"][best]["think_work"]);
  // The other candidate is a near tie when it scores within 0.05 of the fit — and then only after
  // --max-rounds (3): a near tie gets more rounds until decided.
  const double gap = std::fabs(j["candidates"][0]["score"].get<double>() - j["candidates"][1]["score"].get<double>());
  if (gap < 0.05) {
    EXPECT_EQ(j["near_tie"], j["candidates"][1 - best]["think_work"]) << j.dump();
    EXPECT_EQ(j["rounds"], 3) << j.dump();
  } else {
    EXPECT_TRUE(j["near_tie"].is_null()) << j.dump();
  }
  // Both candidates ran in every round (two candidates: a tie-break round is both of them too).
  EXPECT_GE(j["rounds"].get<int>(), 2) << j.dump();
  for (const auto& c : j["candidates"]) EXPECT_EQ(c["replays"].size(), j["rounds"].get<size_t>()) << j.dump();
  EXPECT_NE(r.out.find("fit: --think-work " + j["fit"].get<std::string>()), std::string::npos) << r.out;
  // Each replay ran with its candidate, and every root is gone.
  EXPECT_EQ(nlohmann::json::parse(slurp(out + "/candidate-2.round-1.json"))["timing"], "think+memory:256KiB");
  EXPECT_EQ(nlohmann::json::parse(slurp(out + "/candidate-1.round-2.json"))["timing"], "think");
  for (const auto& entry : fs::directory_iterator(out))
    EXPECT_NE(entry.path().extension(), ".root") << entry.path();
}

// With --also, each round replays every candidate on every capture, and each replay is compared
// with the capture it replayed: the second capture's calls took 10 times as long, so a replay
// judged against the other capture would give a ratio 10 times off.
TEST(ThinkFitCli, SeveralCapturesEachReplayJudgedAgainstItsOwnCapture) {
  TempDir d;
  const std::vector<std::string> traces = {write_trace(d.path, "fast"), write_trace(d.path, "slow", 30'000)};
  const std::string out = d.path + "/fit";
  const auto r = sh(kRastro + " think-fit " + traces[0] + " --also " + traces[1] + " -d " + out +
                    " --candidate none --candidate memory:256K --rounds 1 --max-rounds 1 --json " + d.path +
                    "/fit.json -- -e workers -O fs");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto j = nlohmann::json::parse(slurp(d.path + "/fit.json"));
  EXPECT_EQ(j["captures"], nlohmann::json(traces));
  for (size_t k = 0; k < 2; ++k) {
    const auto& c = j["candidates"][k];
    ASSERT_EQ(c["replays"].size(), 2u) << c.dump();  // one round, two captures
    double log_sum = 0;
    for (size_t i = 0; i < 2; ++i) {
      const std::string replay = c["replays"][i].get<std::string>();
      EXPECT_EQ(replay, fmt::format("{}/candidate-{}.capture-{}.round-1.rastro", out, k + 1, i + 1));
      const auto cmp = sh(kRastro + " compare --json " + traces[i] + " " + replay);
      ASSERT_EQ(cmp.status, 0) << cmp.out;
      const auto report = nlohmann::json::parse(cmp.out);  // named: a range-for over a temporary's member dangles
      for (const auto& row : report["by_class"])
        if (row["key"] == "data") log_sum += std::log(row["latency_ratio_median_corrected"].get<double>());
    }
    const double ratio = std::exp(log_sum / 2);
    EXPECT_NEAR(c["ratio"]["data"].get<double>(), ratio, 1e-9 * ratio) << c.dump();
  }
  EXPECT_NE(r.out.find("fit: --think-work " + j["fit"].get<std::string>()), std::string::npos) << r.out;
  for (const auto& entry : fs::directory_iterator(out))
    EXPECT_NE(entry.path().extension(), ".root") << entry.path();
}

TEST(ThinkFitCli, RefusesTheFlagsItOwnsBeforeMakingAnything) {
  TempDir d;
  const std::string trace = write_trace(d.path);
  auto r = sh(kRastro + " think-fit " + trace + " -d " + d.path + "/fit -- --root /tmp");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--root is the fit's own"), std::string::npos) << r.out;
  r = sh(kRastro + " think-fit " + trace + " -d " + d.path + "/fit --candidate cpu");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("unknown think work 'cpu'"), std::string::npos) << r.out;
  r = sh(kRastro + " think-fit " + trace + " -d " + d.path + "/fit --rounds 3 --max-rounds 2");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("--max-rounds 2 is fewer than --rounds 3"), std::string::npos) << r.out;
  r = sh(kRastro + " think-fit " + trace + " --also " + d.path + "/missing.rastro -d " + d.path + "/fit");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("no trace at " + d.path + "/missing.rastro"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d.path + "/fit"));
}

TEST(ThinkFitCli, AFailingReplayIsNamedByItsLog) {
  TempDir d;
  const std::string trace = write_trace(d.path);
  const auto r = sh(kRastro + " think-fit " + trace + " -d " + d.path + "/fit --candidate none -- -e nosuchengine");
  EXPECT_EQ(r.status, 1) << r.out;
  const std::string log = d.path + "/fit/candidate-1.round-1.log";
  EXPECT_NE(r.out.find(log), std::string::npos) << r.out;
  EXPECT_NE(slurp(log).find("nosuchengine"), std::string::npos) << slurp(log);
  EXPECT_FALSE(fs::exists(d.path + "/fit/candidate-1.round-1.root"));
}

}  // namespace
