// The fio cross-check job: its command line matches the cell, its JSON report is read (a real fio
// run when fio is installed), and bad output is an error naming the file.
#include "campaign/fio_job.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "campaign/subprocess.h"

namespace rastro::campaign {
namespace {

TEST(FioJob, CommandMatchesTheCell) {
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  c.ops = 300;
  c.block = 4096;
  c.file_size = 1 << 20;
  auto argv = fio_command(c, "rr", 3, "/d", "/o.json", false);
  auto has = [&](const std::string& a) { return std::find(argv.begin(), argv.end(), a) != argv.end(); };
  EXPECT_EQ(argv[0], "fio");
  for (const char* a : {"--rw=randread", "--bs=4096", "--size=1048576", "--io_size=1228800", "--numjobs=3",
                        "--ioengine=psync", "--directory=/d", "--output=/o.json"})
    EXPECT_TRUE(has(a)) << a;
  EXPECT_FALSE(has("--create_only=1"));
  EXPECT_EQ(fio_command(c, "sw", 1, "/d", "/o.json", true).back(), "--create_only=1");
  EXPECT_EQ(fio_rw("sw"), "write");
  EXPECT_THROW(fio_rw("xx"), Error);
}

TEST(FioJob, BadReportsAreErrorsNamingTheFile) {
  EXPECT_NE(read_fio_latency("not json", "rr", "f.json").error().find("f.json: not fio JSON"), std::string::npos);
  EXPECT_NE(read_fio_latency("{}", "rr", "f.json").error().find("no jobs"), std::string::npos);
  EXPECT_NE(read_fio_latency(R"({"jobs":[{"write":{}}]})", "rr", "f.json").error().find("jobs[0].read.clat_ns.mean"),
            std::string::npos);
  auto ok = read_fio_latency(R"({"jobs":[{"write":{"clat_ns":{"mean":2500.5},"total_ios":42}}]})", "sw", "f.json");
  ASSERT_TRUE(ok.ok()) << ok.error();
  EXPECT_DOUBLE_EQ(ok->clat_mean_ns, 2500.5);
  EXPECT_EQ(ok->requests, 42u);
}

TEST(FioJob, RealFioRunsTheRequestedRequests) {
  if (run_process({"fio", "--version"}, 30).status != 0) GTEST_SKIP() << "fio not installed (scripts/setup.sh installs it)";
  CampaignConfig c = quick_config(CampaignKind::kCapture);
  c.ops = 50;
  c.file_size = 1 << 20;
  auto dir = std::filesystem::temp_directory_path() / ("rastro-fio-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string json = (dir / "r.json").string();
  ASSERT_EQ(run_process(fio_command(c, "sr", 2, dir.string(), json, false), 120).status, 0);
  std::stringstream text;
  text << std::ifstream(json).rdbuf();
  auto l = read_fio_latency(text.str(), "sr", json);
  ASSERT_TRUE(l.ok()) << l.error();
  EXPECT_EQ(l->requests, 100u);  // 50 per job, 2 jobs
  EXPECT_GT(l->clat_mean_ns, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace rastro::campaign
