// rastro export / rastro stats, run as the user runs them.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cli_test_util.h"
#include <nlohmann/json.hpp>

#include "tests/trace/sample_trace.h"
#include "trace/io/trace_io.h"

namespace {

namespace fs = std::filesystem;
using rastro::trace::Trace;

using rastro::cli_test::CliRun;
using rastro::cli_test::ShellRun;

// Runs `rastro ARGS` with stderr folded into stdout: messages are checked alongside the output.
ShellRun rastro_merged(const std::string& args) { return rastro::cli_test::sh(rastro::cli_test::kRastro + " " + args); }

class ExportStatsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rastro-exportcli-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    trace_ = p("sample.rastro");
    rastro::trace::write_trace(trace_, rastro::trace::testing::sample_trace());
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string p(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
  std::string trace_;
};

TEST_F(ExportStatsCli, ExportAllFourFormats) {
  Trace original = rastro::trace::testing::sample_trace();
  for (const char* f : {"tsv", "csv"}) {
    std::string out = p(std::string("x.") + f);
    ShellRun r = rastro_merged(std::string("export -f ") + f + " " + trace_ + " -o " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    // binary -> text -> binary is lossless
    Trace back = rastro::trace::read_trace(out);
    ASSERT_EQ(back.events.size(), original.events.size()) << f;
    for (size_t i = 0; i < back.events.size(); ++i) {
      EXPECT_EQ(back.events[i].begin_ns, original.events[i].begin_ns);
      EXPECT_EQ(back.events[i].rvalue, original.events[i].rvalue);
      EXPECT_EQ(back.events[i].tid, original.events[i].tid);
    }
  }
  std::string json = p("x.json");
  ShellRun r = rastro_merged("export -f chrome " + trace_ + " -o " + json);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(json);
  nlohmann::json j = nlohmann::json::parse(in);
  size_t x = 0;
  for (auto& e : j["traceEvents"]) x += e["ph"] == "X";
  EXPECT_EQ(x, 6u);

  std::string db = p("x.db");
  r = rastro_merged("export -f sqlite " + trace_ + " -o " + db);
  ASSERT_EQ(r.status, 0) << r.out;
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT count(*), sum(bytes) FROM events", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(s, 0), 6);
  EXPECT_EQ(sqlite3_column_int64(s, 1), 4106);
  sqlite3_finalize(s);
  sqlite3_close(h);
}

// The scheduling an eBPF capture measured — in the call and in the gap before it — reaches the
// SQLite and Chrome exports; an event that measured none has NULL there, not 0.
TEST_F(ExportStatsCli, OffCpuTimeInAndBeforeACallIsExported) {
  Trace t = rastro::trace::testing::sample_trace();
  t.events[1].flags |= rastro::trace::kEventOffCpu;
  t.events[1].offcpu_ns = 700;
  t.events[1].vol_switches = 1;
  t.events[1].gap_offcpu_ns = 5'000'000;
  rastro::trace::write_trace(trace_, t);
  const std::string db = p("sched.db");
  ShellRun r = rastro_merged("export -f sqlite " + trace_ + " -o " + db);
  ASSERT_EQ(r.status, 0) << r.out;
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(h, "SELECT count(gap_offcpu_ns), sum(gap_offcpu_ns), sum(offcpu_ns) FROM events", -1,
                               &s, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(s, 0), 1);  // the five others measured nothing: NULL
  EXPECT_EQ(sqlite3_column_int64(s, 1), 5'000'000);
  EXPECT_EQ(sqlite3_column_int64(s, 2), 700);
  sqlite3_finalize(s);
  sqlite3_close(h);

  const std::string json = p("sched.json");
  r = rastro_merged("export -f chrome " + trace_ + " -o " + json);
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(json);
  const nlohmann::json j = nlohmann::json::parse(in);
  int measured = 0;
  for (const auto& e : j["traceEvents"])
    if (e.contains("args") && e["args"].contains("gap_offcpu_ns")) {
      EXPECT_EQ(e["args"]["gap_offcpu_ns"], 5'000'000);
      ++measured;
    }
  EXPECT_EQ(measured, 1);
}

TEST_F(ExportStatsCli, ExportErrors) {
  ShellRun r = rastro_merged("export -f nope " + trace_ + " -o " + p("o"));
  EXPECT_NE(r.status, 0);
  std::string garbage = p("garbage.rastro");
  std::ofstream(garbage) << "\x01\x02 not a trace at all";
  r = rastro_merged("export -f chrome " + garbage + " -o " + p("g.json"));
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find(garbage), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(p("g.json")));  // no partial output pretending to be complete
}

TEST_F(ExportStatsCli, StatsJson) {
  CliRun r = rastro::cli_test::rastro("stats --json " + trace_);  // stdout alone: the JSON
  ASSERT_EQ(r.status, 0) << r.out;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["events"], 6);
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["intact"], true);
  EXPECT_EQ(j["events_lost"], 2);
  EXPECT_EQ(j["total"]["bytes"], 4106);
  EXPECT_EQ(j["by_function"][0]["key"], "read");
  EXPECT_EQ(j["by_function"][0]["count"], 3);
  EXPECT_DOUBLE_EQ(j["by_function"][0]["mean_ns"].get<double>(), 175.0);
  EXPECT_EQ(j["by_thread"].size(), 2u);
  EXPECT_EQ(j["by_file"][0]["key"], "/a");
  EXPECT_EQ(j["concurrency"]["max"], 2);
  EXPECT_DOUBLE_EQ(j["concurrency"]["mean"].get<double>(), 1.5);
  EXPECT_EQ(j["concurrency"]["ecdf"].size(), 2u);
}

TEST_F(ExportStatsCli, StatsTextAndDamagedTrace) {
  ShellRun r = rastro_merged("stats " + trace_);
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* want : {"By function", "By thread", "By file", "Concurrency level", "lost 2",
                           "complete", "read", "1/11", "/a"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  // Cut the file before the trailer: the prefix is summarized, the damage reported, status 2.
  auto size = fs::file_size(trace_);
  fs::resize_file(trace_, size - 5);
  r = rastro_merged("stats " + trace_);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("INCOMPLETE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DAMAGED"), std::string::npos) << r.out;
  r = rastro_merged("export -f tsv " + trace_ + " -o " + p("cut.tsv"));
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("intact prefix"), std::string::npos) << r.out;
}

}  // namespace
