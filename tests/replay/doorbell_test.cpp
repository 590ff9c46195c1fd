// The coordinator engine's idle wait (replay/engines/doorbell.h): sleepers are woken by every
// push, none is lost, and a ring before the wait keeps the consumer awake.
#include "replay/engines/doorbell.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <boost/lockfree/queue.hpp>

namespace rastro::replay::detail {
namespace {

TEST(Doorbell, ARingAfterPrepareKeepsTheWaiterAwake) {
  Doorbell bell;
  const uint32_t seen = bell.prepare();
  bell.ring();
  bell.wait(seen);  // would sleep forever if the ring were lost
  SUCCEED();
}

TEST(Doorbell, SleepingConsumersGetEveryItem) {
  // Consumers that sleep whenever the queue is empty; the producer pauses now and then so they
  // do fall asleep. Every item is taken exactly once and every consumer sees its stop item.
  constexpr uint32_t kItems = 20'000, kStop = ~0u;
  constexpr int kConsumers = 4;
  boost::lockfree::queue<uint32_t> q(128);
  Doorbell bell;
  std::atomic<uint64_t> sum{0}, count{0};
  std::vector<std::thread> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&] {
      for (;;) {
        uint32_t x = 0;
        bell.pop_or_sleep([&] { return q.pop(x); }, /*spins=*/4);
        if (x == kStop) return;
        sum += x;
        ++count;
      }
    });
  }
  for (uint32_t i = 1; i <= kItems; ++i) {
    while (!q.push(i)) std::this_thread::yield();
    bell.ring();
    if (i % 2000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (int c = 0; c < kConsumers; ++c) {
    while (!q.push(kStop)) std::this_thread::yield();
  }
  bell.ring(/*everyone=*/true);
  for (auto& t : consumers) t.join();
  EXPECT_EQ(count.load(), kItems);
  EXPECT_EQ(sum.load(), uint64_t{kItems} * (kItems + 1) / 2);
}

}  // namespace
}  // namespace rastro::replay::detail
