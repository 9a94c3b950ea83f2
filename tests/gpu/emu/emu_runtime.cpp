// The host emulation's launches and the runtime checks the kernels' host code calls (see
// tests/gpu/emu/gpu/runtime/hip_compat.hpp). Compiled with the emulated kernel sources.
#include <barrier>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gpu/runtime/check.hpp"

namespace hiprim_emu {

thread_local uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;
namespace {
thread_local std::barrier<>* block_barrier = nullptr;
thread_local unsigned char* block_smem = nullptr;
std::barrier<>* grid_barrier = nullptr;

// Dynamic shared memory of one block, 16-byte aligned (long double: 16 on x86-64 and aarch64).
struct Smem {
  explicit Smem(std::size_t bytes) : words(bytes / sizeof(long double) + 1) {}
  unsigned char* data() { return reinterpret_cast<unsigned char*>(words.data()); }
  std::vector<long double> words;
};
}  // namespace

void syncthreads() { block_barrier->arrive_and_wait(); }
void grid_sync() { grid_barrier->arrive_and_wait(); }
void yield_thread() { std::this_thread::yield(); }
unsigned char* dynamic_smem() { return block_smem; }

// blockDim.x workers walk the blocks together: each runs the body for the block and waits for the
// others before the next block (shared arrays, static or dynamic, are reused per block).
void launch(dim3 grid, dim3 block, std::size_t smem, const std::function<void()>& body) {
  gridDim = grid;
  blockDim = block;
  std::barrier<> barrier(static_cast<std::ptrdiff_t>(block.x));
  Smem shared(smem);
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < block.x; ++t)
    workers.emplace_back([&, t] {
      threadIdx = uint3{t, 0, 0};
      block_barrier = &barrier;
      block_smem = shared.data();
      for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
          for (unsigned b = 0; b < grid.x; ++b) {
            blockIdx = uint3{b, y, z};
            body();
            barrier.arrive_and_wait();  // the block is done before shared data change
          }
    });
  for (auto& w : workers) w.join();
}

// Every thread of every block at once: per-block barriers and shared memory, one grid barrier.
void launch_cooperative(dim3 grid, dim3 block, std::size_t smem, const std::function<void()>& body) {
  gridDim = grid;
  blockDim = block;
  std::barrier<> all(static_cast<std::ptrdiff_t>(grid.x) * block.x);
  grid_barrier = &all;
  std::vector<std::unique_ptr<std::barrier<>>> barriers;
  std::vector<std::unique_ptr<Smem>> shared;
  for (unsigned b = 0; b < grid.x; ++b) {
    barriers.push_back(std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(block.x)));
    shared.push_back(std::make_unique<Smem>(smem));
  }
  std::vector<std::thread> workers;
  for (unsigned b = 0; b < grid.x; ++b)
    for (unsigned t = 0; t < block.x; ++t)
      workers.emplace_back([&, b, t] {
        threadIdx = uint3{t, 0, 0};
        blockIdx = uint3{b, 0, 0};
        block_barrier = barriers[b].get();
        block_smem = shared[b]->data();
        body();
      });
  for (auto& w : workers) w.join();
  grid_barrier = nullptr;
}

}  // namespace hiprim_emu

namespace hiprim::gpu {

void check_result(hipError_t, const char*, const std::string&) {}
void check_launch(const char*, const std::string&) {}

}  // namespace hiprim::gpu
