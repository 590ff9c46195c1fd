// The packed completion flags (replay/runtime/completion_flag.h): a request's waiter returns only
// once that request completed, sees what its completer wrote before, and is not lost when the
// requests sharing its futex word complete around it (one word holds 16 requests).
#include "replay/runtime/completion_flag.h"

#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace rastro::replay {
namespace {

// 4 threads; request r belongs to thread r % 4 and waits for r - 1 (another thread's, mostly in
// the same word) before it completes: every hand-over goes through the flags, sleeping on the
// futex (no spinning) or not.
TEST(CompletionFlags, AChainAcrossThreadsHandsOverEveryRequest) {
  for (int spins : {0, 50}) {
    constexpr uint32_t kThreads = 4, kRequests = 4000;
    CompletionFlags done(kRequests);
    std::vector<uint32_t> value(kRequests, 0);  // written before complete, read after wait
    std::vector<uint64_t> waited(kThreads, 0);
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (uint32_t r = t; r < kRequests; r += kThreads) {
          uint32_t v = 1;
          if (r > 0) {
            waited[t] += done.wait(r - 1, spins);
            EXPECT_TRUE(done.done(r - 1));
            v = value[r - 1] + 1;
          }
          value[r] = v;
          done.complete(r);
        }
      });
    }
    for (auto& th : threads) th.join();
    for (uint32_t r = 0; r < kRequests; ++r) {
      EXPECT_TRUE(done.done(r)) << r;
      EXPECT_EQ(value[r], r + 1) << r;
    }
    uint64_t total = 0;
    for (uint64_t w : waited) total += w;
    EXPECT_GT(total, 0u) << "no thread ever had to wait: the test did not test the waiting";
  }
}

TEST(CompletionFlags, EachRequestHasItsOwnFlag) {
  CompletionFlags done(40);
  done.complete(17);
  for (uint32_t r = 0; r < 40; ++r) EXPECT_EQ(done.done(r), r == 17) << r;
  EXPECT_FALSE(done.wait(17));  // done: no waiting
  done.complete(16);
  done.complete(39);
  EXPECT_TRUE(done.done(16) && done.done(17) && done.done(39) && !done.done(18));
}


// Made across processes (EngineOptions::processes), the flags are one memory for a forked process
// and its parent, and a sleeper in one is woken by a completion in the other (shared futexes: a
// private futex would leave the child asleep, and its alarm would kill it).
TEST(CompletionFlags, AcrossProcessesAForkedWaiterIsWokenByItsParent) {
  CompletionFlags done(64, true);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(10);
    done.wait(40, 0);  // straight to the futex
    done.complete(41);
    _exit(done.done(40) ? 0 : 1);
  }
  usleep(50'000);  // the child is asleep on the word of 40 by now (if not, it finds it done)
  done.complete(40);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;
  EXPECT_TRUE(done.done(41)) << "the child's completion is in the parent's memory";
}

}  // namespace
}  // namespace rastro::replay
