// read_plan_trace (replay/plan/plan_trace.h) packs the same trace read_trace returns, and a
// damaged trace is reported the same way.
#include "replay/plan/plan_trace.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "trace/io/trace_io.h"

namespace rastro::replay {
namespace {

std::string characterize_fixture(const std::string& name) { return std::string(RASTRO_SOURCE_DIR) + "/tests/fixtures/characterize/" + name; }

TEST(PlanTrace, ReadsWhatReadTraceReads) {
  for (const std::string name : {"fileserver.rastro", "git_commit.rastro", "tar_doc.rastro"}) {
    trace::ReadReport want_rep, got_rep;
    const trace::Trace t = trace::read_trace(characterize_fixture(name), &want_rep);
    const PlanTrace p = read_plan_trace(characterize_fixture(name), &got_rep);
    ASSERT_EQ(p.events.size(), t.events.size()) << name;
    for (size_t i = 0; i < t.events.size(); ++i) ASSERT_EQ(p.events[i], t.events[i]) << name << " event " << i;
    ASSERT_EQ(p.strings.size(), t.strings.size());
    for (trace::StrId s = 0; s < t.strings.size(); ++s) ASSERT_EQ(p.str(s), t.str(s));
    EXPECT_EQ(p.header.to_json(), t.header.to_json());
    EXPECT_EQ(got_rep.intact, want_rep.intact);
    // The in-memory conversion packs the same.
    const PlanTrace q(t);
    for (size_t i = 0; i < t.events.size(); i += 7) ASSERT_EQ(q.events[i], t.events[i]);
  }
}

TEST(PlanTrace, ACutTraceIsItsIntactPrefixAsReadTraceSays) {
  const std::string src = characterize_fixture("git_commit.rastro");
  const std::string cut = ::testing::TempDir() + "/plan_trace_cut.rastro";
  {
    std::ifstream in(src, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() * 2 / 3));
  }
  trace::ReadReport want_rep, got_rep;
  const trace::Trace t = trace::read_trace(cut, &want_rep);
  const PlanTrace p = read_plan_trace(cut, &got_rep);
  EXPECT_FALSE(got_rep.intact);
  EXPECT_EQ(got_rep.intact, want_rep.intact);
  EXPECT_EQ(got_rep.problem, want_rep.problem);
  ASSERT_EQ(p.events.size(), t.events.size());
  for (size_t i = 0; i < t.events.size(); ++i) ASSERT_EQ(p.events[i], t.events[i]);
  std::filesystem::remove(cut);
}

TEST(PlanTrace, AMissingFileIsAnErrorNamingIt) {
  try {
    read_plan_trace("/nonexistent/x.rastro");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.rastro"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace rastro::replay
