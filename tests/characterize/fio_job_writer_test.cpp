#include "characterize/fio_job_writer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "characterize/workload_characterizer.h"
#include "tests/characterize/two_class_trace.h"
#include "tests/cli/cli_test_util.h"

namespace rastro::characterize {
namespace {

namespace fs = std::filesystem;

TEST(FioJobWriter, Bssplit) {
  std::vector<double> v = {4096, 4096, 4096, 65536};
  EXPECT_EQ(fio_bssplit(summarize(v)), "4096/75:65536/25");
  std::vector<double> thirds = {1, 2, 3};
  EXPECT_EQ(fio_bssplit(summarize(thirds)), "1/34:2/33:3/33");
  std::vector<double> many;
  for (int i = 1; i <= 1000; ++i) many.push_back(i);
  std::string deciles = fio_bssplit(summarize(many));
  EXPECT_EQ(deciles.substr(0, 6), "51/10:") << deciles;
}

TEST(FioJobWriter, JobText) {
  WorkloadModel m = characterize(testing::two_class_trace(6, 3), "two").model;
  std::string job = fio_job_text(m, {});
  EXPECT_NE(job.find("[c0-read]\nnumjobs=6\nrw=read\nbssplit=65536/100\nsize=6553600\nnrfiles=1\n"), std::string::npos) << job;
  EXPECT_NE(job.find("[c1-write]\nnumjobs=3\nrw=randwrite\nbssplit=4096/100\nsize=204800\nnrfiles=1\n"), std::string::npos) << job;
  EXPECT_NE(job.find("fsync=1\n"), std::string::npos);
  EXPECT_EQ(job.find("[c0-write]"), std::string::npos) << "readers write nothing";
  SynthOptions scaled;
  scaled.threads = 18;
  EXPECT_NE(fio_job_text(m, scaled).find("[c0-read]\nnumjobs=12\n"), std::string::npos);
}

using rastro::cli_test::slurp;

// fio runs the job and moves the model's bytes per class and operation (+-1 %).
TEST(FioJobWriter, FioMovesTheModelsBytes) {
  if (std::system("fio --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "fio is not installed (scripts/setup.sh)";
  WorkloadModel m = characterize(testing::two_class_trace(2, 2), "two").model;
  std::string dir = fs::temp_directory_path() / ("rastro-fio-job-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_fio_job(dir + "/job.fio", m, {});
  std::string cmd = "cd " + dir + " && fio --output-format=json --output=fio.json job.fio >fio.log 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir + "/fio.log");
  nlohmann::json j = nlohmann::json::parse(slurp(dir + "/fio.json"));
  fs::remove_all(dir);
  std::map<std::string, double> bytes;
  for (const auto& job : j.at("jobs")) {
    std::string name = job.at("jobname");
    bytes[name] += job.at("read").at("io_bytes").get<double>() + job.at("write").at("io_bytes").get<double>();
  }
  for (const ClassModel& c : m.classes) {
    double reads = c.read_bytes_per_thread * static_cast<double>(c.threads);
    double writes = c.write_bytes_per_thread * static_cast<double>(c.threads);
    if (reads > 0) {
      EXPECT_NEAR(bytes[c.name + "-read"], reads, 0.01 * reads) << c.name;
    }
    if (writes > 0) {
      EXPECT_NEAR(bytes[c.name + "-write"], writes, 0.01 * writes) << c.name;
    }
  }
  EXPECT_EQ(bytes.size(), 2u);
}

}  // namespace
}  // namespace rastro::characterize
