// The per-element expressions every softmax kernel uses (fp32; the model of reference/softmax.cpp):
//   fwd, per row: m = max x (NaN wins), S = sum e^(x - m);
//        y = e^(x - m) / S, log-softmax: y = (x - m) - log S
//   bwd: s = sum dy*y, dx = y (dy - s); log: s = sum dy, dx = dy - e^y s
#pragma once
#include <math.h>

#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

__device__ __forceinline__ float softmax_y(bool log, float d, float s, float log_s) { return log ? d - log_s : expf(d) / s; }
// The backward sum's term of element (y, dy).
__device__ __forceinline__ float softmax_bwd_term(bool log, float y, float dy) { return log ? dy : dy * y; }
__device__ __forceinline__ float softmax_dx(bool log, float y, float dy, float s) { return log ? dy - expf(y) * s : y * (dy - s); }

}  // namespace hiprim::gpu
