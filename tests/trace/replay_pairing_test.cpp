// Pairing an original trace with its replay (replay_pairing.h) over files, per thread in order,
// whatever the order of the two files; and the clear errors for what is not a replay of it.
#include "trace/analysis/replay_pairing.h"

#include <map>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "tests/trace/replay_pair_traces.h"
#include "trace/io/trace_reader.h"

namespace rastro::trace {
namespace {

using ::testing::HasSubstr;
using testing::kReplayOffsetNs;
using testing::make_replay_pair;

class ReplayPairing : public testing::ReplayPairFiles {
 protected:
  // Pairs the two files; every pair must be an original call and its replay (begin + 1 ms).
  uint64_t pair_files(const std::string& o, const std::string& r, std::set<int64_t>* seen = nullptr) {
    auto ro = open_trace_reader(o);
    auto rr = open_trace_reader(r);
    return pair_replay({ro.get(), o}, {rr.get(), r}, [&](const Event& oe, const StringTable& os, const Event& re) {
      EXPECT_EQ(re.begin_ns, oe.begin_ns + kReplayOffsetNs);
      EXPECT_EQ(re.tid, oe.tid);
      if (oe.nargs == 4) {
        EXPECT_EQ(os.get(oe.arg(1).str), "/f" + std::to_string(oe.rvalue));
      }
      if (seen) {
        EXPECT_TRUE(seen->insert(oe.begin_ns).second) << "paired twice: " << oe.begin_ns;
      }
    });
  }
  std::string error_of(const std::string& o, const std::string& r) {
    try {
      pair_files(o, r);
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }
};

TEST_F(ReplayPairing, PairsEveryCallWithItsReplayWhateverTheFileOrder) {
  const auto [o, r] = write(make_replay_pair(60));
  std::set<int64_t> seen;
  EXPECT_EQ(pair_files(o, r, &seen), 60u);
  EXPECT_EQ(seen.size(), 60u);
}

TEST_F(ReplayPairing, TextTracesToo) {
  const auto [o, r] = write(make_replay_pair(30), ".tsv");
  EXPECT_EQ(pair_files(o, r), 30u);
}

// More calls than a block (65,536), the replay holding one thread's calls first: the pairing
// reads across blocks on both sides and still pairs each call with its own replay.
TEST_F(ReplayPairing, AcrossBlocksWithThreadsInAnotherOrder) {
  auto p = make_replay_pair(150'000);
  std::stable_sort(p.replayed.events.begin(), p.replayed.events.end(),
                   [](const Event& a, const Event& b) { return a.tid > b.tid; });
  const auto [o, r] = write(p);
  std::set<int64_t> seen;
  EXPECT_EQ(pair_files(o, r, &seen), 150'000u);
  EXPECT_EQ(seen.size(), 150'000u);
}

// An io_uring request completes after later calls of its own thread: stored by end, the original
// holds the thread's calls in another order than the replay (begin order). Each still pairs with
// its own replay.
TEST_F(ReplayPairing, ACallOverlappingLaterCallsOfItsThreadPairsWithItsOwnReplay) {
  auto p = make_replay_pair(30);
  p.original.events[3].end_ns = p.original.events[12].end_ns + 1;  // thread 7: stored after calls 6, 9, 12
  p.original.events[3].flags = kEventUring;
  const auto [o, r] = write(p);
  std::set<int64_t> seen;
  EXPECT_EQ(pair_files(o, r, &seen), 30u);
  EXPECT_EQ(seen.size(), 30u);
}

TEST_F(ReplayPairing, ATraceThatIsNotAReplayIsRefused) {
  const auto p = make_replay_pair(20);
  const auto [o, r] = write(p);
  EXPECT_THAT(error_of(o, o), HasSubstr("has no replayed flag: not the output of `rastro replay`"));
  EXPECT_THAT(error_of(r, o), HasSubstr("are the arguments swapped?"));
}

TEST_F(ReplayPairing, TheReplayOfAnotherTraceIsRefusedNamingTheEvent) {
  auto p = make_replay_pair(20);
  p.replayed.events[6].args[1].str = p.replayed.strings.intern("/elsewhere");  // thread 7's third call
  const auto [o, r] = write(p);
  const std::string e = error_of(o, r);
  EXPECT_THAT(e, HasSubstr("replayed.rastro: event 6 (pid 7 tid 7, openat) is not the replay of"));
  EXPECT_THAT(e, HasSubstr("argument 2 differs"));

  auto q = make_replay_pair(20);
  q.replayed.events[3].expected_rvalue = 99;
  const auto [o2, r2] = write(q);
  EXPECT_THAT(error_of(o2, r2), HasSubstr("its traced result is 99, the original's 3"));

  auto c = make_replay_pair(20);
  c.replayed.events[4].nr = SYS_write;
  const auto [o3, r3] = write(c);
  EXPECT_THAT(error_of(o3, r3), HasSubstr("another call"));
}

TEST_F(ReplayPairing, TracesOfDifferentRunsAreRefusedAfterTheFirstBlocks) {
  auto p = make_replay_pair(20);
  for (auto& e : p.replayed.events) e.pid = 8;  // another process
  const auto [o, r] = write(p);
  EXPECT_THAT(error_of(o, r), HasSubstr("no call of the first 20 events of"));
}

TEST_F(ReplayPairing, AReplayCutShortOrLongerIsRefused) {
  auto p = make_replay_pair(20);
  p.replayed.events.pop_back();  // call 19, thread 8
  const auto [o, r] = write(p);
  EXPECT_THAT(error_of(o, r), HasSubstr("original.rastro has 1 calls of pid 7 tid 8 that"));
  EXPECT_THAT(error_of(o, r), HasSubstr("original.rastro has 20 events"));

  auto q = make_replay_pair(20);
  Event extra = q.replayed.events.back();
  q.replayed.events.push_back(extra);
  const auto [o2, r2] = write(q);
  EXPECT_THAT(error_of(o2, r2), HasSubstr("replayed.rastro has 1 calls of pid 7 tid 8 that"));
}

}  // namespace
}  // namespace rastro::trace
