// The problems both the emulated (CPU) and the GPU runs of the pool / LRN / tensor-op / reduce
// solvers take; each test adds its own (the GPU run larger sizes, the emulated one more shapes).
#pragma once
#include <vector>

namespace hiprim::test_ops {

inline const std::vector<const char*> kPoolLrnTensorOpReduceShared = {
    "pool fwd max fp32 nchw n2 c3 in9x9 win3x3 pad1x1 str2x2",
    "pool bwd max fp32 nchw n2 c3 in9x9 win3x3 pad1x1 str2x2",
    "pool fwd max bf16 nhwc n2 c8 in8x8 win2x2 pad0x0 str2x2",
    "pool fwd max fp32 nhwc n1 c12 in11x7 win3x2 pad1x1 str2x1",
    "pool fwd avg_incl fp16 nhwc n2 c8 in7x7 win3x3 pad1x1 str1x1",
    "pool bwd avg_incl fp32 nchw n2 c5 in7x9 win3x3 pad1x1 str1x2",
    "pool fwd avg_excl fp32 nhwc n2 c4 in7x7 win3x3 pad1x1 str2x2",
    "pool bwd avg_excl bf16 nhwc n2 c8 in7x7 win3x3 pad1x1 str2x2",
    "pool fwd avg_excl fp32 ncdhw n1 c4 in5x6x6 win2x3x3 pad1x1x1 str2x2x2",
    "pool bwd max fp16 ndhwc n1 c8 in5x6x6 win3x3x3 pad1x1x1 str2x2x2",
    "pool bwd avg_incl bf16 ncdhw n1 c3 in4x5x6 win3x3x3 pad1x1x1 str1x1x1",
    // bwd by 2 x 2 tiles (stride 2 along h and w) where a tile's windows reach past some of its positions (kh = win):
    // pad 0 (3x3), 5x5, and 3D, where an index one row past the window would name the next depth slice's tap.
    "pool bwd avg_incl fp32 nchw n2 c3 in9x9 win3x3 pad0x0 str2x2",
    "pool bwd avg_excl fp16 nhwc n1 c8 in11x11 win5x5 pad2x2 str2x2",
    "pool bwd max fp32 ncdhw n1 c2 in4x7x7 win2x3x3 pad0x0x0 str1x2x2",
    // Global windows (pool.global): packed and scalar channels last, lanes along the plane (S > 32: several per lane), 3D.
    "pool fwd max fp32 nchw n2 c3 in7x7 win7x7 pad0x0 str1x1",
    "pool fwd avg_incl bf16 nhwc n2 c16 in7x7 win7x7 pad0x0 str1x1",
    "pool fwd max fp16 nhwc n1 c24 in5x6 win5x6 pad0x0 str1x1",
    "pool fwd avg_excl fp32 nhwc n2 c5 in3x3 win3x3 pad0x0 str1x1",
    "pool fwd max bf16 ncdhw n1 c3 in3x4x5 win3x4x5 pad0x0x0 str1x1x1",
    "pool fwd max fp32 nchw n1 c2 in20x20 win20x20 pad0x0 str1x1",
    "pool fwd avg_incl fp16 nchw n2 c3 in9x11 win9x11 pad0x0 str2x2",
    "lrn fwd across fp32 nchw n2 c8 in5x5 size5 alpha1 beta0.75 k2",
    "lrn bwd across fp16 nhwc n2 c8 in5x5 size3 alpha0.5 beta0.75 k1",
    "lrn bwd across fp32 nchw n2 c7 in6x5 size5 alpha2 beta1.5 k1",
    "lrn fwd within bf16 nchw n2 c3 in7x7 size3 alpha1 beta0.75 k1",
    "lrn bwd within fp32 nhwc n2 c3 in7x6 size5 alpha1 beta0.75 k1",
    "lrn bwd within fp32 ncdhw n1 c2 in4x5x5 size3 alpha1 beta0.5 k1",
    "tensorop add fp32 nchw a2x3x5x5 b1x3x1x1 alpha1=1 alpha2=1 beta=0",
    "tensorop add fp32 nchw a2x3x5x8 b1x3x1x1 alpha1=1 alpha2=1 beta=0",
    "tensorop mul fp16 nhwc a2x8x4x4 b2x8x1x4 alpha1=0.5 alpha2=2 beta=1",
    "tensorop min bf16 a3x17 b1x17 alpha1=1 alpha2=-1 beta=0",
    "tensorop max fp32 ndhwc a1x4x2x3x8 b1x1x2x1x8 alpha1=1 alpha2=1 beta=0.5",
    "tensorop max fp32 a4x6x8 b4x1x8 alpha1=1 alpha2=1 beta=0",
    "tensorop add fp32 a5 b1 alpha1=2 alpha2=1 beta=-1",
    "reduce norm1 bf16 dims17 over0 nan_ignore",
    "reduce mul fp32 dims3x40 over1 nan_ignore",
};

// shared + own, in that order.
inline std::vector<const char*> with_shared(const std::vector<const char*>& own) {
  std::vector<const char*> all = kPoolLrnTensorOpReduceShared;
  all.insert(all.end(), own.begin(), own.end());
  return all;
}

}  // namespace hiprim::test_ops
