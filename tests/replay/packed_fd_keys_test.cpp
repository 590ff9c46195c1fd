// The plan's packed fd keys (replay/plan/packed_fd_keys.h) read back every request's 8 slots as
// the dense table held them, whatever the mix of empty and full requests.
#include "replay/plan/packed_fd_keys.h"

#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "replay/plan/plan.h"

namespace rastro::replay {
namespace {

TEST(PackedFdKeys, EveryRowReadsBackAsPushed) {
  std::mt19937 rng(7);
  std::vector<PackedFdKeys::Row> dense;
  PackedFdKeys packed;
  for (int r = 0; r < 5000; ++r) {
    PackedFdKeys::Row row;
    row.fill(-1);
    // Mostly none or one key (as in real plans), sometimes every slot, and other negative values
    // than -1 (a slot copied from an absent one, a hand-built plan's oddity) are kept as they are.
    const int kind = static_cast<int>(rng() % 10);
    for (size_t i = 0; i < row.size(); ++i) {
      if (kind == 9 || (kind >= 5 && i == rng() % 8)) row[i] = static_cast<int32_t>(rng() % 100000);
      if (kind == 8 && i == 7) row[i] = -7;
    }
    dense.push_back(row);
    packed.push_back(row);
  }
  ASSERT_EQ(packed.size(), dense.size());
  for (size_t r = 0; r < dense.size(); ++r) ASSERT_EQ(packed[r], dense[r]) << "request " << r;
  EXPECT_LT(packed.memory_bytes(), dense.size() * sizeof(PackedFdKeys::Row) / 3);
}

TEST(PackedFdKeys, EmptyTable) {
  PackedFdKeys packed;
  EXPECT_TRUE(packed.empty());
  packed.push_back({-1, -1, -1, -1, -1, -1, -1, -1});
  EXPECT_EQ(packed[0], (PackedFdKeys::Row{-1, -1, -1, -1, -1, -1, -1, -1}));
}

TEST(PlanDep, IsFourBytesAndKeepsItsFields) {
  static_assert(sizeof(Dep) == 4);
  const Dep d(kMaxRequests - 1, EdgeKind::kTemporal);
  EXPECT_EQ(d.request, kMaxRequests - 1);
  EXPECT_EQ(d.kind, EdgeKind::kTemporal);
  EXPECT_EQ(Dep().request, 0u);
}

}  // namespace
}  // namespace rastro::replay
