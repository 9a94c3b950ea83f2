#include "reference/fusion.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/bnorm_problem.hpp"
#include "core/error.hpp"
#include "core/tensorop_problem.hpp"
#include "reference/activ.hpp"
#include "reference/bnorm.hpp"
#include "reference/conv.hpp"
#include "reference/error_model.hpp"
#include "reference/tensorop.hpp"

// Tolerance policy (u = 2^-24; R = the intermediate dtype: fp32 fused, the problem's dtype unfused).
// Step i maps the previous intermediate to v_i; the reference feeds it r_{i-1} = fl_R(v_{i-1}) (what
// a solver of that model holds, up to its own error) and E_i bounds |solver's v_i - v_i|:
//   conv:  E_0 = f * sum_bound(L, A) (fused: fp32 accumulator kept) or stored_sum_bound(dtype, L, f, v_0, A)
//          (unfused: stored), L = conv's reduction length, A = sum |x*w| (reference/error_model.hpp),
//          f = the solver's accumulation factor (1: round-to-nearest adds; 2: tensor-core adds, each
//          errs by < 2u; f also scales sum_bound's 2^-53-sized double part, a negligible excess).
//   every later step f with its own bound b_i (the step reference's, at the exact input r_{i-1}) and
//   a Lipschitz factor Lip_i of f over [r - d, r + d], d = E_{i-1} + |r_{i-1} - v_{i-1}|:
//          E_i = Lip_i * d * (1 + 16u + u_R) + b_i
//   since |f_fp32(s) - f(r)| <= |f_fp32(s) - f(s)| + |f(s) - f(r)| and |s - r| <= d; b_i grows with
//   the magnitudes it multiplies (at most 16 fp32 units and the store's u_R per unit of |f(s) - f(r)|:
//   the 16u + u_R slack). Lip: bias 1; bnorm-infer |scale / sqrt(var + eps)| of the channel; add
//   |fl32(alpha)|; activ the mode's sup |f'| over the interval (activ_lipschitz).
//   Fused: the steps are fp32 problems (b_i without a store), plus one store at the end:
//          bound = stored_bound(dtype, v, E_last). Unfused: each b_i already holds its store into
//          the dtype, and the value is the composition of the references on rounded intermediates,
//          so running the steps' references one after another gives the same values exactly.

namespace hiprim::ref {
namespace {

constexpr double u = kUnitFp32;

struct Chain {
  DType inter;            // R
  TensorDesc desc;        // y's desc in R
  HostTensor r;           // the intermediate, rounded to R: the next step's input
  std::vector<double> v;  // its unrounded value
  std::vector<double> err;
};

// |f(s) - f(r)| part of the propagated bound; 0 when the input is exact (no 0 * inf).
double propagate(double lip, double d, DType inter) {
  if (d == 0.0) return 0.0;
  return lip * d * (1.0 + 16.0 * u + store_unit(inter));
}

// Applies one step's reference output e (values and own bounds on c.r) with the factor
// lip(element, r, d) of the step's function over [r - d, r + d].
template <typename Lip>
void advance(Chain& c, const OpExpected& e, Lip&& lip) {
  for (std::size_t i = 0; i < c.v.size(); ++i) {
    const double r = c.r.data[i];
    const double d = c.err[i] + std::fabs(r - c.v[i]);
    c.err[i] = propagate(lip(i, r, d), d, c.inter) + e.bound[i];
    c.v[i] = e.value[i];
    c.r.data[i] = round_to(c.inter, e.value[i]);
  }
}

Dims bias_dims(const TensorDesc& y) {
  Dims b(y.dims.size(), 1);
  b[1] = y.dims[1];
  return b;
}

TensorOpProblem elementwise_add(const FusionProblem& p, DType t, const Dims& b, double alpha1, double alpha2) {
  TensorOpProblem q;
  q.op = TensorOpKind::add;
  q.dtype = t;
  q.channels_last = p.channels_last;
  q.a = p.y_desc().dims;
  q.b = b;
  q.alpha1 = alpha1;
  q.alpha2 = alpha2;
  q.beta = 0;
  return q;
}

}  // namespace

FusionInputs fusion_inputs(const FusionProblem& p, const std::vector<const HostTensor*>& inputs) {
  const auto ts = p.tensors();
  if (inputs.size() != ts.size()) throw InputError("fusion reference: " + std::to_string(inputs.size()) + " tensors, the problem has " + std::to_string(ts.size()));
  FusionInputs in;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const std::string& n = ts[i].name;
    const HostTensor* t = inputs[i];
    if (n == "x") in.x = t;
    else if (n == "w") in.w = t;
    else if (n == "bias") in.bias = t;
    else if (n == "bn_scale") in.bn_scale = t;
    else if (n == "bn_shift") in.bn_shift = t;
    else if (n == "bn_mean") in.bn_mean = t;
    else if (n == "bn_var") in.bn_var = t;
    else if (n == "residual") in.residual = t;
  }
  return in;
}

