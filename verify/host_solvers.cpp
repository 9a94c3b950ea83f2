#include "verify/host_solvers.hpp"

#include "reference/conv.hpp"

namespace hiprim::verify {
namespace {

// Buffers hold the dtype's bytes with packed strides; decode into HostTensors, compute, encode.
HostTensor decode(const TensorDesc& d, const void* bytes) {
  HostTensor t(d);
  t.from_bytes(static_cast<const unsigned char*>(bytes));
  return t;
}

class FastReferenceSolver final : public ConvSolver {
 public:
  std::string name() const override { return kFastReferenceSolverName; }
  Backend backend() const override { return Backend::host; }
  bool needs_independent_oracle() const override { return true; }  // it is the oracle's fast path
  // gather and weights GEMM over im2col's zeros (multiplied, in double); scatter's col2im adds real taps only.
  ImplicitZeros implicit_zeros(const ConvProblem&) const override {
    return {.padding = ZeroTerm::multiplied, .border_taps = ZeroTerm::skipped, .stride_holes = ZeroTerm::skipped};
  }
  std::string summary() const override {
    return "CPU im2col + Eigen GEMM in double; every direction, mode, dtype, layout, 2D/3D";
  }
  Applicability applicable(const ConvProblem& p) const override {
    auto errs = p.validate();
    if (!errs.empty()) return Applicability::no("invalid problem: " + errs.front());
    return Applicability::yes();
  }
 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    HostTensor x, w, y, b;
    ref::ConvInputs in;
    if (p.dir != ConvDir::bwd_data) in.x = &(x = decode(p.x_desc(), t.x));
    if (p.dir != ConvDir::bwd_weights) in.w = &(w = decode(p.w_desc(), t.w));
    if (p.dir != ConvDir::fwd) in.y = &(y = decode(p.y_desc(), t.y));
    if (p.bias) in.bias = &(b = decode(p.bias_desc(), t.bias));
    ref::ConvOutput out = ref::conv_fast(p, in, /*with_abs_sum=*/false);
    void* dst = p.dir == ConvDir::fwd ? t.y : p.dir == ConvDir::bwd_data ? t.x : t.w;
    HostTensor o(out.desc);
    for (std::size_t i = 0; i < out.value.size(); ++i) o.data[i] = round_to(p.dtype, out.value[i]);
    auto bytes = o.to_bytes();
    std::copy(bytes.begin(), bytes.end(), static_cast<unsigned char*>(dst));
  }
};

}  // namespace

std::shared_ptr<const ConvSolver> make_fast_reference_solver() { return std::make_shared<FastReferenceSolver>(); }

}  // namespace hiprim::verify
