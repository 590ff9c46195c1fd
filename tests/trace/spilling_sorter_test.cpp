// SpillingSorter against std::sort, in memory and spilled to many runs.
#include "trace/analysis/spilling_sorter.h"

#include <algorithm>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace rastro::trace {
namespace {

std::vector<int64_t> drain(SpillingSorter& s) {
  s.start_reading();
  std::vector<int64_t> out;
  int64_t v = 0, peeked = 0;
  while (s.peek(&peeked)) {
    EXPECT_TRUE(s.next(&v));
    EXPECT_EQ(v, peeked);
    out.push_back(v);
  }
  EXPECT_FALSE(s.next(&v));
  return out;
}

TEST(SpillingSorter, SortsLikeStdSortWithAndWithoutSpilling) {
  for (size_t memory : {size_t{1}, size_t{7}, size_t{1000}, size_t{1} << 20}) {
    std::mt19937_64 rng(memory);
    std::vector<int64_t> v;
    SpillingSorter s(memory);
    for (int i = 0; i < 20000; ++i) {
      int64_t x = i % 97 == 0 ? std::numeric_limits<int64_t>::min()
                  : i % 89 == 0 ? std::numeric_limits<int64_t>::max()
                                : static_cast<int64_t>(rng() % 5000) - 2500;  // many ties
      v.push_back(x);
      s.add(x);
    }
    std::sort(v.begin(), v.end());
    EXPECT_EQ(s.spilled_runs() > 0, memory < 20000) << memory;
    EXPECT_EQ(drain(s), v) << memory;
  }
}

TEST(SpillingSorter, Empty) {
  SpillingSorter s(4);
  EXPECT_TRUE(drain(s).empty());
}

}  // namespace
}  // namespace rastro::trace
