// The passes' process seeds, fd keys (replay/passes/fd_keys.h) and initial file-system state
// (replay/passes/initial_state.h) against what the replay runtime computed at replay time before
// they moved into the Plan: golden files written by main at 2c68e48 (plan_fd_keys,
// plan_initial_state) from real strace logs (tests/fixtures/plan_golden/README.md says how).
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_json.h"
#include "trace/importers/strace/strace_import.h"
#include "trace/io/trace_sink.h"

namespace rastro::replay {
namespace {

std::string fixture(const std::string& rel) { return std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/" + rel; }

Plan plan_of_strace_log(const std::string& log) {
  std::ifstream in(fixture("strace/" + log), std::ios::binary);
  trace::MemorySink sink;
  trace::import_strace(in, log, sink, {});
  sink.finish();
  auto p = infer_plan(sink.take(), Ordering::kFs);
  EXPECT_TRUE(p.ok()) << p.error();
  return std::move(p.value());
}

nlohmann::json golden(const std::string& log) {
  std::ifstream in(fixture("plan_golden/" + log.substr(0, log.rfind('.')) + ".json"));
  EXPECT_TRUE(in.good()) << log;
  return nlohmann::json::parse(in);
}

class ReplayerDataGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplayerDataGolden, ProcessSeedsAndFdKeysEqualTheOldRuntimes) {
  const Plan plan = plan_of_strace_log(GetParam());
  const nlohmann::json g = golden(GetParam());
  ASSERT_GT(plan.requests.size(), 5u);
  const nlohmann::json mine = replayer_data_json(plan);
  EXPECT_EQ(mine["processes"], g["processes"]);
  EXPECT_EQ(plan.fd_keys.count, g["fd_key_count"].get<int32_t>());
  ASSERT_EQ(plan.fd_keys.keys.size(), plan.requests.size());
  // Every request the old code gave a key has the same keys; every other request has none.
  size_t with_keys = 0;
  for (const auto& row : g["fd_keys"]) {
    const auto r = row[0].get<size_t>();
    ASSERT_LT(r, plan.requests.size());
    for (size_t i = 0; i < 8; ++i) EXPECT_EQ(plan.fd_keys.keys[r][i], row[i + 1].get<int32_t>()) << "request " << r << " slot " << i;
  }
  // Calls whose table row was added after the goldens (the old code knew none of their fd
  // arguments) are compared with nothing.
  std::set<std::string> added;
  std::ifstream rows(fixture("plan_golden/rows_added_since_golden.txt"));
  for (std::string name; std::getline(rows, name);) added.insert(name);
  ASSERT_FALSE(added.empty());
  for (size_t r = 0; r < plan.requests.size(); ++r) {
    if (added.count(std::string(trace::function_name(plan.trace.events[plan.requests[r].event], plan.trace.strings))))
      continue;
    for (int32_t x : plan.fd_keys.keys[r]) with_keys += x >= 0;
  }
  size_t golden_keys = 0;
  for (const auto& row : g["fd_keys"])
    for (size_t i = 1; i < row.size(); ++i) golden_keys += row[i].get<int32_t>() >= 0;
  EXPECT_EQ(with_keys, golden_keys);
  EXPECT_GT(golden_keys, 0u);
}

TEST_P(ReplayerDataGolden, InitialStateEqualsTheOldRuntimes) {
  const Plan plan = plan_of_strace_log(GetParam());
  const nlohmann::json g = golden(GetParam())["initial_state"];
  EXPECT_EQ(plan.init.bytes, g["bytes"].get<uint64_t>());
  ASSERT_EQ(plan.init.entries.size(), g["entries"].size());
  for (size_t i = 0; i < plan.init.entries.size(); ++i) {
    const InitEntry& e = plan.init.entries[i];
    const auto& x = g["entries"][i];
    EXPECT_EQ(static_cast<int>(e.kind), x["kind"].get<int>()) << e.path;
    EXPECT_EQ(e.path, x["path"].get<std::string>());
    EXPECT_EQ(e.size, x["size"].get<uint64_t>()) << e.path;
    EXPECT_EQ(e.mode, x["mode"].get<mode_t>()) << e.path;
    EXPECT_EQ(e.target, x["target"].get<std::string>()) << e.path;
  }
}

INSTANTIATE_TEST_SUITE_P(RealStraceLogs, ReplayerDataGolden,
                         ::testing::Values("cp_r.log", "git_init.log", "mt_writer.log", "ns_times.log", "pid_prefix.log",
                                           "sqlite3.log", "tar.log", "edge/clone_threads.log"),
                         [](const auto& param_info) {
                           std::string n = param_info.param.substr(0, param_info.param.rfind('.'));
                           for (char& c : n) c = (c == '/' ? '_' : c);
                           return n;
                         });

}  // namespace
}  // namespace rastro::replay
