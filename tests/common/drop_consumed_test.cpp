#include "common/drop_consumed.h"

#include <cstdint>
#include <numeric>
#include <vector>

#include <gtest/gtest.h>

namespace rastro {
namespace {

// The fuzzer's finding (fuzz_replay_plan, 2026-11-28): the plan pass drops the consumed part of
// every column, and a column not in use (the identity event order, the thread column's other
// width) is an empty vector whose data() is null, and clang's UBSan (the fuzz build) reports the
// pointer arithmetic from null that it was given (gcc's does not check that).
TEST(DropConsumed, AnEmptyVectorDropsNothing) {
  std::vector<int16_t> none;
  drop_consumed(none, 1000);
  EXPECT_TRUE(none.empty());
  std::vector<uint32_t> reserved;
  reserved.reserve(4096);
  drop_consumed(reserved, 4096);
  EXPECT_TRUE(reserved.empty());
}

TEST(DropConsumed, WhatFollowsTheDroppedPrefixIsKept) {
  const size_t n = 1 << 20;  // 4 MiB: many pages either side of the cut
  std::vector<uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  const size_t upto = n / 2 + 123;  // not on a page boundary: the page holding it stays
  drop_consumed(v, upto);
  for (size_t i = upto; i < n; ++i) ASSERT_EQ(v[i], i) << "element " << i << " after the cut";
  EXPECT_EQ(v.size(), n);
}

// Before the fix this handed back the pages after the vector's end too: the allocator's own
// memory (the test aborted with "double free or corruption").
TEST(DropConsumed, PastTheEndIsTheWholeVector) {
  std::vector<uint64_t> v(10000, 7);
  drop_consumed(v, v.size() + 5000);
  EXPECT_EQ(v.size(), 10000u);  // still its size; its pages may read as zero now
}

}  // namespace
}  // namespace rastro
