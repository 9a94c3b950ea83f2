// gemm(): the tiled GEMM with a plain store epilogue (C = round(A x B)), for every dtype pair, on the
// SIMT kernel (gemm_tile.hpp) or, for fp16/bf16 operands, the tensor-core kernel (gemm_mma.hpp).
#include "gpu/gemm/gemm.hpp"

#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "gpu/gemm/gemm_epilogue.hpp"
#include "gpu/gemm/gemm_mma.hpp"
#include "gpu/gemm/gemm_tile.hpp"
#include "gpu/runtime/device.hpp"

namespace hiprim::gpu {

std::string gemm_mma_unavailable() {
#if HIPRIM_PLATFORM_AMD
  return "no MFMA path yet: the tensor-core GEMM is NVIDIA mma.sync (sm_80+) only";
#else
  std::string why;
  if (!device_available(&why)) return why;
  int dev = 0, major = 0, minor = 0;
  if (hipGetDevice(&dev) != hipSuccess ||
      hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, dev) != hipSuccess ||
      hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, dev) != hipSuccess) {
    (void)hipGetLastError();
    return "could not query the device's compute capability";
  }
  if (major < 8)
    return "device compute capability sm_" + std::to_string(major) + std::to_string(minor) +
           " is below sm_80 (mma.sync m16n8k16 with bf16 needs sm_80)";
  return "";
#endif
}

namespace {

template <typename Tile, typename TAB, typename TC>
void run_gemm(const GemmCall& call) {
  StoreEpilogue<TC> ep;
  ep.out = static_cast<TC*>(call.c);
  ep.out_map = call.c_map;
  launch_gemm_split_k<TAB, Tile>(call.shape, call.k_splits, static_cast<float*>(call.workspace),
                                 static_cast<const TAB*>(call.a), call.a_map, static_cast<const TAB*>(call.b),
                                 call.b_map, ep, static_cast<hipStream_t>(call.stream), "running gemm()");
}

template <typename Tile, typename T>
void run_gemm_c(const GemmCall& call) {
  if (call.c_dtype == DType::fp32)
    run_gemm<Tile, T, float>(call);
  else
    run_gemm<Tile, T, T>(call);
}

}  // namespace

void gemm(const GemmCall& call) {
  check_gemm_shape(call.shape, "checking the arguments of gemm()");
  if (call.c_dtype != DType::fp32 && call.c_dtype != call.ab_dtype)
    throw InputError("gemm: c_dtype " + std::string(dtype_name(call.c_dtype)) + " must be fp32 or ab_dtype (" +
                     std::string(dtype_name(call.ab_dtype)) + ")");
  if (call.k_splits < 1 || call.k_splits > kSplitKMaxSplits)
    throw InputError("gemm: k_splits = " + std::to_string(call.k_splits) + " is outside [1, " +
                     std::to_string(kSplitKMaxSplits) + "]");
  if (call.engine == GemmEngine::mma && call.ab_dtype == DType::fp32)
    throw InputError("gemm: engine mma takes fp16/bf16 operands; fp32 would need tf32, which changes the numerics");
  const GemmShape& s = call.shape;
  if (s.m == 0 || s.n == 0 || s.batch == 0) return;
  if (call.c == nullptr) throw InputError("gemm: pointer c is null");
  if (s.k > 0 && call.a == nullptr) throw InputError("gemm: pointer a is null");
  if (s.k > 0 && call.b == nullptr) throw InputError("gemm: pointer b is null");
  if (call.k_splits > 1 && call.workspace == nullptr)
    throw InputError("gemm: k_splits = " + std::to_string(call.k_splits) + " needs a workspace of " +
                     std::to_string(gemm_workspace_bytes(call)) + " bytes, got a null pointer");
  if (call.engine == GemmEngine::mma) {
    if (const std::string why = gemm_mma_unavailable(); !why.empty())
      throw InputError("gemm: engine mma cannot run here: " + why);
  }
  dispatch_dtype(call.ab_dtype, [&]<typename T>() {
    if constexpr (kMmaOperand<T>) {
      if (call.engine == GemmEngine::mma) return run_gemm_c<GemmMmaTile, T>(call);
    }
    run_gemm_c<GemmTileDefault, T>(call);
  });
}

}  // namespace hiprim::gpu
