// A tiny real capture campaign through the CLI: the catalogue files exist with every section, and
// their numbers are what `rastro analyze` computes from the stored results.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_test_util.h"
#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace {

// LeakSanitizer's exit-time check ptrace-attaches to the process, which spins forever when the
// process is already being traced by `rastro capture -b ptrace` (sanitizer builds only).
std::string run(const std::string& cmd, int* status) {
  auto r = rastro::cli_test::sh("{ ASAN_OPTIONS=detect_leaks=0 " + cmd + " 2>/dev/null; }");  // stdout only
  *status = r.status;
  return r.out;
}

using rastro::cli_test::slurp;

TEST(ValidateCli, TinyCaptureCampaignProducesAConsistentCatalogue) {
  fs::path dir = fs::temp_directory_path() / ("rastro-validate-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string instruments = geteuid() == 0 ? R"("reference","ptrace","strace","ebpf")" : R"("reference","ptrace","strace")";
  std::ofstream(dir / "c.json") << R"({"kind":"capture","types":["sr"],"levels":[1],"backgrounds":[0],"replicates":3,)"
                                << R"("ops":100,"file_size":1048576,"drop_caches":false,"instruments":[)" << instruments << "]}";
  int st = 0;
  run(std::string(RASTRO_EXE) + " validate capture --no-progress --config " + (dir / "c.json").string() + " -o " + (dir / "out").string(), &st);
  ASSERT_EQ(st, 0);
  for (const char* f : {"results.sqlite", "results.csv", "catalogue.json", "catalogue.md", "index.html"})
    EXPECT_TRUE(fs::exists(dir / "out" / f)) << f;
  std::string html = slurp((dir / "out/index.html").string());
  for (const char* section : {"Catalogue", "Uncertainty components", "Measured vs reference", "Calibration", "Selectivity",
                              "Normality", "Concurrency", "Timing policies", "<svg"})
    EXPECT_NE(html.find(section), std::string::npos) << section;
  std::string md = slurp((dir / "out/catalogue.md").string());
  EXPECT_NE(md.find("Measurement range"), std::string::npos);
  EXPECT_NE(md.find("Experimental environment"), std::string::npos);

  auto cat = nlohmann::json::parse(slurp((dir / "out/catalogue.json").string()));
  std::string analyzed = run(std::string(RASTRO_EXE) + " analyze --json " + (dir / "out/results.csv").string(), &st);
  ASSERT_EQ(st, 0);
  auto entries = nlohmann::json::parse(analyzed);
  size_t compared = 0;
  for (const auto& inst : cat["instruments"]) {
    EXPECT_EQ(inst["status"], "measured") << inst.dump();
    for (const auto& e : inst["entries"]) {
      for (const auto& a : entries) {
        if (a["instrument"] != e["instrument"] || a["type"] != e["type"] || a["level"] != e["level"]) continue;
        for (const char* k : {"mean", "reference_mean", "precision_rel", "bias_rel", "U_rel"}) {
          ASSERT_TRUE(a[k].is_number() && e[k].is_number()) << k;
          EXPECT_NEAR(a[k].get<double>(), e[k].get<double>(), 1e-9 * std::fabs(a[k].get<double>()) + 1e-12) << k;
        }
        ++compared;
      }
    }
  }
  EXPECT_EQ(compared, geteuid() == 0 ? 4u : 3u);
  fs::remove_all(dir);
}

}  // namespace
