// The host emulation's launch and the runtime checks the kernels' host code calls (see
// tests/gpu/emu/gpu/runtime/hip_compat.hpp). Compiled with the emulated kernel sources.
#include <barrier>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu/runtime/check.hpp"

namespace hiprim_emu {

thread_local uint3 threadIdx;
uint3 blockIdx;
dim3 blockDim, gridDim;
namespace {
std::barrier<>* current_barrier = nullptr;
}

void syncthreads() { current_barrier->arrive_and_wait(); }

// blockDim.x workers walk the blocks together: each sets its thread index, runs the body for the
// block, and waits for the others before the next block (shared arrays are reused per block).
void launch(dim3 grid, dim3 block, const std::function<void()>& body) {
  gridDim = grid;
  blockDim = block;
  std::barrier<> barrier(static_cast<std::ptrdiff_t>(block.x));
  current_barrier = &barrier;
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < block.x; ++t)
    workers.emplace_back([&, t] {
      threadIdx = uint3{t, 0, 0};
      for (unsigned b = 0; b < grid.x; ++b) {
        if (t == 0) blockIdx = uint3{b, 0, 0};
        barrier.arrive_and_wait();  // blockIdx set before anyone reads it
        body();
        barrier.arrive_and_wait();  // the block is done before blockIdx or shared data change
      }
    });
  for (auto& w : workers) w.join();
  current_barrier = nullptr;
}

}  // namespace hiprim_emu

namespace hiprim::gpu {

void check_result(hipError_t, const char*, const std::string&) {}
void check_launch(const char*, const std::string&) {}

}  // namespace hiprim::gpu