double activ_lipschitz(const ActivProblem& a, double x, double r) {
  switch (a.mode) {
    case ActivMode::passthru:
    case ActivMode::relu:
    case ActivMode::abs:
    case ActivMode::clippedrelu:
    case ActivMode::softrelu: return 1.0;  // softrelu' = logistic < 1
    case ActivMode::logistic: return 0.25;
    case ActivMode::tanh: return std::fabs(a.alpha * a.beta);
    case ActivMode::leakyrelu:
    case ActivMode::elu: return std::max(1.0, std::fabs(a.alpha));
    case ActivMode::gelu:
    case ActivMode::gelu_tanh: return 1.2;  // sup f' = 1.129 (at x = sqrt 2 for gelu; gelu_tanh within 1e-3)
    case ActivMode::silu: return 1.1;       // sup f' = 1.0998 (x = 2.3994)
    case ActivMode::power: {
      // |f'| = |g b| |base|^(g-1): monotone in |base| on each side of base = 0, so its sup over the
      // interval is at an end, or unbounded where g < 1 and the base reaches 0.
      const double lo = a.alpha + a.beta * (x - r), hi = a.alpha + a.beta * (x + r);
      const double g = a.gamma;
      if (g < 1.0 && std::min(lo, hi) <= 0.0 && std::max(lo, hi) >= 0.0) return std::numeric_limits<double>::infinity();
      auto d = [&](double base) { return std::fabs(g * a.beta) * std::pow(std::fabs(base), g - 1.0); };
      return std::max(d(lo), d(hi));
    }
  }
  return 1.0;
}

