// The replayers' part of the plan JSON (replay/plan/plan_json.h): what `rastro infer -o` writes
// and the compiled replayer embeds (as CBOR) must read back to the same process seeds, fd key
// count and initial state.
#include "replay/plan/plan_json.h"

#include <sstream>

#include <gtest/gtest.h>

#include "common/error.h"
#include "replay/passes/replay_passes.h"
#include "tests/replay/trace_builder_plan.h"

namespace rastro::replay {
namespace {

Plan small_plan() {
  testing::PlanTraceBuilder b;
  b.add(7, 7, 100, 200, "openat", {-100, "/d/f", 0, 0}, 3);
  b.add(7, 8, 300, 400, "pread64", {3, 0, 10, 0}, 10);
  b.add(7, 7, 500, 600, "close", {3}, 0);
  b.add(7, 7, 700, 800, "write", {1, 0, 5}, 5);  // inherited stdout
  b.add(7, 7, 900, 950, "readlink", {"/d/l", 0, 64}, 12);
  auto p = infer_plan(b.take(), Ordering::kFs);
  EXPECT_TRUE(p.ok()) << p.error();
  return std::move(p.value());
}

TEST(PlanJson, ReplayerDataRoundTripsByteForByteThroughCbor) {
  Plan plan = small_plan();
  ASSERT_EQ(plan.processes.size(), 1u);
  EXPECT_EQ(plan.processes[0].inherited_traced_fds, std::vector<int>{1});
  ASSERT_FALSE(plan.init.entries.empty());
  plan.init.entries[0].path = "/d\xff\xfe";  // not UTF-8: CBOR keeps the bytes
  plan.processes[0].cwd = "/c\x80";
  const std::vector<uint8_t> cbor = nlohmann::json::to_cbor(replayer_data_json(plan));
  Plan back;
  read_replayer_data_json(nlohmann::json::from_cbor(cbor), &back);
  EXPECT_EQ(back.fd_keys.count, plan.fd_keys.count);
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_EQ(back.processes[0].cwd, "/c\x80");
  EXPECT_EQ(back.processes[0].inherited_fds, plan.processes[0].inherited_fds);
  EXPECT_EQ(back.processes[0].inherited_traced_fds, std::vector<int>{1});
  EXPECT_EQ(back.processes[0].tids, (std::vector<int32_t>{7, 8}));
  EXPECT_EQ(back.init.bytes, plan.init.bytes);
  ASSERT_EQ(back.init.entries.size(), plan.init.entries.size());
  for (size_t i = 0; i < back.init.entries.size(); ++i) {
    EXPECT_EQ(back.init.entries[i].kind, plan.init.entries[i].kind);
    EXPECT_EQ(back.init.entries[i].path, plan.init.entries[i].path);
    EXPECT_EQ(back.init.entries[i].size, plan.init.entries[i].size);
    EXPECT_EQ(back.init.entries[i].mode, plan.init.entries[i].mode);
    EXPECT_EQ(back.init.entries[i].target, plan.init.entries[i].target);
  }
}

TEST(PlanJson, PlanFileCarriesFdKeysProcessesAndInitialState) {
  const Plan plan = small_plan();
  std::ostringstream out;
  write_plan_json(out, plan);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["version"], 2);
  // openat returns fd 3 as a new lifetime; pread64 and close use that same lifetime.
  const auto k = j["requests"][0]["fd_keys"];
  ASSERT_EQ(k.size(), 8u);
  const int32_t key = k[6].get<int32_t>();
  EXPECT_GE(key, 0);
  EXPECT_EQ(j["requests"][1]["fd_keys"][0], key);
  EXPECT_EQ(j["requests"][2]["fd_keys"][0], key);
  EXPECT_FALSE(j["requests"][4].contains("fd_keys"));  // readlink touches no fd
  EXPECT_EQ(j["processes"][0]["inherited_fds"], nlohmann::json::parse("[1]"));
  EXPECT_EQ(j["fd_key_count"], plan.fd_keys.count);
  bool file = false, link = false;
  for (const auto& e : j["initial_state"]["entries"]) {
    file |= e["kind"] == "file" && e["path"] == "/d/f" && e["size"] == 10;
    link |= e["kind"] == "symlink" && e["path"] == "/d/l" && e["target"].get<std::string>().size() == 12;
  }
  EXPECT_TRUE(file) << j["initial_state"].dump();
  EXPECT_TRUE(link) << j["initial_state"].dump();
}

TEST(PlanJson, MalformedReplayerDataNamesTheField) {
  Plan p;
  try {
    read_replayer_data_json(nlohmann::json::parse(R"({"processes":[{"pid":1}],"fd_key_count":0,
                                                     "initial_state":{"bytes":0,"entries":[]}})"), &p);
    FAIL() << "accepted a process without cwd";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("\"cwd\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_replayer_data_json(nlohmann::json::parse(R"({"processes":[],"fd_key_count":0,
      "initial_state":{"bytes":0,"entries":[{"kind":"fifo","path":"/x"}]}})"), &p), Error);
  EXPECT_THROW(read_replayer_data_json(nlohmann::json::parse("[]"), &p), Error);
}

}  // namespace
}  // namespace rastro::replay
