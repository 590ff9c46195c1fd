// CsrOffsets (replay/passes/csr_offsets.h): every request's begin and end read back as pushed,
// against a dense copy, in compact blocks (offsets in a byte) and wide ones (255+ entries).
#include "replay/passes/csr_offsets.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "common/error.h"

namespace rastro::replay {
namespace {

// Pushes runs of the given lengths; checks begin/end of every request against the running sums.
void expect_round_trip(const std::vector<uint32_t>& lengths) {
  CsrOffsets c;
  c.reserve(static_cast<uint32_t>(lengths.size()));
  std::vector<uint32_t> dense;
  uint32_t at = 0;
  for (uint32_t len : lengths) {
    dense.push_back(at);
    c.push_back(at);
    at += len;
  }
  c.finish(at);
  dense.push_back(at);
  ASSERT_TRUE(c.finished());
  ASSERT_EQ(c.size(), lengths.size());
  for (uint32_t r = 0; r < lengths.size(); ++r) {
    ASSERT_EQ(c.begin(r), dense[r]) << "request " << r;
    ASSERT_EQ(c.end(r), dense[r + 1]) << "request " << r;
  }
}

TEST(CsrOffsets, SparseRunsReadBackAndCostAboutAByteARequest) {
  std::mt19937 rng(3);
  std::vector<uint32_t> lengths(100'003);  // (a partial last block)
  for (uint32_t& l : lengths) l = rng() % 8 == 0 ? 1 + rng() % 3 : 0;
  expect_round_trip(lengths);
  CsrOffsets c;
  uint32_t at = 0;
  for (uint32_t len : lengths) {
    c.push_back(at);
    at += len;
  }
  c.finish(at);
  EXPECT_LT(c.memory_bytes(), lengths.size() * 3 / 2) << "no wide block here: ~1.06 bytes a request";
}

TEST(CsrOffsets, BlocksPastAByteOfEntriesAreKeptWideAndExact) {
  // Runs of 0..600 entries, some blocks far past 255, among compact ones; and a single long run
  // inside a block's last request (which a compact block allows: its end is the next base).
  std::mt19937 rng(5);
  std::vector<uint32_t> lengths;
  for (int block = 0; block < 200; ++block)
    for (int i = 0; i < 64; ++i) lengths.push_back(block % 3 == 0 ? rng() % 600 : (i == 63 ? 100000 : rng() % 2));
  lengths.resize(lengths.size() - 17);
  expect_round_trip(lengths);
}

TEST(CsrOffsets, EmptyAndSingleRequests) {
  expect_round_trip({});
  expect_round_trip({0});
  expect_round_trip({7});
  CsrOffsets c;
  c.finish(0);
  EXPECT_EQ(c.size(), 0u);
}

TEST(CsrOffsets, DecreasingBeginsAndShortEndsAreRefused) {
  CsrOffsets c;
  c.push_back(5);
  EXPECT_THROW(c.push_back(4), Error);
  EXPECT_THROW(c.finish(4), Error);
  c.finish(5);
  EXPECT_THROW(c.push_back(6), Error);
  CsrOffsets big;
  EXPECT_THROW(big.push_back(uint32_t{1} << 31), Error);
}

}  // namespace
}  // namespace rastro::replay
