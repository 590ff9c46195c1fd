// Generators taking turns in trace-time order: whatever the OS schedules, the calls they make
// while holding the turn come out sorted by time (ties by id), and one that leaves frees the rest.
#include "characterize/turn_scheduler.h"

#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace rastro::characterize {
namespace {

TEST(TurnScheduler, CallsComeInTimeOrderAcrossThreads) {
  // Three generators with interleaving times; each records (time, id) while holding the turn.
  const std::vector<std::vector<int64_t>> times = {{0, 5, 9, 30}, {1, 5, 6, 7, 8}, {2, 3, 40}};
  TurnScheduler turns({0, 1, 2});
  std::vector<std::pair<int64_t, size_t>> log;
  std::vector<std::thread> gens;
  for (size_t id = 0; id < times.size(); ++id)
    gens.emplace_back([&, id] {
      for (int64_t t : times[id]) {
        turns.arrive(id, t);
        log.push_back({t, id});  // exclusive: only the turn holder runs
      }
      turns.leave(id);
    });
  for (auto& g : gens) g.join();
  ASSERT_EQ(log.size(), 12u);
  for (size_t i = 1; i < log.size(); ++i) EXPECT_LE(log[i - 1], log[i]) << i;
  EXPECT_EQ(log[4], (std::pair<int64_t, size_t>{5, 0}));  // a tie at 5: the lower id first
  EXPECT_EQ(log[5], (std::pair<int64_t, size_t>{5, 1}));
}

}  // namespace
}  // namespace rastro::characterize
