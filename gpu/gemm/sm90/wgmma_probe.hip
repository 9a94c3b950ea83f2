// Micro-test kernels of the warpgroup-MMA layer (see wgmma_probe.hpp); built for sm_90a only.
#include "gpu/gemm/sm90/wgmma_probe.hpp"

#include <type_traits>

#include "core/error.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/gemm/sm90/wgmma_layout.hpp"
#include "gpu/gemm/sm90/wgmma_ops.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/device.hpp"

namespace hiprim::gpu::sm90 {
namespace {

constexpr int kProbeThreads = 128;

// Byte offset of operand element (row, k) in the kind's layout; is_b picks B's major-ness.
__device__ std::uint32_t probe_offset(WgmmaProbeKind kind, bool is_b, int row, int k) {
  switch (kind) {
    case WgmmaProbeKind::interleave_k16: return interleave_offset(row, k);
    case WgmmaProbeKind::kmajor_b128: return kmajor_offset(row, k);
    case WgmmaProbeKind::kmajor_a_mn_b:
    case WgmmaProbeKind::mn_b_n128: return is_b ? mnmajor_offset(row, k) : kmajor_offset(row, k);
    default: return mnmajor_offset(row, k);
  }
}

template <typename T, WgmmaProbeKind KIND>
__global__ void __launch_bounds__(kProbeThreads) wgmma_probe_kernel(const std::uint16_t* a, const std::uint16_t* b,
                                                                    float* d) {
#if HIPRIM_SM90A
  constexpr int K = KIND == WgmmaProbeKind::interleave_k16 ? 16 : 64;
  constexpr int N = KIND == WgmmaProbeKind::mn_b_n128 ? 128 : 64;
  constexpr int TA = KIND == WgmmaProbeKind::mnmajor_b128 ? 1 : 0;
  constexpr int TB = KIND == WgmmaProbeKind::kmajor_b128 || KIND == WgmmaProbeKind::interleave_k16 ? 0 : 1;
  __shared__ __align__(1024) std::uint16_t sa[64 * 64];
  __shared__ __align__(1024) std::uint16_t sb[128 * 64];
  const int tid = static_cast<int>(threadIdx.x);
  for (int e = tid; e < 64 * K; e += kProbeThreads)  // plain stores through the layout maps
    sa[probe_offset(KIND, false, e / K, e % K) / 2] = a[e];
  for (int e = tid; e < N * K; e += kProbeThreads) sb[probe_offset(KIND, true, e / K, e % K) / 2] = b[e];
  fence_proxy_async();
  __syncthreads();
  float acc[N / 2];
#pragma unroll
  for (int v = 0; v < N / 2; ++v) acc[v] = 0.0f;
  const std::uint32_t a0 = smem_addr(sa), b0 = smem_addr(sb);
  fence_operands(acc);
  wgmma_fence();
  if constexpr (KIND == WgmmaProbeKind::interleave_k16) {
    const std::uint64_t da = make_desc(a0, kInterleaveLbo, kInterleaveSbo, Swizzle::none);
    const std::uint64_t db = make_desc(b0, kInterleaveLbo, kInterleaveSbo, Swizzle::none);
    if constexpr (N == 64) wgmma_tile<T, 64, 0, 0>(acc, da, db);
  } else {
    const std::uint64_t da = TA ? desc_mnmajor(a0) : desc_kmajor(a0);
    const std::uint64_t db = TB ? desc_mnmajor(b0) : desc_kmajor(b0);
    constexpr std::uint32_t as = TA ? kKStepBytesMN : kKStepBytesK, bs = TB ? kKStepBytesMN : kKStepBytesK;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) wgmma_tile<T, N, TA, TB>(acc, desc_advance(da, ks * as), desc_advance(db, ks * bs));
  }
  wgmma_commit();
  wgmma_wait<0>();
  fence_operands(acc);
#pragma unroll
  for (int v = 0; v < N / 2; ++v) d[acc_row(tid, v) * N + acc_col(tid, v)] = acc[v];
#else
  (void)a, (void)b, (void)d;
#endif
}

template <typename T>
__global__ void reference_gemm_kernel(int M, int N, int K, const T* a, long long sam, long long sak, const T* b,
                                      long long sbn, long long sbk, float* c) {
  const long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (e >= static_cast<long long>(M) * N) return;
  const int m = static_cast<int>(e / N), n = static_cast<int>(e % N);
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += load_f(a, m * sam + k * sak) * load_f(b, n * sbn + k * sbk);
  c[e] = s;
}

template <typename T, WgmmaProbeKind KIND>
void launch_probe(const std::uint16_t* a, const std::uint16_t* b, float* d) {
  wgmma_probe_kernel<T, KIND><<<1, kProbeThreads>>>(a, b, d);
  HIPRIM_CHECK_LAUNCH("wgmma_probe_kernel", probe_kind_name(KIND));
}

}  // namespace

