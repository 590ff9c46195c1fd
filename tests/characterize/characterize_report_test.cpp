#include "characterize/characterize_report.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "characterize/workload_synthesizer.h"
#include "tests/characterize/two_class_trace.h"

namespace rastro::characterize {
namespace {

namespace fs = std::filesystem;

TEST(CharacterizeReport, TablesPlotsAndValidation) {
  Characterization c = characterize(testing::two_class_trace(6, 3), "two.rastro");
  SynthOptions o;
  o.threads = 30;
  ValidationReport v = validate_synthetic(c.model, synthesize(c.model, o));
  std::string dir = fs::temp_directory_path() / ("rastro-char-report-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ReportFiles f = write_report(dir, c, &v);
  std::ifstream in(f.markdown);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string md = ss.str();
  EXPECT_NE(md.find("| c0 | 6 | 0.667 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| c1 | 3 | 0.333 |"), std::string::npos) << md;
  EXPECT_NE(md.find("![Read size ECDF](read_size.svg)"), std::string::npos);
  EXPECT_NE(md.find("All features within tolerance."), std::string::npos) << md;
  for (const char* svg : {"mix.svg", "read_size.svg", "write_size.svg", "think_time.svg", "file_size.svg"}) {
    ASSERT_TRUE(fs::exists(fs::path(dir) / svg)) << svg;
    EXPECT_GT(fs::file_size(fs::path(dir) / svg), 200u) << svg;
  }
  EXPECT_TRUE(fs::exists(f.html));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rastro::characterize
