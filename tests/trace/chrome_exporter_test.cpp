#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "tests/trace/random_trace.h"
#include "tests/trace/sample_trace.h"
#include "trace/exporters/export_util.h"
#include "trace/exporters/exporter.h"

namespace rastro::trace {
namespace {

namespace fs = std::filesystem;

std::string temp_file(const std::string& name) {
  return (fs::temp_directory_path() / ("rastro_chrome_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

nlohmann::json export_and_parse(const Trace& t) {
  std::string p = temp_file("t.json");
  find_exporter("chrome")->write(t, p);
  std::ifstream in(p);
  nlohmann::json j = nlohmann::json::parse(in);  // strict: throws on invalid JSON or UTF-8
  fs::remove(p);
  return j;
}

TEST(ChromeExporter, SampleTraceEventsAndTracks) {
  Trace t = testing::sample_trace();
  nlohmann::json j = export_and_parse(t);
  ASSERT_TRUE(j["traceEvents"].is_array());
  std::vector<nlohmann::json> x, meta;
  for (auto& e : j["traceEvents"]) (e["ph"] == "X" ? x : meta).push_back(e);
  ASSERT_EQ(x.size(), t.events.size());
  // One process track and two thread tracks, named.
  ASSERT_EQ(meta.size(), 3u);
  EXPECT_EQ(meta[0]["name"], "process_name");
  EXPECT_EQ(meta[0]["pid"], 1);
  EXPECT_EQ(meta[1]["name"], "thread_name");
  EXPECT_EQ(meta[1]["tid"], 10);
  EXPECT_EQ(meta[1]["args"]["name"], "tid 10");
  EXPECT_EQ(meta[2]["tid"], 11);

  const auto& read = x[1];
  EXPECT_EQ(read["name"], "read");
  EXPECT_EQ(read["pid"], 1);
  EXPECT_EQ(read["tid"], 10);
  EXPECT_DOUBLE_EQ(read["ts"].get<double>(), 0.2);   // µs from the first begin
  EXPECT_DOUBLE_EQ(read["dur"].get<double>(), 0.3);
  EXPECT_EQ(read["args"]["seq"], 1);
  EXPECT_EQ(read["args"]["fd"], 3);
  EXPECT_EQ(read["args"]["fd_path"], "/a");
  EXPECT_EQ(read["args"]["count"], 4096);
  EXPECT_EQ(read["args"]["rvalue"], 4096);
  EXPECT_FALSE(read["args"].contains("buf"));
  EXPECT_EQ(x[0]["args"]["path"], "/a");
  EXPECT_EQ(x[0]["args"]["dirfd"], -100);
  EXPECT_EQ(x[2]["args"]["rvalue"], -11);
  EXPECT_EQ(x[2]["args"]["error"], "EAGAIN");
  EXPECT_DOUBLE_EQ(x[3]["dur"].get<double>(), 1.0);
  EXPECT_EQ(x[5]["args"]["unfinished"], true);
  EXPECT_FALSE(x[5]["args"].contains("rvalue"));
  EXPECT_EQ(j["otherData"]["backend"], "sample");
  EXPECT_EQ(j["otherData"]["events_lost"], 2);
  EXPECT_EQ(j["otherData"]["ts_origin_ns"], 0);
  EXPECT_EQ(j["displayTimeUnit"], "ns");
}

TEST(ChromeExporter, NanosecondsSurviveLargeTimestamps) {
  Trace t = testing::sample_trace();
  for (auto& e : t.events) {
    e.begin_ns += 123'456'789'012'345;
    e.end_ns += 123'456'789'012'345;
  }
  t.events[1].end_ns += 7;  // 307 ns
  nlohmann::json j = export_and_parse(t);
  std::vector<nlohmann::json> x;
  for (auto& e : j["traceEvents"])
    if (e["ph"] == "X") x.push_back(e);
  EXPECT_DOUBLE_EQ(x[1]["dur"].get<double>(), 0.307);
  EXPECT_EQ(j["otherData"]["ts_origin_ns"], 123'456'789'012'345);
}

// Random traces (NUL bytes, invalid UTF-8, every ArgType) still give valid JSON.
TEST(ChromeExporter, RandomTracesAreValidJson) {
  for (uint32_t seed : {1u, 2u}) {
    Trace t = testing::random_trace(2000, seed);
    nlohmann::json j;
    ASSERT_NO_THROW(j = export_and_parse(t));
    size_t x = 0;
    for (auto& e : j["traceEvents"]) x += e["ph"] == "X";
    EXPECT_EQ(x, t.events.size());
  }
}

TEST(ExportUtil, JsonStringEscaping) {
  std::string out;
  exporters::append_json_string(out, std::string("a\"b\\c\n\x01\xff\xc3\xa9", 10));
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\u0001\\u00ff\xc3\xa9\"");
  EXPECT_EQ(nlohmann::json::parse(out).get<std::string>(), "a\"b\\c\n\x01\xc3\xbf\xc3\xa9");
  EXPECT_TRUE(exporters::is_valid_utf8("\xc3\xa9"));
  EXPECT_FALSE(exporters::is_valid_utf8("\xc0\xaf"));  // overlong
  EXPECT_FALSE(exporters::is_valid_utf8("\xed\xa0\x80"));  // surrogate
}

TEST(Exporters, RegistryAndUnwritablePath) {
  std::vector<std::string> names;
  for (auto* e : all_exporters()) names.emplace_back(e->name());
  EXPECT_EQ(names, (std::vector<std::string>{"tsv", "csv", "chrome", "sqlite", "fio-iolog"}));
  EXPECT_EQ(find_exporter("nope"), nullptr);
  for (auto* e : all_exporters())
    EXPECT_THROW(e->write(testing::sample_trace(), "/nonexistent-dir/x.out"), Error) << e->name();
}

}  // namespace
}  // namespace rastro::trace
