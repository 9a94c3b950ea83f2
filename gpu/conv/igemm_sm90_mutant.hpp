// Planted bugs of conv.igemm.wgmma's pipeline, for the fuzzer's GPU mutants (issue 11;
// tests/fuzz/mutant_sm90.hip instantiates them). IgemmMutant is a non-type template parameter of
// igemm_sm90_kernel, igemm_sm90_reduce and launch_tile, default none; every planted site is an
// `if constexpr` on it, so the library's instantiations (none) compile to the code they had.
// Only a test translation unit that defines HIPRIM_IGEMM_MUTANTS instantiates the others.
//
// Under a mutant every mbarrier wait is bounded (MbarWatch): a wait that has not seen its phase
// after kWatchdogNs (producer) or 2x that (consumers: the producer gives up first, so its late
// copies still complete the phases the consumers wait on) gives up, counts one timeout in
// igemm_mutant_counters[0] and stops waiting from then on, so a deadlocked CTA still exits; the
// test's launcher reads the count after the run and reports a "watchdog" error. No __trap: the
// CUDA context stays usable for the shrinker's next runs.
#pragma once
#include <cstdint>

#include "gpu/gemm/sm90/wgmma_ops.hpp"

namespace hiprim::gpu::sm90 {

enum class IgemmMutant : int {
  none = 0,
  parity,         // producer waits empty[s] with parity use&1 instead of (use-1)&1: a deadlock (watchdog)
                  // once the consumers released s, no wait (an early refill) before that
  no_fence,       // consumers skip fence.proxy.async and wgmma.fence before the MMAs of a stage
  early_release,  // producer refills stage s without waiting for empty[s] (the consumers' release)
  k_tail,         // k-blocks = kred / KB (floor): the last partial k-block is never multiplied
  tma_edge,       // im2col TMA map: the W bounding box's upper corner one pixel too far at the image edge
  splitk_order,   // split-K reduction starts at split (launch ticket % splits): order varies per launch
};

// The kernel instantiation a mutant needs (host-side and reduction mutants run the production kernel).
constexpr IgemmMutant kernel_mutant(IgemmMutant m) {
  return m == IgemmMutant::tma_edge || m == IgemmMutant::splitk_order ? IgemmMutant::none : m;
}

inline constexpr unsigned long long kWatchdogNs = 50ull * 1000 * 1000;  // 50 ms per wait

#if defined(HIPRIM_IGEMM_MUTANTS) && defined(__CUDACC__)
// [0]: mbarrier waits that timed out; [1]: the reduction's launch tickets (never reset: the bug).
static __device__ unsigned igemm_mutant_counters[2];
#endif

#if HIPRIM_SM90A
__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ bool mbar_test(std::uint32_t bar, int parity) {
  std::uint32_t done = 0;
  asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
               : "=r"(done)
               : "r"(bar), "r"(parity)
               : "memory");
  return done != 0;
}
__device__ __forceinline__ void mutant_count(int which) {
#if defined(HIPRIM_IGEMM_MUTANTS)
  atomicAdd(&igemm_mutant_counters[which], 1u);
#else
  (void)which;
#endif
}

// mbar_wait, bounded under a mutant (see the header); `consumer` doubles the bound.
template <IgemmMutant M>
struct MbarWatch {
  bool gave_up = false;
  __device__ __forceinline__ void wait(std::uint32_t bar, int parity, bool consumer) {
    if constexpr (M == IgemmMutant::none) {
      mbar_wait(bar, parity);
    } else {
      if (gave_up) return;
      const unsigned long long t0 = global_ns(), limit = consumer ? 2 * kWatchdogNs : kWatchdogNs;
      while (!mbar_test(bar, parity))
        if (global_ns() - t0 > limit) {
          gave_up = true;
          mutant_count(0);
          return;
        }
    }
  }
};
#endif  // HIPRIM_SM90A

}  // namespace hiprim::gpu::sm90
