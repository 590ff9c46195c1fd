#include "characterize/filebench_workload_writer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "characterize/workload_characterizer.h"
#include "tests/characterize/namespace_cycle_trace.h"
#include "tests/characterize/two_class_trace.h"

namespace rastro::characterize {
namespace {

// The flowops Filebench 1.5 knows (flowop_library.c's table, filebench/filebench on GitHub).
const std::set<std::string> kFilebenchFlowops = {
    "write",        "read",        "block",         "wakeup",    "semblock",      "sempost",        "hog",
    "delay",        "eventlimit",  "bwlimit",       "iopslimit", "opslimit",      "finishoncount",  "finishonbytes",
    "openfile",     "createfile",  "closefile",     "makedir",   "removedir",     "listdir",        "fsync",
    "fsyncset",     "statfile",    "readwholefile", "appendfile", "appendfilerand", "deletefile",   "writewholefile",
    "print",        "testrandvar"};

TEST(FilebenchWorkloadWriter, Randtable) {
  std::vector<double> v = {4096, 4096, 4096, 65536};
  EXPECT_EQ(filebench_randtable(summarize(v)), "{{75, 4096, 4096}, {25, 65536, 65536}}");
  std::vector<double> many;
  for (int i = 1; i <= 1000; ++i) many.push_back(i);
  std::string deciles = filebench_randtable(summarize(many));
  EXPECT_EQ(deciles.substr(0, 18), "{{10, 1, 101}, {10") << deciles;
}

// What Filebench's parser needs of a workload (workloads/*.f in its repository): known flowops,
// every $variable defined before use, tabular randvars whose percentages total exactly 100, an
// open before every use of fd=1 and a close before the next open, and names unique.
void expect_well_formed(const std::string& f) {
  std::set<std::string> defined, names;
  bool open = false;
  std::istringstream in(f);
  std::string line;
  const std::regex var(R"(\$([A-Za-z0-9_]+))"), define(R"(^(set |define randvar name=)\$([A-Za-z0-9_]+))");
  const std::regex entry(R"(\{(\d+), (\d+), (\d+)\})"), flowop(R"(^    flowop (\w+) name=([\w-]+),)");
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::smatch m;
    if (std::regex_search(line, m, define)) defined.insert(m[2]);
    for (auto it = std::sregex_iterator(line.begin(), line.end(), var); it != std::sregex_iterator(); ++it)
      EXPECT_TRUE(defined.count((*it)[1])) << "undefined $" << (*it)[1] << " in: " << line;
    if (line.find("type=tabular") != std::string::npos) {
      uint64_t total = 0;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), entry); it != std::sregex_iterator(); ++it) {
        total += std::stoull((*it)[1]);
        EXPECT_LE(std::stoull((*it)[2]), std::stoull((*it)[3])) << line;
      }
      EXPECT_EQ(total, 100u) << line;
    }
    if (line.rfind("    flowop ", 0) == 0) {
      ASSERT_TRUE(std::regex_search(line, m, flowop)) << line;
      const std::string op = m[1];
      EXPECT_TRUE(kFilebenchFlowops.count(op)) << op;
      EXPECT_TRUE(names.insert(m[2]).second) << "duplicate name " << m[2];
      if (op == "openfile" || op == "createfile") {
        EXPECT_FALSE(open) << "open without a close before: " << line;
        open = true;
      } else if (op == "closefile") {
        EXPECT_TRUE(open) << line;
        open = false;
      } else if (line.find("fd=1") != std::string::npos) {
        EXPECT_TRUE(open) << "fd=1 used while closed: " << line;
      }
    }
  }
  EXPECT_FALSE(open);
  EXPECT_NE(f.find("\nrun $runtime\n"), std::string::npos);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(FilebenchWorkloadWriter, FileserverLikeModelKeepsItsCycle) {
  WorkloadModel m = characterize(testing::fileserver_like_trace(3, 60), "fs-like").model;
  std::string f = filebench_workload_text(m, {});
  expect_well_formed(f);
  // One create, one append and one whole-file read per cycle, as the trace; one unlink and one
  // stat per cycle (a third of the opens each).
  EXPECT_EQ(count(f, "flowop createfile "), 1u) << f;
  EXPECT_EQ(count(f, "flowop appendfile "), 1u) << f;
  EXPECT_EQ(count(f, "flowop readwholefile "), 1u) << f;
  EXPECT_EQ(count(f, "flowop deletefile "), 1u) << f;
  EXPECT_EQ(count(f, "flowop statfile "), 1u) << f;
  EXPECT_NE(f.find("thread name=c0thread,memsize=10m,instances=3\n"), std::string::npos) << f;
  // Shared files: one fileset of the trace's 40 files, sizes from the model's file sizes.
  EXPECT_NE(f.find("define fileset name=c0files,path=$dir,size=$c0_filesize,entries=40,"), std::string::npos) << f;
  EXPECT_NE(f.find("define randvar name=$c0_filesize,type=tabular,"), std::string::npos) << f;
}

TEST(FilebenchWorkloadWriter, TwoClassesAndScale) {
  WorkloadModel m = characterize(testing::two_class_trace(6, 3), "two").model;
  SynthOptions o;
  o.threads = 18;
  o.duration_s = 5;
  std::string f = filebench_workload_text(m, o);
  expect_well_formed(f);
  EXPECT_NE(f.find("thread name=c0thread,memsize=10m,instances=12\n"), std::string::npos) << f;
  EXPECT_NE(f.find("thread name=c1thread,memsize=10m,instances=6\n"), std::string::npos) << f;
  EXPECT_NE(f.find("set $runtime=5\n"), std::string::npos);
  // The writers: random 4 KiB writes, each followed by an fsync; their files are their own.
  EXPECT_NE(f.find("iosize=$c1_write,iters=10\n"), std::string::npos) << f;
  EXPECT_EQ(count(f, "flowop fsync "), 10u) << f;
  EXPECT_NE(f.find("define fileset name=c1files,path=$dir,size=$c1_filesize,entries=6,"), std::string::npos) << f;
  const std::string path = ::testing::TempDir() + "/rastro-fb-" + std::to_string(getpid()) + ".f";
  write_filebench_workload(path, m, o);
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), f);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace rastro::characterize
