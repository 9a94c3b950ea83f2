// Host side of conv.igemm.wgmma's kernels (include from the igemm_sm90_*.hip files): the launch of
// one config (main kernel, then the split-K reduction when splitk > 1), enqueued on a stream with
// no host synchronisation, allocation or read-back (capturable into a CUDA graph; the one-time
// raise of a kernel's dynamic shared-memory limit happens on its first launch).
// Each direction's .hip instantiates igemm_sm90_launch<T, DIR> for T = __half and bf16
// (IGEMM_SM90_INSTANTIATE), so the three directions compile in parallel.
#pragma once
#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "gpu/conv/igemm_sm90_kernel.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::gpu::sm90 {

#if HIPRIM_PLATFORM_NVIDIA
namespace detail {
template <typename T, int BM, int BN, IgemmDir DIR, bool WS>
void launch_tile(const IgemmLaunch& L, const IgemmConfig& c, const IgemmBuffers& buf, hipStream_t stream,
                 const std::string& context) {
  auto* kernel = igemm_sm90_kernel<T, BM, BN, DIR, WS>;
  static const bool raised = [&] {
    HIPRIM_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemLimit),
                 "raising the shared-memory limit of igemm_sm90_kernel for " + context);
    return true;
  }();
  (void)raised;
  kernel<<<dim3(L.grid_x, L.grid_y, L.grid_z), dim3(L.threads), static_cast<size_t>(L.smem), stream>>>(
      L.params, static_cast<const T*>(buf.a), static_cast<const T*>(buf.b), static_cast<T*>(buf.out),
      static_cast<const T*>(buf.bias), c.splitk > 1 ? static_cast<float*>(buf.workspace) : nullptr, c.stages);
  HIPRIM_CHECK_LAUNCH("igemm_sm90_kernel", context);
}
}  // namespace detail

template <typename T, IgemmDir DIR>
void igemm_sm90_launch(const IgemmLaunch& L, const IgemmConfig& c, const IgemmBuffers& buf, void* stream_ptr,
                       const std::string& context) {
  using namespace detail;
  const hipStream_t stream = static_cast<hipStream_t>(stream_ptr);
  switch (igemm_key(c.bm, c.bn, c.ws)) {
    case igemm_key(128, 128, false): launch_tile<T, 128, 128, DIR, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 256, false): launch_tile<T, 128, 256, DIR, false>(L, c, buf, stream, context); break;
    case igemm_key(256, 128, false): launch_tile<T, 256, 128, DIR, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 64, false): launch_tile<T, 128, 64, DIR, false>(L, c, buf, stream, context); break;
    case igemm_key(64, 128, false): launch_tile<T, 64, 128, DIR, false>(L, c, buf, stream, context); break;
    case igemm_key(64, 64, false): launch_tile<T, 64, 64, DIR, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 128, true): launch_tile<T, 128, 128, DIR, true>(L, c, buf, stream, context); break;
    case igemm_key(128, 256, true): launch_tile<T, 128, 256, DIR, true>(L, c, buf, stream, context); break;
    case igemm_key(128, 64, true): launch_tile<T, 128, 64, DIR, true>(L, c, buf, stream, context); break;
    case igemm_key(64, 128, true): launch_tile<T, 64, 128, DIR, true>(L, c, buf, stream, context); break;
    case igemm_key(64, 64, true): launch_tile<T, 64, 64, DIR, true>(L, c, buf, stream, context); break;
    default: throw InputError("conv.igemm.wgmma: tile of config " + to_string(c) + " is not instantiated");
  }
  if (c.splitk > 1) {
    const long long mn = static_cast<long long>(L.params.cls[0].m) * L.params.n_cols;
    const long long blocks = std::clamp<long long>((mn / 2 + 255) / 256, 1, 8LL * kNumSms);
    igemm_sm90_reduce<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(
        static_cast<const float*>(buf.workspace), c.splitk, mn, L.params.n_cols, static_cast<const T*>(buf.bias),
        static_cast<T*>(buf.out));
    HIPRIM_CHECK_LAUNCH("igemm_sm90_reduce", context);
  }
}
#else
template <typename T, IgemmDir DIR>
void igemm_sm90_launch(const IgemmLaunch&, const IgemmConfig&, const IgemmBuffers&, void*,
                       const std::string& context) {
  throw InputError("conv.igemm.wgmma needs NVIDIA sm_90a (wgmma); cannot run " + context);
}
#endif

#define IGEMM_SM90_INSTANTIATE(DIR)                                                                           \
  template void igemm_sm90_launch<__half, DIR>(const IgemmLaunch&, const IgemmConfig&, const IgemmBuffers&,  \
                                               void*, const std::string&);                                   \
  template void igemm_sm90_launch<hiprim_bf16_t, DIR>(const IgemmLaunch&, const IgemmConfig&,                \
                                                      const IgemmBuffers&, void*, const std::string&);

}  // namespace hiprim::gpu::sm90
