// Cost of one grid-wide barrier on this GPU (issue 18: steps.tc waits at one per step), three ways:
//   cg    cooperative_groups::this_grid().sync()
//   count one arrival counter per barrier (atomicAdd by thread 0 of each block, then spin on it, acquire)
//   flags each block stores its step number to its own flag (release); every block's first `blocks`
//         threads each poll one flag (acquire) -- the all-to-all a flag-based step hand-off would use
// Each kernel runs `iters` barriers; the time per barrier is the kernel time / iters (cudaEvent, 5 repeats,
// the least). Build: nvcc -O3 -arch=sm_90 -o grid_barrier grid_barrier.cu
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void cg_sync(int iters) {
  for (int i = 0; i < iters; ++i) cooperative_groups::this_grid().sync();
}

__device__ unsigned ld_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ void st_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// counters[i] counts arrivals at barrier i (zeroed before the launch).
__global__ void count_sync(unsigned* counters, int iters) {
  const unsigned blocks = gridDim.x;
  for (int i = 0; i < iters; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(&counters[i], 1u);
      while (ld_acquire(&counters[i]) < blocks) {
      }
    }
    __syncthreads();
  }
}

// flags[b] = the last step block b finished (zeroed before the launch).
__global__ void flag_sync(unsigned* flags, int iters) {
  const unsigned blocks = gridDim.x;
  for (int i = 1; i <= iters; ++i) {
    __syncthreads();
    if (threadIdx.x == 0) st_release(&flags[blockIdx.x], i);
    if (threadIdx.x < blocks)
      while (ld_acquire(&flags[threadIdx.x]) < unsigned(i)) {
      }
    __syncthreads();
  }
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

int main() {
  const int iters = 2048;
  unsigned* buf = nullptr;
  check(cudaMalloc(&buf, iters * sizeof(unsigned)), "cudaMalloc");
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  const int shapes[][2] = {{64, 512}, {128, 256}, {132, 256}, {128, 128}};
  for (auto& s : shapes) {
    const int blocks = s[0], threads = s[1];
    for (int way = 0; way < 3; ++way) {
      float best = 1e30f;
      for (int r = 0; r < 5; ++r) {
        check(cudaMemset(buf, 0, iters * sizeof(unsigned)), "cudaMemset");
        int it = iters;
        cudaEventRecord(a);
        if (way == 0) {
          void* args[] = {&it};
          check(cudaLaunchCooperativeKernel((void*)cg_sync, blocks, threads, args, 0, 0), "cg launch");
        } else {
          void* args[] = {&buf, &it};
          check(cudaLaunchCooperativeKernel(way == 1 ? (void*)count_sync : (void*)flag_sync, blocks, threads, args,
                                            0, 0),
                "launch");
        }
        cudaEventRecord(b);
        check(cudaEventSynchronize(b), "sync");
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (ms < best) best = ms;
      }
      static const char* names[] = {"cg", "count", "flags"};
      std::printf("grid_barrier %-5s blocks %3d threads %3d: %.3f us per barrier\n", names[way], blocks, threads,
                  1000.0 * best / iters);
    }
  }
  return 0;
}
