// Epilogues of the tiled GEMM (device code): what happens to each finished accumulator.
//
// StoreEpilogue<TOut, TBias>:  out[out_map(b, m, n)] = round_TOut( (partial[...] + acc) + bias[...] )
//   - partial (optional): an fp32 sum of earlier passes over other parts of the reduction, laid out
//     by partial_map; added first, so a reduction cut into passes sums in a fixed order;
//   - bias (optional): one value per row, at bias_batch(b) + bias_rows(m) (e.g. conv output channel
//     g*Kg + m); added after the whole sum;
//   - rounding: store_f (round to nearest even for __half / bf16; identity for float).
// The same thread reads partial and writes out, so out may alias partial (in-place accumulation).
#pragma once
#include "gpu/common/numeric.hpp"
#include "gpu/gemm/gemm_index.hpp"

namespace hiprim::gpu {

template <typename TOut, typename TBias = TOut>
struct StoreEpilogue {
  TOut* out = nullptr;
  MatrixMap out_map;
  const float* partial = nullptr;
  MatrixMap partial_map;
  const TBias* bias = nullptr;
  DimMap bias_rows, bias_batch;

  __device__ __forceinline__ void operator()(int b, int m, int n, float acc) const {
    if (partial != nullptr) acc = partial[partial_map(b, m, n)] + acc;
    if (bias != nullptr) acc += load_f(bias, bias_batch(b) + bias_rows(m));
    store_f(out, out_map(b, m, n), acc);
  }
};

}  // namespace hiprim::gpu
