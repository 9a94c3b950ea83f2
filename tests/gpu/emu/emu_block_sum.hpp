// Entry point of block_sum_2level compiled for the host emulation (emu_block_sum.cpp; its namespace
// hiprim::gpu becomes hiprim::gpu_emu there).
#pragma once
#include <vector>

namespace hiprim::gpu_emu {

// One block of `threads` threads, thread t holding in[t*W .. t*W+W) (W = 1, 2 or 8): every thread's
// W results, in the same layout.
std::vector<float> emu_block_sum(const std::vector<float>& in, int threads, int W);

}  // namespace hiprim::gpu_emu
