// Storage-order walks over [N, C, D, H, W] tensors (2D as D = 1) in NCDHW or NDHWC order: a
// grid-stride loop over the storage-order linear index gives neighbouring threads neighbouring
// elements in either layout. Used by the pooling and LRN kernels.
#pragma once
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

struct Nc3Extent {
  int n, c, s[3];      // c may count channel groups (C / V) when a thread handles V channels
  bool channels_last;  // storage order n, d, h, w, c (else n, c, d, h, w)
};

struct Nc3Pos {
  int n, c, s[3];
};

__host__ __device__ __forceinline__ long long nc3_elements(const Nc3Extent& e) {
  return 1LL * e.n * e.c * e.s[0] * e.s[1] * e.s[2];
}

__device__ __forceinline__ Nc3Pos nc3_decode(long long i, const Nc3Extent& e) {
  Nc3Pos p;
  if (e.channels_last) {
    p.c = static_cast<int>(i % e.c);
    i /= e.c;
  }
  p.s[2] = static_cast<int>(i % e.s[2]);
  i /= e.s[2];
  p.s[1] = static_cast<int>(i % e.s[1]);
  i /= e.s[1];
  p.s[0] = static_cast<int>(i % e.s[0]);
  i /= e.s[0];
  if (!e.channels_last) {
    p.c = static_cast<int>(i % e.c);
    i /= e.c;
  }
  p.n = static_cast<int>(i);
  return p;
}

// Element strides as n, c, d, h, w (d = 0 in 2D).
struct Nc3Strides {
  long long st[5];
  __host__ __device__ __forceinline__ long long at(int n, int c, int d, int h, int w) const {
    return n * st[0] + c * st[1] + d * st[2] + h * st[3] + w * st[4];
  }
};

}  // namespace hiprim::gpu
