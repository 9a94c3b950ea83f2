// block_sum_2level (gpu/common/block_reduce.hpp) compiled for the host emulation: one block of n
// threads, W values each, every thread's result written out (emu_block_sum.hpp).
#include "tests/gpu/emu/emu_block_sum.hpp"

#include <cmath>

#include "gpu/common/block_reduce.hpp"
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {
namespace {

template <int W>
__global__ void block_sum_kernel(const float* in, float* out, float* scratch) {
  float v[W];
  for (int j = 0; j < W; ++j) v[j] = in[threadIdx.x * W + j];
  block_sum_2level<W>(v, scratch);
  for (int j = 0; j < W; ++j) out[threadIdx.x * W + j] = v[j];
}

}  // namespace

std::vector<float> emu_block_sum(const std::vector<float>& in, int threads, int W) {
  // Scratch poisoned with NaN: a read of a slot nobody wrote shows in the totals.
  std::vector<float> out(in.size()), scratch(static_cast<std::size_t>(threads + kSumGroups + 1) * W, std::nanf(""));
  auto run = [&](auto kernel) { hipLaunchKernelGGL(kernel, dim3(1), dim3(threads), 0, 0, in.data(), out.data(), scratch.data()); };
  if (W == 1) run(&block_sum_kernel<1>);
  else if (W == 2) run(&block_sum_kernel<2>);
  else run(&block_sum_kernel<8>);
  return out;
}

}  // namespace hiprim::gpu
