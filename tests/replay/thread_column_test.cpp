// ThreadColumn (replay/passes/thread_column.h): 2 bytes a request below 65,536 threads, 4 past
// it, and every request's thread reads back as given either way.
#include "replay/passes/thread_column.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace rastro::replay {
namespace {

TEST(ThreadColumn, NarrowBelowSixtyFiveThousandThreadsWideAboveAndExactBoth) {
  std::mt19937 rng(4);
  for (uint32_t threads : {1u, 8u, 65'536u, 65'537u, 300'000u}) {
    std::vector<uint32_t> given(50'000);
    for (uint32_t& t : given) t = rng() % threads;
    given.back() = threads - 1;  // the largest index is there
    const ThreadColumn c(given);
    EXPECT_EQ(c.narrow(), threads <= 65'536u) << threads << " threads";
    EXPECT_EQ(c.memory_bytes(), given.size() * (c.narrow() ? 2u : 4u)) << threads << " threads";
    ASSERT_EQ(c.size(), given.size());
    for (uint32_t r = 0; r < given.size(); ++r) ASSERT_EQ(c[r], given[r]) << threads << " threads, request " << r;
  }
}

}  // namespace
}  // namespace rastro::replay
