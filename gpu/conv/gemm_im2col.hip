// conv.gemm.im2col: convolution as im2col + the tiled GEMM (gpu/gemm), every direction, conv and
// trans, 2D and 3D, groups, stride, pad, dilation, fp32/fp16/bf16, NCHW/NHWC (and 3D variants).
//
// Per chunk of images (so the workspace stays within its limit; gemm_conv_maps.hpp plans it), for
// all groups at once (GEMM batch = group), in the terms of gemm_conv_maps.hpp:
//   out_from_in (conv fwd, trans bwd-data):  col = im2col(In);  Out = W x col (+bias), rounded once.
//   in_from_out (conv bwd-data, trans fwd):  colgrad = W^T x Out (fp32);  In = col2im gather (+bias).
//   w_from_in_out (bwd-weights):             col = im2col(In);  W = sum over chunks of Out x col^T:
//       one chunk: rounded straight into W; several: fp32 partial sums in the workspace, chunk after
//       chunk in order, the last chunk's epilogue adds the partial sum and rounds into W. Each chunk's
//       GEMM may itself run as deterministic split-K (few output tiles, long K).
// Every sum is in fp32 in a fixed order: deterministic, no atomics.
// conv.gemm.im2col.mma: the same solver on the tensor-core GEMM (gemm_conv_engine.hpp): fp16/bf16
// only, NVIDIA sm_80+; same im2col/col2im kernels, workspace plan, chunks and split-K count.
#include <algorithm>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/gemm_conv_engine.hpp"
#include "gpu/conv/gemm_conv_ops.hpp"
#include "gpu/conv/im2col_kernels.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/launch.hpp"

