// The coordinator engine's queues (replay/engines/request_queue.h): every id pushed is popped exactly
// once, by threads or by processes sharing the queue, with consumers asleep on its doorbell in
// between; a consumer given up on returns; more pushes than the capacity are refused.
#include "replay/engines/request_queue.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "replay/engines/replay_threads.h"

namespace rastro::replay::detail {
namespace {

constexpr uint32_t kStop = ~0u - 1;

TEST(RequestQueue, PopsInPushOrderAndRefusesMoreThanItsCapacity) {
  RequestQueue q(3, false);
  uint32_t r = 7;
  EXPECT_FALSE(q.try_pop(r));
  q.push(0);  // id 0 is a request like any other (the slots hold id + 1)
  q.push(41);
  EXPECT_TRUE(q.try_pop(r));
  EXPECT_EQ(r, 0u);
  q.push(5);
  EXPECT_EQ(q.pop(), 41u);
  EXPECT_EQ(q.pop(), 5u);
  EXPECT_FALSE(q.try_pop(r));
  EXPECT_THROW(q.push(6), std::logic_error);
}

TEST(RequestQueue, SleepingConsumerThreadsGetEveryItemOnce) {
  // Consumers that sleep whenever the queue is empty; the producer pauses now and then so they
  // do fall asleep. Every item is taken exactly once and every consumer sees its stop item.
  constexpr uint32_t kItems = 20'000;
  constexpr int kConsumers = 4;
  RequestQueue q(kItems + kConsumers, false);
  std::vector<std::atomic<uint32_t>> taken(kItems);
  std::vector<std::thread> consumers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.emplace_back([&] {
      for (uint32_t x; (x = q.pop(/*spins=*/4)) != kStop;) taken[x].fetch_add(1, std::memory_order_relaxed);
    });
  }
  for (uint32_t i = 0; i < kItems; ++i) {
    q.push(i);
    if (i % 2000 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (int c = 0; c < kConsumers; ++c) q.push(kStop);
  q.ring_everyone();
  for (auto& t : consumers) t.join();
  for (uint32_t i = 0; i < kItems; ++i) ASSERT_EQ(taken[i].load(), 1u) << "item " << i;
}

TEST(RequestQueue, AConsumerGivenUpOnReturnsWithoutAnItem) {
  RequestQueue q(1, false);
  std::atomic<bool> stop{false};
  bool popped = true;
  std::thread consumer([&] {
    uint32_t r = 0;
    popped = q.pop_unless(r, [&] { return stop.load(); }, /*spins=*/4);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // asleep on the doorbell by now
  stop = true;
  q.ring_everyone();
  consumer.join();
  EXPECT_FALSE(popped);
}

// As the coordinator engine uses it with replay processes: producers and consumers in processes of
// their own (forked after the queue was made), consumers asleep on the shared doorbell.
TEST(RequestQueue, ProcessesForkedAfterItShareIt) {
  if (!kProcessesAvailable) GTEST_SKIP() << "ThreadSanitizer build: no replay processes (replay_threads.h)";
  constexpr uint32_t kItems = 20'000;
  constexpr int kProducers = 2, kConsumers = 3;
  RequestQueue q(kItems + kConsumers, true);
  SharedArray<std::atomic<uint32_t>> taken(kItems, true);
  auto fork_running = [](auto&& body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      body();
      ::_exit(0);
    }
    return pid;
  };
  std::vector<pid_t> consumers, producers;
  for (int c = 0; c < kConsumers; ++c) {
    consumers.push_back(fork_running([&] {
      for (uint32_t x; (x = q.pop(/*spins=*/4)) != kStop;) taken[x].fetch_add(1, std::memory_order_relaxed);
    }));
  }
  for (int p = 0; p < kProducers; ++p) {
    producers.push_back(fork_running([&, p] {
      for (uint32_t i = static_cast<uint32_t>(p); i < kItems; i += kProducers) {
        q.push(i);
        if (i % 2000 < kProducers) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      }
    }));
  }
  auto exited_cleanly = [](pid_t pid) {
    int status = 0;
    return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  };
  for (pid_t pid : producers) ASSERT_TRUE(exited_cleanly(pid));
  for (int c = 0; c < kConsumers; ++c) q.push(kStop);
  q.ring_everyone();
  for (pid_t pid : consumers) ASSERT_TRUE(exited_cleanly(pid));
  for (uint32_t i = 0; i < kItems; ++i) ASSERT_EQ(taken[i].load(), 1u) << "item " << i;
}

}  // namespace
}  // namespace rastro::replay::detail
