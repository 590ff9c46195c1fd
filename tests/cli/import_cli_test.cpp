// `rastro import strace` and `rastro cat` end to end: exit codes, messages naming the line, no
// output file on fatal errors, and (where strace can run here) a fresh strace log of tar.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "cli_test_util.h"

namespace {

namespace fs = std::filesystem;

using rastro::cli_test::CliRun;
using rastro::cli_test::rastro;
using rastro::cli_test::slurp;

std::string fixture(const std::string& name) { return std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/strace/" + name; }

// Independent of rastro: syscall starts counted in the log text.
std::map<std::string, int> count_calls_in_log(const std::string& text) {
  static const std::regex re(R"(^(?:\[pid +\d+\] +|\d+ +)?\d+\.\d+ ([a-z_0-9]+)\()");
  std::map<std::string, int> out;
  std::istringstream in(text);
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, re)) ++out[m[1]];
  return out;
}

// Function column of `rastro cat` output.
std::map<std::string, int> count_cat_rows(const std::string& tsv) {
  std::map<std::string, int> out;
  std::istringstream in(tsv);
  bool header = true;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("#")) continue;
    if (header) {
      header = false;
      continue;
    }
    std::vector<std::string> f;
    std::istringstream ls(line);
    for (std::string x; std::getline(ls, x, '\t');) f.push_back(x);
    if (f.size() > 4) ++out[f[4]];
  }
  return out;
}

class ImportCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rastro_import_cli_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ImportCli, ImportThenCatGivesTheLogsCallsPerSyscall) {
  fs::path out = dir_ / "tar.rastro";
  CliRun r = rastro("import strace " + fixture("tar.log") + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("strace_malformed_lines"), std::string::npos) << "all counters are printed";
  ASSERT_TRUE(fs::exists(out));
  CliRun cat = rastro("cat " + out.string());
  ASSERT_EQ(cat.status, 0) << cat.err;
  EXPECT_EQ(count_cat_rows(cat.out), count_calls_in_log(slurp(fixture("tar.log"))));
  // TSV output via -o, and cat of a TSV trace gives the same text.
  fs::path tsv = dir_ / "tar.tsv";
  ASSERT_EQ(rastro("import strace -q " + fixture("tar.log") + " -o " + tsv.string()).status, 0);
  CliRun cat2 = rastro("cat " + tsv.string());
  EXPECT_EQ(cat2.out, cat.out);
  EXPECT_EQ(cat2.out, slurp(tsv));
  CliRun csv = rastro("cat --csv " + out.string());
  EXPECT_NE(csv.out.find("pid,tid,begin,end,function,args,rvalue"), std::string::npos);
}

TEST_F(ImportCli, PerPidFiles) {
  fs::path out = dir_ / "ff.rastro";
  CliRun r = rastro("import strace --ff " + fixture("ff.log") + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::map<std::string, int> expected;
  for (const char* suffix : {"8865", "8866", "8867"})
    for (auto& [k, v] : count_calls_in_log(slurp(fixture(std::string("ff.log.") + suffix)))) expected[k] += v;
  EXPECT_EQ(count_cat_rows(rastro("cat " + out.string()).out), expected);
}

TEST_F(ImportCli, MalformedLinesFailNamingTheLine) {
  fs::path log = dir_ / "bad.log";
  std::string text = slurp(fixture("cp_r.log"));
  size_t cut = text.find('\n', text.size() / 2);
  std::ofstream(log) << text.substr(0, cut + 1) << "\x01\x02 binary garbage \xff\n"
                     << "8803  1795317138.7 openat(AT_FDCWD, \"/trunc\n" << text.substr(cut + 1);
  int garbage_line = static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(cut + 1), '\n')) + 1;
  fs::path out = dir_ / "bad.rastro";
  CliRun r = rastro("import strace " + log.string() + " -o " + out.string());
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("bad.log:" + std::to_string(garbage_line) + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bad.log:" + std::to_string(garbage_line + 1) + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rastro: error:"), std::string::npos);
  EXPECT_TRUE(fs::exists(out)) << "the readable lines are kept";
}

TEST_F(ImportCli, FatalErrorsLeaveNoOutput) {
  fs::path out = dir_ / "none.rastro";
  CliRun r = rastro("import strace " + (dir_ / "does-not-exist.log").string() + " -o " + out.string());
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
  CliRun ff = rastro("import strace --ff " + (dir_ / "nothing").string() + " -o " + out.string());
  EXPECT_NE(ff.status, 0);
  EXPECT_FALSE(fs::exists(out));
  // Output into a missing directory: error, and no stray temporary file.
  CliRun nodir = rastro("import strace " + fixture("tar.log") + " -o " + (dir_ / "no/such/dir/t.rastro").string());
  EXPECT_NE(nodir.status, 0);
  CliRun cat = rastro("cat " + (dir_ / "does-not-exist.rastro").string());
  EXPECT_NE(cat.status, 0);
}

// The issue's acceptance check, on a log recorded now.
TEST_F(ImportCli, FreshStraceLogOfTar) {
  if (system("strace -V >/dev/null 2>&1") != 0) GTEST_SKIP() << "strace is not installed";
  fs::path log = dir_ / "tar.log";
  std::string cmd = "strace -f -ttt -T -y -o " + log.string() + " -- tar cf " + (dir_ / "x.tar").string() +
                    " /usr/share/doc/bash >/dev/null 2>&1";
  const int rc = system(cmd.c_str());
  if (!fs::exists(log) || fs::file_size(log) == 0) GTEST_SKIP() << "strace wrote no log: it cannot trace here (ptrace not permitted?)";
  ASSERT_EQ(rc, 0) << "strace/tar failed: " << cmd;
  fs::path out = dir_ / "tar.rastro";
  CliRun r = rastro("import strace " + log.string() + " -o " + out.string());
  ASSERT_EQ(r.status, 0) << r.err;
  auto expected = count_calls_in_log(slurp(log));
  EXPECT_GT(expected["openat"], 5);
  EXPECT_EQ(count_cat_rows(rastro("cat " + out.string()).out), expected);
}

}  // namespace
