// `rastro characterize` / `rastro synth` / `rastro export -f fio-iolog` as a user runs them:
// model -> synthetic trace -> model round trip, replay of the synthetic trace, and bad input.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/characterize/two_class_trace.h"
#include "tests/cli/cli_test_util.h"
#include "trace/io/trace_io.h"

namespace rastro::characterize {
namespace {

namespace fs = std::filesystem;
using rastro::cli_test::kRastro;
using rastro::cli_test::sh;
using rastro::cli_test::ShellRun;
using rastro::cli_test::slurp;

class CharacterizeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("rastro-char-cli-" + std::to_string(getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    trace::write_trace(dir + "/two.rastro", testing::two_class_trace(6, 3));
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string dir;
};

TEST_F(CharacterizeCli, RoundTripAndReplay) {
  ShellRun c = sh(kRastro + " characterize " + dir + "/two.rastro -o " + dir + "/m.json --report " + dir + "/report");
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("-> 2 classes"), std::string::npos) << c.out;
  ShellRun s = sh(kRastro + " synth " + dir + "/m.json --scale threads=27 -o " + dir + "/syn.rastro --fio " + dir + "/job.fio");
  ASSERT_EQ(s.status, 0) << s.out;
  ShellRun v = sh(kRastro + " characterize " + dir + "/two.rastro --validate " + dir + "/syn.rastro");
  EXPECT_EQ(v.status, 0) << v.out;
  EXPECT_NE(v.out.find("All features within tolerance."), std::string::npos) << v.out;
  EXPECT_TRUE(fs::exists(dir + "/report/characterize.html"));
  EXPECT_NE(slurp(dir + "/job.fio").find("[c1-write]"), std::string::npos);

  // The synthetic trace replays completely from the initial state --init infers.
  ShellRun r = sh(kRastro + " replay " + dir + "/syn.rastro -o " + dir + "/rep.rastro --root " + dir + "/root --init " +
             "--summary-json " + dir + "/sum.json");
  ASSERT_EQ(r.status, 0) << r.out;
  nlohmann::json sum = nlohmann::json::parse(slurp(dir + "/sum.json"));
  EXPECT_GT(sum.at("requests").get<uint64_t>(), 0u);
  EXPECT_EQ(sum.at("replayed"), sum.at("requests")) << sum.dump(1);
  EXPECT_EQ(sum.at("skipped").get<uint64_t>(), 0u) << sum.dump(1);
  EXPECT_EQ(sum.at("mismatched").get<uint64_t>(), 0u) << sum.dump(1);
}

TEST_F(CharacterizeCli, ExportFioIologListed) {
  ShellRun h = sh(kRastro + " export --help");
  EXPECT_NE(h.out.find("fio-iolog"), std::string::npos) << h.out;
  ShellRun e = sh(kRastro + " export -f fio-iolog " + dir + "/two.rastro -o " + dir + "/t.iolog");
  ASSERT_EQ(e.status, 0) << e.out;
  EXPECT_EQ(slurp(dir + "/t.iolog").rfind("fio version 3 iolog\n", 0), 0u);
}

TEST_F(CharacterizeCli, BadInputIsAClearError) {
  std::ofstream(dir + "/bad.json") << "{\"rastro_workload_model\": 1, \"threads\": 2}";
  ShellRun s = sh(kRastro + " synth " + dir + "/bad.json -o " + dir + "/x.rastro");
  EXPECT_EQ(s.status, 1) << s.out;
  EXPECT_NE(s.out.find(dir + "/bad.json"), std::string::npos) << s.out;
  EXPECT_FALSE(fs::exists(dir + "/x.rastro"));
  ShellRun scale = sh(kRastro + " synth " + dir + "/bad.json --scale threads=0 -o " + dir + "/x.rastro");
  EXPECT_EQ(scale.status, 1) << scale.out;
  ShellRun v = sh(kRastro + " characterize " + dir + "/two.rastro --validate " + dir + "/two.rastro");
  EXPECT_EQ(v.status, 1) << v.out;
  EXPECT_NE(v.out.find("not written by `rastro synth`"), std::string::npos) << v.out;
  ShellRun missing = sh(kRastro + " characterize " + dir + "/none.rastro");
  EXPECT_NE(missing.status, 0);
  EXPECT_NE(missing.out.find("none.rastro"), std::string::npos) << missing.out;
}

}  // namespace
}  // namespace rastro::characterize
