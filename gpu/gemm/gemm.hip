// gemm(): the tiled GEMM with a plain store epilogue (C = round(A x B)), for every dtype pair.
#include "gpu/gemm/gemm.hpp"

#include <string>

#include "core/error.hpp"
#include "gpu/gemm/gemm_epilogue.hpp"
#include "gpu/gemm/gemm_tile.hpp"

namespace hiprim::gpu {

namespace {

template <typename TAB, typename TC>
void run_gemm(const GemmCall& call) {
  StoreEpilogue<TC> ep;
  ep.out = static_cast<TC*>(call.c);
  ep.out_map = call.c_map;
  launch_gemm_split_k<TAB>(call.shape, call.k_splits, static_cast<float*>(call.workspace),
                           static_cast<const TAB*>(call.a), call.a_map, static_cast<const TAB*>(call.b), call.b_map, ep,
                           static_cast<hipStream_t>(call.stream), "running gemm()");
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
  const GemmShape& s = call.shape;
  if (s.m == 0 || s.n == 0 || s.batch == 0) return;
  if (call.c == nullptr) throw InputError("gemm: pointer c is null");
  if (s.k > 0 && call.a == nullptr) throw InputError("gemm: pointer a is null");
  if (s.k > 0 && call.b == nullptr) throw InputError("gemm: pointer b is null");
  if (call.k_splits > 1 && call.workspace == nullptr)
    throw InputError("gemm: k_splits = " + std::to_string(call.k_splits) + " needs a workspace of " +
                     std::to_string(gemm_workspace_bytes(call)) + " bytes, got a null pointer");
  dispatch_dtype(call.ab_dtype, [&]<typename T>() {
    if (call.c_dtype == DType::fp32)
      run_gemm<T, float>(call);
    else
      run_gemm<T, T>(call);
  });
}

}  // namespace hiprim::gpu
