// Replayed response times of an original and a synthetic trace compared per operation category:
// the per-replay means, and the 95 % interval of the difference as R computes it
// (t.test(c(20, 19, 21.5), c(10, 12, 11))$conf.int = [6.537589, 11.795744]).
#include "characterize/response_comparison.h"

#include <gtest/gtest.h>

#include "trace/syscalls/syscall_table.h"

namespace rastro::characterize {
namespace {

TEST(ResponseComparison, DifferenceAndIntervalAsR) {
  std::vector<std::map<OpCategory, double>> original = {{{OpCategory::kRead, 10}, {OpCategory::kOpen, 5}},
                                                        {{OpCategory::kRead, 12}, {OpCategory::kOpen, 5}},
                                                        {{OpCategory::kRead, 11}, {OpCategory::kOpen, 5}}};
  std::vector<std::map<OpCategory, double>> synthetic = {{{OpCategory::kRead, 20}, {OpCategory::kOpen, 5}},
                                                         {{OpCategory::kRead, 19}, {OpCategory::kOpen, 5}},
                                                         {{OpCategory::kRead, 21.5}, {OpCategory::kWrite, 3}}};
  ResponseComparison c = compare_responses(original, synthetic);
  EXPECT_EQ(c.replays, 3u);
  ASSERT_EQ(c.categories.size(), 2u);  // write: only the synthetic trace has it
  const CategoryResponse& read = c.categories[0];
  EXPECT_EQ(read.category, OpCategory::kRead);
  EXPECT_NEAR(*read.difference_us, 20.1666667 - 11, 1e-6);
  EXPECT_NEAR(*read.ci_low_us, 6.537589, 1e-5);
  EXPECT_NEAR(*read.ci_high_us, 11.795744, 1e-5);
  EXPECT_FALSE(read.within());
  // Constant open times on both sides: no interval, and the reason is given.
  const CategoryResponse& open = c.categories[1];
  EXPECT_FALSE(open.ci_low_us.has_value());
  EXPECT_FALSE(open.why_undefined.empty());
  EXPECT_NE(response_markdown(c).find("**differs**"), std::string::npos);
}

TEST(ResponseComparison, OnlyReplayedCallsCountPerCategory) {
  trace::Trace t;
  auto add = [&](const char* name, int64_t ns, uint32_t flags) {
    trace::Event e;
    e.nr = trace::syscall_by_name(name)->nr;
    e.begin_ns = 0;
    e.end_ns = ns;
    e.flags = flags;
    t.events.push_back(e);
  };
  add("pread64", 4000, trace::kEventReplayed);
  add("pread64", 6000, trace::kEventReplayed | trace::kEventMismatch);
  add("pread64", 90000, trace::kEventReplayed | trace::kEventSkipped);
  add("openat", 2000, trace::kEventReplayed);
  add("openat", 99000, 0);  // not written by a replayer
  auto m = replayed_response_us(t);
  EXPECT_DOUBLE_EQ(m.at(OpCategory::kRead), 5.0);
  EXPECT_DOUBLE_EQ(m.at(OpCategory::kOpen), 2.0);
  EXPECT_EQ(m.size(), 2u);
}

}  // namespace
}  // namespace rastro::characterize