namespace hiprim::gpu {
namespace {

constexpr const char* kIm2colName = "conv.gemm.im2col";

template <typename T>
void launch_im2col(const ConvGeom& g, const ColLayout& cl, bool channels_last, const T* in, T* col,
                   hipStream_t stream, const std::string& context) {
  const unsigned blocks = grid_stride_blocks(cl.elements(), kIm2colBlock);
  im2col_kernel<T><<<blocks, kIm2colBlock, 0, stream>>>(g, cl, channels_last, in, col);
  HIPRIM_CHECK_LAUNCH("im2col_kernel", context);
}

template <typename T>
void launch_col2im(const ConvGeom& g, const ColLayout& cl, bool channels_last, std::int64_t images,
                   const float* colgrad, const T* bias, T* in, hipStream_t stream, const std::string& context) {
  const unsigned blocks = grid_stride_blocks(images * g.in_ch * g.in_spatial(), kIm2colBlock);
  col2im_kernel<T><<<blocks, kIm2colBlock, 0, stream>>>(g, cl, channels_last, static_cast<int>(images), colgrad,
                                                         bias, in);
  HIPRIM_CHECK_LAUNCH("col2im_kernel", context);
}

template <typename T, typename Tile>
void run_chunks(const ConvProblem& p, const ConvTensors& t, const Im2colPlan& plan, const std::string& name) {
  const ConvGeom g = conv_geom(p);
  const ConvOperands ops = conv_operands(p, t);
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  const T* bias = p.bias ? static_cast<const T*>(ops.bias) : nullptr;
  T* const w = static_cast<T*>(ops.w);
  T* const in = static_cast<T*>(ops.in);
  T* const out = static_cast<T*>(ops.out);
  unsigned char* const ws = static_cast<unsigned char*>(t.workspace);
  float* const partial = reinterpret_cast<float*>(ws + plan.partial_offset);
  float* const split_partial = reinterpret_cast<float*>(ws + plan.split_offset);
  const MatrixMap w_map = w_out_by_q(g);

  for (std::int64_t chunk = 0; chunk < plan.chunks; ++chunk) {
    const std::int64_t n0 = chunk * plan.images_per_chunk;
    const std::int64_t images = std::min(plan.images_per_chunk, static_cast<std::int64_t>(g.batch) - n0);
    const ColLayout cl = plan.col_layout(images, g.groups, p.channels_last);
    T* const in0 = in + n0 * g.in_str[0];
    T* const out0 = out + n0 * g.out_str[0];
    const std::string context = name + " images [" + std::to_string(n0) + ", " +
                                std::to_string(n0 + images) + ") of " + to_string(p);
    switch (plan.op) {
      case ConvOp::out_from_in: {
        T* const col = reinterpret_cast<T*>(ws);
        launch_im2col<T>(g, cl, p.channels_last, in0, col, stream, context);
        gemm_out_from_in<T, Tile>(g, images, w, col, cl.q_by_j(), out0, bias, stream, context);
        break;
      }
      case ConvOp::in_from_out: {
        float* const colgrad = reinterpret_cast<float*>(ws);
        StoreEpilogue<float> ep;
        ep.out = colgrad;
        ep.out_map = cl.q_by_j();
        gemm_in_from_out<T, Tile>(g, images, w, out0, ep, stream, context);
        launch_col2im<T>(g, cl, p.channels_last, images, colgrad, bias, in0, stream, context);
        break;
      }
      case ConvOp::w_from_in_out: {
        T* const col = reinterpret_cast<T*>(ws);
        launch_im2col<T>(g, cl, p.channels_last, in0, col, stream, context);
        const bool first = chunk == 0, last = chunk == plan.chunks - 1;
        if (last) {  // round into W, adding the earlier chunks' sum when there is one
          StoreEpilogue<T> ep;
          ep.out = w;
          ep.out_map = w_map;
          if (!first) ep.partial = partial, ep.partial_map = w_map;
          gemm_w_from_in_out<T, Tile>(g, images, out0, col, cl.q_by_j(), ep, plan.k_splits, split_partial, stream,
                                context);
        } else {  // fp32 partial sum, in place
          StoreEpilogue<float> ep;
          ep.out = partial;
          ep.out_map = w_map;
          if (!first) ep.partial = partial, ep.partial_map = w_map;
          gemm_w_from_in_out<T, Tile>(g, images, out0, col, cl.q_by_j(), ep, plan.k_splits, split_partial, stream,
                                context);
        }
        break;
      }
    }
  }
}

template <typename Engine>
class ConvGemmIm2col final : public ConvSolver {
 public:
  explicit ConvGemmIm2col(std::size_t workspace_limit) : limit_(workspace_limit) {}
  std::string name() const override { return std::string(kIm2colName) + Engine::suffix; }
  Backend backend() const override { return Backend::device; }
  double accumulation_error_factor() const override { return Engine::accumulation_error_factor; }
  // im2col's zeros are multiplied (out_from_in, w_from_in_out); col2im gathers real taps only (in_from_out).
  ImplicitZeros implicit_zeros(const ConvProblem&) const override {
    return {.padding = ZeroTerm::multiplied, .border_taps = ZeroTerm::skipped, .stride_holes = ZeroTerm::skipped};
  }
  std::string summary() const override {
    return std::string("im2col + ") + Engine::gemm +
           ", fp32 accumulation: fwd, bwd-data (col2im gather), bwd-weights; conv and trans; "
           "2D/3D, groups, stride/pad/dilation; " + Engine::dtypes + "; NCHW/NHWC/NCDHW/NDHWC; workspace <= " +
           std::to_string(limit_ >> 20) + " MiB";
  }
  Applicability applicable(const ConvProblem& p) const override {
    if (auto errors = p.validate(); !errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    if (auto why = Engine::refusal(p); !why) return why;
    const Im2colPlan plan = plan_im2col(p, limit_);
    if (!plan.refusal.empty()) return Applicability::no(plan.refusal);
    return Applicability::yes();
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    if (!p.valid()) return 0;
    const Im2colPlan plan = plan_im2col(p, limit_);
    return plan.refusal.empty() ? plan.workspace_bytes : 0;
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const std::string me = name();
    const Im2colPlan plan = plan_im2col(p, limit_);
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if constexpr (Engine::template takes<T>) run_chunks<T, typename Engine::Tile>(p, t, plan, me);
    });
  }

 private:
  std::size_t limit_;
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_gemm_im2col() {
  return std::make_shared<ConvGemmIm2col<SimtConvEngine>>(kIm2colWorkspaceLimit);
}
std::shared_ptr<const ConvSolver> make_conv_gemm_im2col(std::size_t workspace_limit_bytes) {
  return std::make_shared<ConvGemmIm2col<SimtConvEngine>>(workspace_limit_bytes);
}
std::shared_ptr<const ConvSolver> make_conv_gemm_im2col_mma() {
  return std::make_shared<ConvGemmIm2col<MmaConvEngine>>(kIm2colWorkspaceLimit);
}
std::shared_ptr<const ConvSolver> make_conv_gemm_im2col_mma(std::size_t workspace_limit_bytes) {
  return std::make_shared<ConvGemmIm2col<MmaConvEngine>>(workspace_limit_bytes);
}

}  // namespace hiprim::gpu
