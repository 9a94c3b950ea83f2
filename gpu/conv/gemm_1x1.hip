// conv.gemm.1x1: a convolution with every filter dim 1, pad 0 and stride 1 is a plain GEMM per group
// over the pixels of all images, with no im2col (gemm_conv_maps.hpp, col = In):
//   out_from_in (conv fwd, trans bwd-data):  Out[co][j] = sum_ci W[co][ci] * In[ci][j]  (+bias[co])
//   in_from_out (conv bwd-data, trans fwd):  In[ci][j]  = sum_co W[co][ci] * Out[co][j] (+bias[ci])
//   w_from_in_out (bwd-weights):             W[co][ci]  = sum_j Out[co][j] * In[ci][j]
// j = image*P + pixel runs over all N images in one GEMM dimension: a plain stride for channels-last
// layouts (images back to back, pixel stride C), a two-level split (pixel stride 1, image stride C*P)
// for NCHW. Each sum is one thread's fp32 sum in a fixed order, rounded once: deterministic.
// bwd-weights (few output tiles, K = N*P) runs as deterministic split-K when that fills the GPU
// better; its fp32 slice sums are the only workspace.
// Dilation does not matter with one tap. Refused: stride > 1 (the pixel view would need three
// index levels; conv.gemm.im2col covers it), pad > 0, and transposed problems whose output padding
// gives In and Out different pixel counts.
// conv.gemm.1x1.mma: the same solver on the tensor-core GEMM (gemm_conv_engine.hpp): fp16/bf16 only,
// NVIDIA sm_80+; same maps, same split-K count and workspace.
#include <memory>
#include <string>

#include "core/error.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/gemm_conv_engine.hpp"
#include "gpu/conv/gemm_conv_ops.hpp"
#include "gpu/conv/solvers.hpp"

namespace hiprim::gpu {
namespace {

constexpr const char* k1x1Name = "conv.gemm.1x1";

template <typename T, typename Tile>
void run_1x1(const ConvProblem& p, const ConvTensors& t, const std::string& name) {
  const ConvGeom g = conv_geom(p);
  const ConvOperands ops = conv_operands(p, t);
  const hipStream_t stream = static_cast<hipStream_t>(t.stream);
  const T* bias = p.bias ? static_cast<const T*>(ops.bias) : nullptr;
  T* const w = static_cast<T*>(ops.w);
  T* const in = static_cast<T*>(ops.in);
  T* const out = static_cast<T*>(ops.out);
  const std::string context = name + " " + to_string(p);
  switch (conv_op(p)) {
    case ConvOp::out_from_in:
      gemm_out_from_in<T, Tile>(g, g.batch, w, in, in_channel_by_pixel(g), out, bias, stream, context);
      break;
    case ConvOp::in_from_out: {
      StoreEpilogue<T> ep;
      ep.out = in;
      ep.out_map = in_channel_by_pixel(g);
      if (bias != nullptr) {
        const BiasMap bm = bias_per_channel(g.in_per_group());
        ep.bias = bias;
        ep.bias_rows = bm.rows;
        ep.bias_batch = bm.batch;
      }
      gemm_in_from_out<T, Tile>(g, g.batch, w, out, ep, stream, context);
      break;
    }
    case ConvOp::w_from_in_out: {
      StoreEpilogue<T> ep;
      ep.out = w;
      ep.out_map = w_out_by_q(g);
      gemm_w_from_in_out<T, Tile>(g, g.batch, out, in, in_channel_by_pixel(g), ep, w_from_in_out_splits(g, g.batch),
                            static_cast<float*>(t.workspace), stream, context);
      break;
    }
  }
}

template <typename Engine>
class ConvGemm1x1 final : public ConvSolver {
 public:
  std::string name() const override { return std::string(k1x1Name) + Engine::suffix; }
  Backend backend() const override { return Backend::device; }
  double accumulation_error_factor() const override { return Engine::accumulation_error_factor; }
  // 1x1, stride 1, pad 0, equal pixel counts: its problems have no implicit zeros to multiply.
  ImplicitZeros implicit_zeros(const ConvProblem&) const override { return ImplicitZeros::all(ZeroTerm::skipped); }
  std::string summary() const override {
    return std::string("1x1 filter, stride 1, pad 0 as one ") + Engine::gemm +
           " per group over all pixels (no im2col), fp32 accumulation: fwd, bwd-data, bwd-weights; conv and trans; "
           "2D/3D, groups; " + Engine::dtypes + "; NCHW/NHWC";
  }
  Applicability applicable(const ConvProblem& p) const override {
    if (auto errors = p.validate(); !errors.empty()) return Applicability::no("invalid problem: " + errors.front());
    if (auto why = Engine::refusal(p); !why) return why;
    static const char* axes[] = {"depth", "height", "width"};
    for (int i = 0; i < p.rank(); ++i) {
      const std::string axis = axes[i + 3 - p.rank()];
      if (p.filter[i] != 1)
        return Applicability::no("filter " + axis + " is " + std::to_string(p.filter[i]) + ", not 1");
      if (p.pad[i] != 0) return Applicability::no("pad (" + axis + ") is " + std::to_string(p.pad[i]) + ", not 0");
      if (p.stride[i] != 1)
        return Applicability::no("stride (" + axis + ") is " + std::to_string(p.stride[i]) +
                                 ", not 1 (strided 1x1 is left to conv.gemm.im2col)");
    }
    const ConvGeom g = conv_geom(p);
    if (g.in_spatial() != g.out_spatial())
      return Applicability::no("output padding gives the transposed conv's y " + std::to_string(g.in_spatial()) +
                               " pixels per image but x " + std::to_string(g.out_spatial()));
    if (g.batch * g.out_spatial() > kGemmMaxSize)
      return Applicability::no("n * pixels = " + std::to_string(g.batch * g.out_spatial()) +
                               " exceeds the GEMM dimension limit " + std::to_string(kGemmMaxSize));
    return Applicability::yes();
  }
  // bwd-weights only: the split-K partial sums (gemm_conv_maps.hpp); 0 otherwise.
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    if (!applicable(p) || conv_op(p) != ConvOp::w_from_in_out) return 0;
    const ConvGeom g = conv_geom(p);
    return split_k_workspace_bytes(w_from_in_out_shape(g, g.batch), w_from_in_out_splits(g, g.batch));
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const std::string me = name();
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if constexpr (Engine::template takes<T>) run_1x1<T, typename Engine::Tile>(p, t, me);
    });
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_gemm_1x1() { return std::make_shared<ConvGemm1x1<SimtConvEngine>>(); }
std::shared_ptr<const ConvSolver> make_conv_gemm_1x1_mma() { return std::make_shared<ConvGemm1x1<MmaConvEngine>>(); }

}  // namespace hiprim::gpu
