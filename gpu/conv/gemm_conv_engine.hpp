// The GEMM engines of the conv.gemm.* solvers (device-side header): each solver class is written
// once and instantiated per engine, so conv.gemm.1x1 / conv.gemm.im2col run on the SIMT tiled GEMM
// and conv.gemm.1x1.mma / conv.gemm.im2col.mma on the tensor-core GEMM, with the same operand maps,
// workspace plan, chunking and split-K count.
//   Tile        the GEMM tile type (picks the kernel, gemm_tile.hpp's GemmKernel)
//   suffix      appended to the sibling's name
//   takes<T>    whether the engine has a kernel for element type T (others are never instantiated)
//   refusal(p)  the engine's own reasons to refuse, checked before the sibling's
#pragma once
#include <string>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "gpu/gemm/gemm.hpp"
#include "gpu/gemm/gemm_mma.hpp"
#include "gpu/gemm/gemm_tile.hpp"

namespace hiprim::gpu {

struct SimtConvEngine {
  using Tile = GemmTileDefault;
  static constexpr const char* suffix = "";
  static constexpr const char* gemm = "tiled GEMM";
  static constexpr const char* dtypes = "fp32/fp16/bf16";
  static constexpr double accumulation_error_factor = 1.0;  // fp32 FMA, round to nearest
  template <typename T>
  static constexpr bool takes = true;
  static Applicability refusal(const ConvProblem&) { return Applicability::yes(); }
};

struct MmaConvEngine {
  using Tile = GemmMmaTile;
  static constexpr const char* suffix = ".mma";
  static constexpr const char* gemm = "tensor-core GEMM (mma.sync m16n8k16, sm_80+)";
  static constexpr const char* dtypes = "fp16/bf16";
  // The tensor core's fp32 adds align to the largest exponent and truncate: each errs by < 2u.
  static constexpr double accumulation_error_factor = 2.0;
  template <typename T>
  static constexpr bool takes = kMmaOperand<T>;
  static Applicability refusal(const ConvProblem& p) {
    if (p.dtype == DType::fp32)
      return Applicability::no("tensor-core path takes fp16/bf16; fp32 would need tf32, which changes the numerics");
    if (const std::string why = gemm_mma_unavailable(); !why.empty()) return Applicability::no(why);
    return Applicability::yes();
  }
};

}  // namespace hiprim::gpu
