// The one counter table (trace/stats.h): importers' and backends' counters are rows.
#include "trace/stats.h"

#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace rastro::trace {
namespace {

TEST(StatsTable, NamesAreUniqueAndEveryRowSaysWhatItMeans) {
  std::set<std::string_view> names;
  for (int i = 0; i < kNumStats; ++i) {
    const StatInfo& s = stat_info(static_cast<StatId>(i));
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_GT(s.description.size(), 20u) << s.name;
    EXPECT_EQ(stat_by_name(s.name), &s);
  }
  EXPECT_EQ(stat_by_name("no_such_counter"), nullptr);
}

TEST(StatsTable, CaptureLossReasonsAreDataLossRows) {
  // The lost_reasons keys the eBPF and SystemTap backends write (docs/ebpf.md, docs/capture.md).
  for (const char* key : {"ringbuf_full", "malformed_record", "untracked_tasks", "uring_untracked",
                          "fault_unresolved", "stap_malformed_lines", "strace_resumed_without_unfinished"}) {
    const StatInfo* s = stat_by_name(key);
    ASSERT_NE(s, nullptr) << key;
    EXPECT_EQ(s->severity, StatSeverity::kDataLoss) << key;
  }
}

TEST(StatsTable, SetLostReasonKeysByRowName) {
  nlohmann::json lost = nlohmann::json::object();
  set_lost_reason(lost, kStat_ringbuf_full, 0);
  set_lost_reason(lost, kStat_stap_malformed_lines, 4);
  EXPECT_EQ(lost, nlohmann::json::parse(R"({"ringbuf_full": 0, "stap_malformed_lines": 4})"));
}

TEST(StatsTable, PrintShowsEveryRowWithZeros) {
  Stats st;
  st[kStat_ringbuf_full] = 7;
  std::ostringstream out;
  st.print(out);
  const std::string text = out.str();
  EXPECT_NE(text.find("ringbuf_full"), std::string::npos);
  EXPECT_NE(text.find("untracked_tasks"), std::string::npos);
  EXPECT_NE(text.find(" 7  eBPF capture"), std::string::npos) << text;
  size_t lines = 0;
  for (char c : text) lines += c == '\n';
  EXPECT_EQ(lines, static_cast<size_t>(kNumStats));
  EXPECT_FALSE(st.has_errors());
}

}  // namespace
}  // namespace rastro::trace
