// The plan's outputs (JSON, Graphviz) and inference over a trace that went through a file.
#include <cstdio>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "replay/passes/replay_passes.h"
#include "replay/plan/plan_dot.h"
#include "replay/plan/plan_json.h"
#include "tests/replay/trace_builder_plan.h"
#include "trace/io/trace_io.h"

namespace rastro::replay {
namespace {

using testing::PlanTraceBuilder;

trace::Trace small_trace() {
  PlanTraceBuilder b;
  b.add(7, 7, 100, 200, "openat", {-100, "/d/f\"q", 0100 | 02, 0644}, 3);
  b.add(7, 8, 300, 400, "pwrite64", {3, 0, 10, 0}, 10);
  b.add(7, 7, 500, 600, "close", {3}, 0);
  return b.take();
}

TEST(PlanOutput, JsonHasRequestsDepsKindsAndThreads) {
  auto r = infer_plan(small_trace(), Ordering::kFs);
  ASSERT_TRUE(r.ok());
  std::ostringstream out;
  write_plan_json(out, r.value());
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["format"], "rastro-plan");
  EXPECT_EQ(j["ordering"], "fs");
  ASSERT_EQ(j["requests"].size(), 3u);
  EXPECT_EQ(j["requests"][0]["function"], "openat");
  EXPECT_EQ(j["requests"][0]["paths"][0], "/d/f\"q");
  EXPECT_EQ(j["requests"][1]["deps"], nlohmann::json::parse(R"([[0,"fd-stage"]])"));
  // close waits for the other thread's write; its own open is implied by thread order.
  EXPECT_EQ(j["requests"][2]["deps"], nlohmann::json::parse(R"([[0,"thread"],[1,"fd-stage"]])"));
  EXPECT_EQ(j["threads"].size(), 2u);
  EXPECT_EQ(j["threads"][0]["requests"], nlohmann::json::parse("[0,2]"));
  EXPECT_EQ(j["figures"]["edges_by_kind"]["fd-stage"], 2);
  EXPECT_EQ(j["requests"][1]["begin_ns"], 200);  // relative to the first request
  // Program order is written, counted and drawn, but not stored (replay/plan/thread_order.h).
  EXPECT_EQ(j["figures"]["edges_by_kind"]["thread"], 1);
  for (const Dep& d : r.value().deps) EXPECT_NE(d.kind, EdgeKind::kThread) << "request " << d.request;
  EXPECT_EQ(r.value().deps.size(), 2u);
}

TEST(PlanOutput, DotColoursEdgesByKind) {
  auto r = infer_plan(small_trace(), Ordering::kFs);
  ASSERT_TRUE(r.ok());
  std::ostringstream out;
  write_plan_dot(out, r.value());
  const std::string s = out.str();
  EXPECT_NE(s.find("digraph plan {"), std::string::npos);
  EXPECT_NE(s.find("r0 -> r1 [color=blue"), std::string::npos) << s;
  EXPECT_NE(s.find("r0 -> r2 [color=gray50"), std::string::npos) << s;
  EXPECT_NE(s.find("/d/f\\\"q"), std::string::npos);  // quotes escaped in labels
}

TEST(PlanOutput, InferenceIsTheSameAfterATextRoundTrip) {
  auto direct = infer_plan(small_trace(), Ordering::kFs);
  ASSERT_TRUE(direct.ok());
  const std::string path = ::testing::TempDir() + "/plan_roundtrip.tsv";
  trace::write_trace(path, small_trace());
  auto again = infer_plan(trace::read_trace(path), Ordering::kFs);
  std::remove(path.c_str());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(testing::edges_of(direct.value()), testing::edges_of(again.value()));
}

}  // namespace
}  // namespace rastro::replay
