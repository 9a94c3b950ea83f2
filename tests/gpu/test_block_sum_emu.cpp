// block_sum_2level (gpu/common/block_reduce.hpp) on the host emulation: every thread gets the
// block's per-element totals for blocks smaller and larger than its 16 groups, and for W = 1, 2, 8.
// The values are small integers, so every order of adds gives the exact total.
#include <gtest/gtest.h>

#include <vector>

#include "tests/gpu/emu/emu_block_sum.hpp"

namespace hiprim {
namespace {

TEST(BlockSum2LevelEmulated, EveryThreadGetsTheTotals) {
  for (int threads : {8, 15, 16, 17, 100, 256})
    for (int W : {1, 2, 8}) {
      if (threads < W) continue;
      std::vector<float> in(static_cast<std::size_t>(threads) * W);
      std::vector<double> total(W, 0.0);
      for (int t = 0; t < threads; ++t)
        for (int j = 0; j < W; ++j) {
          const float v = static_cast<float>((t * 7 + j * 3) % 11) - 5.0f;
          in[static_cast<std::size_t>(t) * W + j] = v;
          total[j] += v;
        }
      const std::vector<float> out = gpu_emu::emu_block_sum(in, threads, W);
      for (int t = 0; t < threads; ++t)
        for (int j = 0; j < W; ++j)
          ASSERT_EQ(out[static_cast<std::size_t>(t) * W + j], total[j]) << threads << " threads, W " << W << ", thread " << t << " lane " << j;
    }
}

}  // namespace
}  // namespace hiprim
