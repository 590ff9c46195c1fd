// The sparse per-request path column of inference (replay/plan/path_column.h), against a
// dense copy kept by the test.
#include <array>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "common/error.h"
#include "replay/plan/path_column.h"

namespace rastro::replay {
namespace {

using Dense = std::vector<std::array<trace::StrId, 2>>;

void expect_same(const PathColumn& col, const Dense& want) {
  ASSERT_EQ(col.size(), want.size());
  for (uint32_t r = 0; r < want.size(); ++r) {
    const PathColumn::Paths got = col[r];
    EXPECT_EQ(got[0], want[r][0]) << "request " << r;
    EXPECT_EQ(got[1], want[r][1]) << "request " << r;
  }
}

TEST(PathColumn, ReadsBackWhatWasSetAcrossBlocksAndGaps) {
  // Sparse and dense stretches, whole empty blocks, slot 1 without slot 0, a slot set twice,
  // and the first and last requests.
  const uint32_t n = 1000;
  Dense want(n, {trace::kNoStr, trace::kNoStr});
  PathColumn col;
  col.assign(n);
  auto set = [&](uint32_t r, size_t i, trace::StrId p) {
    col.set(r, i, p);
    want[r][i] = p;
  };
  set(0, 0, 7);
  for (uint32_t r = 60; r < 70; ++r) set(r, 0, 100 + r);  // across the first block boundary
  set(70, 1, 5);                                          // slot 1 only
  set(71, 0, 8);
  set(71, 1, 9);
  set(72, 0, 1);
  set(72, 0, 2);                                          // set twice: the last value holds
  set(300, 0, trace::kNoStr);                             // an absent path makes no entry
  set(640, 1, 11);                                        // after empty blocks
  set(999, 0, 12);
  expect_same(col, want);
  EXPECT_EQ(col.with_paths(), 1u + 10 + 3 + 2);
}

TEST(PathColumn, RandomFillsMatchADenseColumn) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937 rng(seed);
    const uint32_t n = 5000 + rng() % 300;
    Dense want(n, {trace::kNoStr, trace::kNoStr});
    PathColumn col;
    col.assign(n);
    const unsigned density = 1 + rng() % 60;  // percent of requests with a path
    for (uint32_t r = 0; r < n; ++r) {
      if (rng() % 100 >= density) continue;
      for (size_t i = 0; i < 2; ++i) {
        if (rng() % 3 == 0) continue;
        const trace::StrId p = 1 + rng() % 50;
        col.set(r, i, p);
        want[r][i] = p;
      }
    }
    expect_same(col, want);
  }
}

TEST(PathColumn, RefusesRequestsOutOfOrderOrRange) {
  PathColumn col;
  col.assign(10);
  col.set(5, 0, 3);
  EXPECT_THROW(col.set(4, 0, 3), Error);
  EXPECT_THROW(col.set(10, 0, 3), Error);
  EXPECT_THROW(col.set(6, 2, 3), Error);
  EXPECT_EQ(col[5][0], 3u);
}

}  // namespace
}  // namespace rastro::replay