OpExpected fusion_chain(const FusionProblem& p, const FusionInputs& in, FusionRounding model, double conv_factor) {
  if (p.steps.empty() || p.steps[0].op != FusionOp::conv) throw InputError("fusion reference: the chain must start with conv: " + to_string(p));
  const DType dt = p.dtype;
  const bool fused = model == FusionRounding::fused;
  const DType inter = fused ? DType::fp32 : dt;
  const ConvProblem cp = p.conv();
  const ConvOutput o = conv(cp, ConvInputs{.x = in.x, .w = in.w});
  const TensorDesc yd = p.y_desc();
  TensorDesc rd = yd;
  rd.dtype = inter;
  Chain c{inter, rd, HostTensor(rd), o.value, std::vector<double>(o.value.size(), 0.0)};
  const std::int64_t L = cp.reduction_length();
  for (std::size_t i = 0; i < c.v.size(); ++i) {
    c.err[i] = fused ? conv_factor * sum_bound(L, o.abs_sum[i]) + kReferenceRel * std::fabs(c.v[i])
                     : stored_sum_bound(dt, L, conv_factor, c.v[i], o.abs_sum[i]);
    c.r.data[i] = round_to(inter, c.v[i]);
  }
  const Dims bd = bias_dims(yd);
  for (std::size_t s = 1; s < p.steps.size(); ++s) {
    const FusionStep& st = p.steps[s];
    switch (st.op) {
      case FusionOp::conv: throw InputError("fusion reference: a second conv in the chain: " + to_string(p));
      case FusionOp::bias: {
        const TensorOpProblem q = elementwise_add(p, inter, bd, 1, 1);
        HostTensor b(q.b_desc());
        for (std::int64_t k = 0; k < bd[1]; ++k) b.data[static_cast<std::size_t>(k)] = in.bias->data[static_cast<std::size_t>(k)];
        advance(c, tensorop_forward(q, c.r, b, nullptr)[0], [](std::size_t, double, double) { return 1.0; });
        break;
      }
      case FusionOp::bnorm_infer: {
        const BnormProblem q = fusion_bnorm_problem(p, st, inter);
        const auto e = bnorm_expected(*make_op_problem(q), {&c.r, in.bn_scale, in.bn_shift, in.bn_mean, in.bn_var, nullptr});
        std::vector<double> lip(static_cast<std::size_t>(bd[1]));
        for (std::size_t k = 0; k < lip.size(); ++k) lip[k] = std::fabs(in.bn_scale->data[k] / std::sqrt(in.bn_var->data[k] + st.epsilon));
        std::vector<std::size_t> channel(c.v.size());
        for_each_index(yd.dims, [&](const Dims& i) { channel[static_cast<std::size_t>(yd.offset(i))] = static_cast<std::size_t>(i[1]); });
        advance(c, e[0], [&](std::size_t i, double, double) { return lip[channel[i]]; });
        break;
      }
      case FusionOp::add: {
        const TensorOpProblem q = elementwise_add(p, inter, yd.dims, st.alpha, st.beta);
        const double lip = std::fabs(static_cast<double>(static_cast<float>(st.alpha)));
        advance(c, tensorop_forward(q, c.r, *in.residual, nullptr)[0], [lip](std::size_t, double, double) { return lip; });
        break;
      }
      case FusionOp::activ: {
        FusionProblem one = p;
        one.steps = {p.steps[0], st};
        ActivProblem q = one.activ();
        q.shape.dtype = inter;
        const auto e = activ_expected(*make_op_problem(q), {&c.r, nullptr});
        advance(c, e[0], [&](std::size_t, double r, double d) { return activ_lipschitz(q, r, d); });
        break;
      }
    }
  }
  OpExpected y = make_expected("y", yd, std::string(fused ? "fused" : "unfused") +
                                            " chain of reference/fusion.cpp: conv's gamma(L) bound propagated through each step's Lipschitz "
                                            "factor plus its own bound" + (fused ? ", one store into " : ", each step stored into ") +
                                            std::string(dtype_name(dt)));
  for (std::size_t i = 0; i < c.v.size(); ++i) {
    y.value[i] = c.v[i];
    if (!std::isfinite(c.v[i])) continue;  // NaN / Inf must match exactly
    y.bound[i] = fused ? stored_bound(dt, c.v[i], c.err[i]) : c.err[i];
  }
  return y;
}

std::vector<OpExpected> fusion_expected(const OpProblem& op, const std::vector<const HostTensor*>& inputs) {
  const FusionProblem* p = op_problem_cast<FusionProblem>(op);
  if (!p) throw InputError("fusion reference: not a fusion problem: " + op.str());
  return {fusion_chain(*p, fusion_inputs(*p, inputs), p->rounding)};
}

std::vector<OpExpected> fusion_expected_with(const OpProblem& op, const std::vector<const HostTensor*>& inputs,
                                             const OpReferenceOptions& o) {
  const FusionProblem* p = op_problem_cast<FusionProblem>(op);
  if (!p) throw InputError("fusion reference: not a fusion problem: " + op.str());
  return {fusion_chain(*p, fusion_inputs(*p, inputs), p->rounding, o.accumulation_factor)};
}

}  // namespace hiprim::ref
