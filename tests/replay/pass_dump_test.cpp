// `rastro infer --dump-after=<pass>`: each pass's dump shows what that pass added.
#include "replay/passes/pass_dump.h"

#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "replay/passes/replay_passes.h"
#include "tests/replay/trace_builder_plan.h"

namespace rastro::replay {
namespace {

using testing::PlanTraceBuilder;

std::map<std::string, std::string> dumps_of_every_pass() {
  PlanTraceBuilder b;
  b.add(7, 7, 100, 200, "openat", {-100, "/d/f", 0100 | 02, 0644}, 3);
  b.add(7, 8, 300, 400, "pwrite64", {3, 0, 10, 0}, 10);
  b.add(7, 7, 500, 600, "close", {3}, 0);
  std::map<std::string, std::string> dumps;
  auto r = infer_plan(b.take(), Ordering::kFs, [&](const std::string& pass, const InferContext& ctx) {
    std::ostringstream out;
    dump_after_pass(out, pass, ctx);
    dumps[pass] = out.str();
  });
  EXPECT_TRUE(r.ok());
  return dumps;
}

TEST(PassDump, TheHookSeesEveryPassInOrder) {
  const auto dumps = dumps_of_every_pass();
  std::string names;
  for (const auto& n : AllReplayPasses().names()) {
    names += n + " ";
    EXPECT_TRUE(dumps.count(n)) << n << " was not dumped";
  }
  EXPECT_EQ(dumps.size(), AllReplayPasses().names().size()) << names;
}

TEST(PassDump, EachPassShowsWhatItWorkedOut) {
  const auto dumps = dumps_of_every_pass();
  const std::string& parse = dumps.at("parse");
  EXPECT_NE(parse.find("# after pass parse\n"), std::string::npos) << parse;
  EXPECT_NE(parse.find("0\tevent 0\tthread 0\topenat\treplay"), std::string::npos) << parse;
  EXPECT_EQ(parse.find("path /d/f"), std::string::npos) << "paths are not resolved yet:\n" << parse;

  const std::string& paths = dumps.at("resolve_paths");
  EXPECT_NE(paths.find("openat\treplay\tpath /d/f"), std::string::npos) << paths;
  EXPECT_EQ(paths.find("\tfd "), std::string::npos) << "fds are not resolved yet:\n" << paths;

  const std::string& fds = dumps.at("resolve_fds");
  EXPECT_NE(fds.find("openat\treplay\tpath /d/f\tfd create 0"), std::string::npos) << fds;
  EXPECT_NE(fds.find("close\treplay\tfd use 0\tfd close 0"), std::string::npos) << fds;

  const std::string& order = dumps.at("infer_order");
  EXPECT_NE(order.find("pwrite64\treplay\tfd use 0\tafter 0 fd-stage"), std::string::npos) << order;

  const std::string& plan = dumps.at("plan");
  const auto json = nlohmann::json::parse(plan.substr(plan.find('\n') + 1));
  EXPECT_EQ(json["requests"].size(), 3u);
}

}  // namespace
}  // namespace rastro::replay
