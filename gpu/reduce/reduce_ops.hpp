// The reduction ops' element rules, shared by the reduce kernels (gpu/reduce/reduce_kernels.hip,
// reduce_split.hip): op numbers are ReduceOp's order (add 0, mul 1, min 2, max 3, amax 4, avg 5,
// norm1 6, norm2 7). Summing ops accumulate term(op, x) in fp32 (mul: the product); selecting ops
// keep a Sel (value, logical slice index) with SelBetter's choice and tie rules
// (core/reduce_problem.hpp); write_out finishes an output (avg: / L, norm2: sqrt; indices as fp32).
#pragma once
#include <math.h>

#include "gpu/common/numeric.hpp"

namespace hiprim::gpu {

// The chosen element of min/max/amax: value and logical slice index (-1: none yet).
struct Sel {
  float v;
  int i;
};

struct SelBetter {
  int op;
  bool prop;
  // Whether a is chosen over b.
  __device__ __forceinline__ bool better(const Sel& a, const Sel& b) const {
    if (b.i < 0) return true;
    if (a.i < 0) return false;
    const bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn) return an && bn ? a.i < b.i : (prop ? an : bn);
    const float ka = op == 4 ? fabsf(a.v) : a.v, kb = op == 4 ? fabsf(b.v) : b.v;
    if (ka != kb) return op == 2 ? ka < kb : ka > kb;
    return a.i < b.i;
  }
  __device__ __forceinline__ Sel operator()(const Sel& a, const Sel& b) const { return better(a, b) ? a : b; }
};

struct MulOp {
  __device__ __forceinline__ float operator()(float a, float b) const { return a * b; }
};

__device__ __forceinline__ bool selects(int op) { return op == 2 || op == 3 || op == 4; }

// The per-element term of the summing ops.
__device__ __forceinline__ float term(int op, float v) { return op == 6 ? fabsf(v) : op == 7 ? v * v : v; }

template <typename T>
__device__ __forceinline__ void write_out(int op, long long length, long long o, float acc, Sel sel, T* y, float* idx) {
  float v = acc;
  if (selects(op)) {
    v = op == 4 ? fabsf(sel.v) : sel.v;
    if (idx) idx[o] = static_cast<float>(sel.i < 0 ? 0 : sel.i);
  } else if (op == 5) {
    v = acc / static_cast<float>(length);
  } else if (op == 7) {
    v = sqrtf(acc);
  }
  store_f(y, o, v);
}

}  // namespace hiprim::gpu