const char* probe_kind_name(WgmmaProbeKind k) {
  switch (k) {
    case WgmmaProbeKind::interleave_k16: return "interleave_k16";
    case WgmmaProbeKind::kmajor_b128: return "kmajor_b128";
    case WgmmaProbeKind::kmajor_a_mn_b: return "kmajor_a_mn_b";
    case WgmmaProbeKind::mnmajor_b128: return "mnmajor_b128";
    case WgmmaProbeKind::mn_b_n128: return "mn_b_n128";
  }
  return "?";
}

std::vector<float> wgmma_probe(WgmmaProbeKind kind, DType dtype, const std::vector<std::uint16_t>& a,
                               const std::vector<std::uint16_t>& b) {
  const std::size_t na = static_cast<std::size_t>(64 * probe_k(kind)), nb = static_cast<std::size_t>(probe_n(kind) * probe_k(kind));
  const std::size_t nd = static_cast<std::size_t>(64 * probe_n(kind));
  if (a.size() != na || b.size() != nb) throw InputError("wgmma_probe: a needs 64 * K and b N * K elements");
  if (dtype == DType::fp32) throw InputError("wgmma_probe: fp16 or bf16 only");
  DeviceBuffer da(na * 2, "probe a"), db(nb * 2, "probe b"), dd(nd * sizeof(float), "probe d");
  da.upload(a.data(), na * 2);
  db.upload(b.data(), nb * 2);
  dd.fill_bytes(0xFF);
  auto* pa = static_cast<const std::uint16_t*>(da.data());
  auto* pb = static_cast<const std::uint16_t*>(db.data());
  auto* pd = static_cast<float*>(dd.data());
  dispatch_dtype(dtype, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, float>) {
      switch (kind) {
        case WgmmaProbeKind::interleave_k16: launch_probe<T, WgmmaProbeKind::interleave_k16>(pa, pb, pd); break;
        case WgmmaProbeKind::kmajor_b128: launch_probe<T, WgmmaProbeKind::kmajor_b128>(pa, pb, pd); break;
        case WgmmaProbeKind::kmajor_a_mn_b: launch_probe<T, WgmmaProbeKind::kmajor_a_mn_b>(pa, pb, pd); break;
        case WgmmaProbeKind::mnmajor_b128: launch_probe<T, WgmmaProbeKind::mnmajor_b128>(pa, pb, pd); break;
        case WgmmaProbeKind::mn_b_n128: launch_probe<T, WgmmaProbeKind::mn_b_n128>(pa, pb, pd); break;
      }
    }
  });
  synchronize("wgmma_probe");
  std::vector<float> d(nd);
  dd.download(d.data(), d.size() * sizeof(float));
  return d;
}

void reference_gemm_device(DType dtype, int M, int N, int K, const void* a, long long sam, long long sak,
                           const void* b, long long sbn, long long sbk, float* c) {
  const long long total = static_cast<long long>(M) * N;
  const unsigned blocks = static_cast<unsigned>((total + 255) / 256);
  dispatch_dtype(dtype, [&]<typename T>() {
    reference_gemm_kernel<T><<<blocks, 256>>>(M, N, K, static_cast<const T*>(a), sam, sak, static_cast<const T*>(b),
                                             sbn, sbk, c);
  });
  HIPRIM_CHECK_LAUNCH("reference_gemm_kernel", "reference_gemm_device");
  synchronize("reference_gemm_device");
}

}  // namespace hiprim::gpu::sm90
