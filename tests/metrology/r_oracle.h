// Test helper: R as an oracle we did not write. Writes data to a temp file, runs an R script
// with Rscript, and parses what it prints (numbers with %.17g, one record per line).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace rastro::testing {

inline bool r_available() {
  static const bool ok = std::system("Rscript --version >/dev/null 2>&1") == 0;
  return ok;
}

// Skips the calling test (with the reason printed) when R is truly absent.
#define RASTRO_REQUIRE_R()                                                              \
  do {                                                                                  \
    if (!::rastro::testing::r_available())                                              \
      GTEST_SKIP() << "Rscript not installed (scripts/setup.sh installs r-base-core)"; \
  } while (0)

inline std::filesystem::path temp_path(const std::string& stem) {
  static std::atomic<int> counter{0};
  return std::filesystem::temp_directory_path() /
         ("rastro_" + stem + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One vector per line, values separated by spaces, printed with full precision.
inline std::string vectors_text(const std::vector<std::vector<double>>& vs) {
  std::string out;
  char buf[64];
  for (const auto& v : vs) {
    for (size_t i = 0; i < v.size(); ++i) {
      std::snprintf(buf, sizeof buf, "%s%.17g", i ? " " : "", v[i]);
      out += buf;
    }
    out += "\n";
  }
  return out;
}

// Runs `script` (which may refer to DATA, the path of a file holding `data`); returns stdout.
// Fails the test (ADD_FAILURE) when R exits non-zero.
inline std::string run_r(const std::string& script, const std::string& data = "") {
  const auto dir = temp_path("r");
  std::filesystem::create_directories(dir);
  const auto data_path = dir / "data.txt";
  const auto script_path = dir / "script.R";
  const auto out_path = dir / "out.txt";
  write_file(data_path, data);
  write_file(script_path, "DATA <- '" + data_path.string() + "'\n" +
                              "f17 <- function(x) paste(sprintf('%.17g', x), collapse = ' ')\n" + script);
  const std::string cmd = "Rscript --vanilla " + script_path.string() + " > " + out_path.string() + " 2>&1";
  const int rc = std::system(cmd.c_str());
  std::string out = read_file(out_path);
  if (rc != 0) ADD_FAILURE() << "Rscript failed (" << rc << "):\n" << out;
  std::filesystem::remove_all(dir);
  return out;
}

// Parses lines of numbers ("NA"/"NaN" → NaN).
inline std::vector<std::vector<double>> parse_rows(const std::string& text) {
  std::vector<std::vector<double>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::vector<double> row;
    std::string tok;
    while (ls >> tok) row.push_back(tok == "NA" || tok == "NaN" ? NAN : std::strtod(tok.c_str(), nullptr));
    rows.push_back(row);
  }
  return rows;
}

// |a − b| <= rel · max(|a|, |b|), or both tiny (|a − b| <= abs_floor).
inline ::testing::AssertionResult close_rel(double a, double b, double rel, double abs_floor = 0) {
  const double d = std::fabs(a - b);
  if (d <= rel * std::max(std::fabs(a), std::fabs(b)) || d <= abs_floor) return ::testing::AssertionSuccess();
  char buf[160];
  std::snprintf(buf, sizeof buf, "%.17g vs R %.17g (rel err %.3g)", a, b, d / std::max(std::fabs(a), std::fabs(b)));
  return ::testing::AssertionFailure() << buf;
}

}  // namespace rastro::testing
