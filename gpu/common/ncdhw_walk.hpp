// Storage-order walks over [N, C, D, H, W] tensors (2D as D = 1) in NCDHW or NDHWC order: the
// position (n, c, d, h, w) of a storage-order linear index, so that a grid-stride loop over that
// index gives neighbouring threads neighbouring elements in either layout. Used by the pooling and
// LRN kernels; nc3_decode_fast is the same decode without divide instructions for indices below
// 2^31. Names: Nc3 = N, C and three spatial axes (d, h, w).
#pragma once
#include "core/host_device.hpp"
#include "gpu/common/fast_div.hpp"
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {

struct Nc3Extent {
  int n, c, s[3];      // c may count channel groups (C / V) when a thread handles V channels
  bool channels_last;  // storage order n, d, h, w, c (else n, c, d, h, w)
};

struct Nc3Pos {
  int n, c, s[3];
};

HIPRIM_HOST_DEVICE __forceinline__ long long nc3_elements(const Nc3Extent& e) {
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

// The same decode by multiplications (FastDiv) for tensors of fewer than 2^31 elements.
struct Nc3FastExtent {
  Nc3Extent e;
  FastDiv c, s0, s1, s2;
};

inline Nc3FastExtent nc3_fast(const Nc3Extent& e) {
  return {e, FastDiv(static_cast<std::uint32_t>(e.c)), FastDiv(static_cast<std::uint32_t>(e.s[0])),
          FastDiv(static_cast<std::uint32_t>(e.s[1])), FastDiv(static_cast<std::uint32_t>(e.s[2]))};
}

__device__ __forceinline__ Nc3Pos nc3_decode_fast(std::uint32_t i, const Nc3FastExtent& f) {
  Nc3Pos p;
  std::uint32_t q, r;
  if (f.e.channels_last) {
    f.c.divmod(i, q, r);
    p.c = static_cast<int>(r);
    i = q;
  }
  f.s2.divmod(i, q, r);
  p.s[2] = static_cast<int>(r);
  f.s1.divmod(q, i, r);
  p.s[1] = static_cast<int>(r);
  f.s0.divmod(i, q, r);
  p.s[0] = static_cast<int>(r);
  i = q;
  if (!f.e.channels_last) {
    f.c.divmod(i, q, r);
    p.c = static_cast<int>(r);
    i = q;
  }
  p.n = static_cast<int>(i);
  return p;
}

// Element strides as n, c, d, h, w (d = 0 in 2D).
struct Nc3Strides {
  long long st[5];
  HIPRIM_HOST_DEVICE __forceinline__ long long at(int n, int c, int d, int h, int w) const {
    return n * st[0] + c * st[1] + d * st[2] + h * st[3] + w * st[4];
  }
};

}  // namespace hiprim::gpu
