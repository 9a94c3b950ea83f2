// Host-only tests of the tiled GEMM's index layer (gpu/gemm/gemm_index.hpp): DimMap, MatrixMap, the
// grid plan, the staging order and the split-K plan. No GPU and no nvcc needed.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "gpu/gemm/gemm_index.hpp"

namespace hiprim::gpu {
namespace {

TEST(GemmIndex, PlainMapIsIndexTimesStride) {
  const DimMap m = DimMap::plain(7);
  EXPECT_EQ(m(0), 0);
  EXPECT_EQ(m(5), 35);
  EXPECT_EQ(DimMap::plain(-3)(4), -12);
  EXPECT_EQ(DimMap::plain(1)(2147482623), 2147482623LL);
}

RC_GTEST_PROP(GemmIndex, SplitMapIsQuotientAndRemainder, ()) {
  const auto extent = *rc::gen::inRange<std::int32_t>(1, 200);
  const auto inner = *rc::gen::inRange<std::int64_t>(-1000, 1000);
  const auto outer = *rc::gen::inRange<std::int64_t>(-100000, 100000);
  const auto i = *rc::gen::inRange<std::int32_t>(0, 1 << 30);
  const DimMap m = DimMap::split(extent, inner, outer);
  RC_ASSERT(m(i) == static_cast<std::int64_t>(i / extent) * outer + static_cast<std::int64_t>(i % extent) * inner);
}

TEST(GemmIndex, MatrixMapAddsTheThreeOffsets) {
  const MatrixMap mm{DimMap::plain(10), DimMap::split(3, 1, 100), DimMap::plain(1000)};
  // b=2, i=4, j=7 = 2*3+1: 2000 + 40 + (2*100 + 1)
  EXPECT_EQ(mm(2, 4, 7), 2000 + 40 + 201);
}

TEST(GemmIndex, GridPlanCutsLargeMAndBatchIntoSlices) {
  GemmGridPlan g = plan_gemm_grid(GemmShape{1, 1, 1, 1}, 64, 64);
  EXPECT_EQ(g.n_tiles, 1);
  EXPECT_EQ(g.m_tiles, 1);
  EXPECT_EQ(g.m_slices, 1);
  EXPECT_EQ(g.batch_slices, 1);
  g = plan_gemm_grid(GemmShape{65535LL * 64 + 1, 129, 5, 70000}, 64, 64);
  EXPECT_EQ(g.n_tiles, 3);
  EXPECT_EQ(g.m_tiles, 65536);
  EXPECT_EQ(g.m_tiles_per_slice, 65535);
  EXPECT_EQ(g.m_slices, 2);
  EXPECT_EQ(g.batch_per_slice, 65535);
  EXPECT_EQ(g.batch_slices, 2);
}

TEST(GemmIndex, StagingWalksTheUnitStride) {
  EXPECT_TRUE(stage_k_fastest(DimMap::plain(1), DimMap::plain(64)));
  EXPECT_FALSE(stage_k_fastest(DimMap::plain(64), DimMap::plain(1)));
  EXPECT_FALSE(stage_k_fastest(DimMap::split(9, 49, 9 * 49 * 8), DimMap::plain(-1)));
}

TEST(GemmIndex, SplitKPlanFillsTheGpuOnlyWhenKIsLong) {
  // 1024 x 256 output, batch 1: 16 x 4 = 64 tiles -> ceil(512/64) = 8 splits (K/256 = 24 allows it).
  EXPECT_EQ(plan_split_k(GemmShape{1024, 256, 6272, 1}, 64, 64), 8);
  EXPECT_EQ(plan_split_k(GemmShape{1024, 256, 1000, 1}, 64, 64), 3);      // K/256 = 3 caps it
  EXPECT_EQ(plan_split_k(GemmShape{8, 8, 1 << 24, 1}, 64, 64), 64);       // kSplitKMaxSplits caps it
  EXPECT_EQ(plan_split_k(GemmShape{4096, 4096, 1 << 20, 1}, 64, 64), 1);  // 4096 tiles: enough already
  EXPECT_EQ(plan_split_k(GemmShape{0, 8, 4096, 1}, 64, 64), 1);
  EXPECT_EQ(split_k_chunk(3000, 64, 16), 48);  // ceil(3000/64) = 47 -> 48; slice 63 starts at 3024: empty
  EXPECT_EQ(split_k_chunk(10, 4, 16), 16);
  EXPECT_EQ(split_k_workspace_bytes(GemmShape{3, 5, 100, 2}, 4), 4u * 2 * 3 * 5 * sizeof(float));
  EXPECT_EQ(split_k_workspace_bytes(GemmShape{3, 5, 100, 2}, 1), 0u);
}

}  // namespace
}  // namespace hiprim::gpu
