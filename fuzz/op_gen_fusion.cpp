// The generator of fused chains (core/fusion_problem.hpp): a small forward conv (groups 1 or 2,
// filters 1..3, pad, stride and dilation 1..2) followed by each of bias, bnorm-infer, add and activ
// with probability 1/2 (activ: its axis value "none" leaves it out), every activation mode and its
// coefficients (power with integer exponents, so negative bases stay defined), both rounding models.
// Shrinking drops steps (each presence flag shrinks to false, the activation axis to "none") as well
// as shrinking the shape (sizes toward 1, fp32, channels first).
#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/gen/Tuple.h>

#include "core/fusion_problem.hpp"
#include "fuzz/op_gen_typed.hpp"

namespace hiprim::fuzz {
namespace {

constexpr FusionRounding kRoundings[] = {FusionRounding::fused, FusionRounding::unfused};

std::vector<std::string> activ_axis_values() {
  std::vector<std::string> v{"none"};
  for (int i = 0; i < kActivModeCount; ++i) v.emplace_back(activ_mode_name(static_cast<ActivMode>(i)));
  return v;
}

// The activ step of mode `name` with the generated coefficients, keeping only the ones the mode
// uses (clippedrelu's ceiling made non-negative).
FusionStep activ_step(const std::string& name, double a, double b, double g) {
  FusionStep s;
  s.op = FusionOp::activ;
  s.mode = *parse_activ_mode(name);
  s.activ_alpha = activ_uses_alpha(s.mode) ? (s.mode == ActivMode::clippedrelu ? std::abs(a) : a) : 1.0;
  s.activ_beta = activ_uses_beta(s.mode) ? b : 1.0;
  s.activ_gamma = activ_uses_gamma(s.mode) ? g : 1.0;
  return s;
}

// Makes the output at least 1 wide (raising the input size) and halves n, then the larger spatial
// size, until x and y fit the element budget.
void fit_conv(ConvProblem& c, std::int64_t max_elements) {
  for (int i = 0; i < 2; ++i) c.in[i] = std::max(c.in[i], c.dilation[i] * (c.filter[i] - 1) + 1 - 2 * c.pad[i]);
  auto too_big = [&] { return std::max(c.x_desc().elements(), c.y_desc().elements()) > max_elements; };
  while (too_big()) {
    if (c.n > 1) c.n = (c.n + 1) / 2;
    else if (c.in[0] >= c.in[1] && c.in[0] > c.filter[0]) --c.in[0];
    else if (c.in[1] > c.filter[1]) --c.in[1];
    else break;
  }
}

using Geometry = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                            std::int64_t, std::int64_t>;  // n, c/g, k/g, g, h, w, f, pad, stride, dil
using Chain = std::tuple<bool, bool, bool, std::string, double, double, double, double, double, double>;  // bias, bnorm, add, activ mode, coefficients, add alpha/beta, eps

class FusionGen final : public TypedOpGen<FusionProblem> {
 public:
  std::vector<OpAxis> axes() const override {
    return {{"activ", activ_axis_values()}, {"rounding", names_of(kRoundings, fusion_rounding_name)}, dtype_axis(), {"layout", {"nchw", "nhwc"}},
            {"groups", {"1", "2"}}};
  }
  std::vector<std::string> feature_classes(const OpDomain&) const override {
    auto v = common_feature_classes();
    for (const char* c : {"fusion:bias", "fusion:bnorm-infer", "fusion:add", "fusion:activ", "fusion:full"}) v.push_back(c);
    return v;
  }
  std::vector<SkippedClass> skipped_classes(const OpDomain&) const override {
    return {{"layout:3d", "the generator makes 2D chains only (3D parses and runs on the reference)"},
            {"conv:trans", "a fusion chain is a forward, non-transposed convolution"}};
  }

 protected:
  std::optional<FusionProblem> anchor_typed(const OpChoice& c) const override {
    FusionProblem p;
    p.dtype = dtype_of(c.at("dtype"));
    p.channels_last = c.at("layout") == "nhwc";
    p.rounding = value_named(kRoundings, fusion_rounding_name, c.at("rounding"));
    FusionStep conv;
    conv.conv.n = 2;
    conv.conv.c = 8;
    conv.conv.k = 8;
    conv.conv.in = {5, 6};
    conv.conv.filter = {3, 3};
    conv.conv.pad = {1, 1};
    conv.conv.dtype = p.dtype;
    conv.conv.channels_last = p.channels_last;
    conv.conv.groups = c.at("groups") == "2" ? 2 : 1;
    p.steps = {conv, fusion_step(FusionOp::bias), fusion_step(FusionOp::bnorm_infer), fusion_step(FusionOp::add)};
    if (c.at("activ") != "none") p.steps.push_back(activ_step(c.at("activ"), 1, 1, 1));
    return p;
  }
  rc::Gen<FusionProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    const bool g1 = d.allows("groups", "1"), g2 = d.allows("groups", "2");
    const rc::Gen<std::int64_t> groups = g1 && g2 ? pick<std::int64_t>({{4, 1}, {1, 2}}) : rc::gen::just<std::int64_t>(g2 ? 2 : 1);
    auto geometry = rc::gen::tuple(corner_size(1, 3), corner_size(1, 12), corner_size(1, 12), groups,
                                   corner_size(1, 12), corner_size(1, 12), pick<std::int64_t>({{2, 1}, {3, 3}, {1, 2}}),
                                   pick<std::int64_t>({{1, 0}, {1, 1}}), pick<std::int64_t>({{3, 1}, {1, 2}}), pick<std::int64_t>({{3, 1}, {1, 2}}));
    auto chain = rc::gen::tuple(flag(50), flag(50), flag(50), any_of(d.values("activ")), pick<double>({{3, 1.0}, {1, 0.5}, {1, 2.0}, {1, -0.5}}),
                                pick<double>({{3, 1.0}, {1, 0.5}, {1, -1.0}}), pick<double>({{3, 1.0}, {1, 2.0}, {1, 3.0}}),
                                pick<double>({{3, 1.0}, {1, 0.5}, {1, -1.0}, {1, 2.0}}), pick<double>({{3, 1.0}, {1, 0.5}, {1, -1.0}}),
                                pick<double>({{3, 1e-5}, {1, 1e-3}}));
    return rc::gen::map(rc::gen::tuple(op_dtype_gen(d), any_of(d.values("layout")), any_of(d.values("rounding")), geometry, chain),
                        [lim](const std::tuple<DType, std::string, std::string, Geometry, Chain>& t) {
                          const auto& [dt, layout, rounding, geo, ch] = t;
                          FusionProblem p;
                          p.dtype = dt;
                          p.channels_last = layout == "nhwc";
                          p.rounding = value_named(kRoundings, fusion_rounding_name, rounding);
                          FusionStep conv;
                          ConvProblem& c = conv.conv;
                          const auto& [n, cg, kg, g, h, w, f, pad, stride, dil] = geo;
                          c.n = n;
                          c.groups = g;
                          c.c = cg * g;
                          c.k = kg * g;
                          c.in = {h, w};
                          c.filter = {f, f};
                          c.pad = {pad, pad};
                          c.stride = {stride, stride};
                          c.dilation = {dil, dil};
                          c.dtype = dt;
                          c.channels_last = p.channels_last;
                          fit_conv(c, lim.max_elements);
                          p.steps = {conv};
                          const auto& [bias, bnorm, add, mode, aa, ab, ag, add_alpha, add_beta, eps] = ch;
                          if (bias) p.steps.push_back(fusion_step(FusionOp::bias));
                          if (bnorm) {
                            FusionStep b = fusion_step(FusionOp::bnorm_infer);
                            b.epsilon = eps;
                            p.steps.push_back(b);
                          }
                          if (add) {
                            FusionStep a = fusion_step(FusionOp::add);
                            a.alpha = add_alpha, a.beta = add_beta;
                            p.steps.push_back(a);
                          }
                          if (mode != "none") p.steps.push_back(activ_step(mode, aa, ab, ag));
                          return p;
                        });
  }
  // Step 0 rounds K up to a multiple of 8 per group (the tensor-core solvers' refusal the anchors
  // cannot see) when that changes the problem; every further step halves n, then the larger spatial
  // size (the filter still fits).
  std::optional<FusionProblem> repair_typed(const FusionProblem& p, int step) const override {
    FusionProblem r = p;
    ConvProblem& c = r.steps[0].conv;
    const std::int64_t per8 = 8 * c.groups;
    const bool rounded = c.k % per8 != 0;
    c.k = (c.k + per8 - 1) / per8 * per8;
    for (int i = 0; i < step + (rounded ? 0 : 1); ++i) {
      if (c.n > 1) c.n /= 2;
      else if (c.in[0] >= c.in[1] && c.in[0] / 2 >= c.filter[0]) c.in[0] /= 2;
      else if (c.in[1] / 2 >= c.filter[1]) c.in[1] /= 2;
      else return std::nullopt;
    }
    return r;
  }
  OpChoice choice_typed(const FusionProblem& p) const override {
    const FusionStep* a = p.step(FusionOp::activ);
    return {{"dtype", std::string(dtype_name(p.dtype))},
            {"layout", p.channels_last ? "nhwc" : "nchw"},
            {"rounding", std::string(fusion_rounding_name(p.rounding))},
            {"activ", a ? std::string(activ_mode_name(a->mode)) : "none"},
            {"groups", p.conv().groups > 1 ? "2" : "1"}};
  }
  std::vector<std::string> classes_typed(const FusionProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.y_desc().dims, out);
    const Dims y = p.y_desc().dims;  // tails of the conv's GEMM rows N*P*Q (the length the kernels tile)
    add_tail_classes(y[0] * y[2] * y[3], out);
    for (FusionOp o : {FusionOp::bias, FusionOp::bnorm_infer, FusionOp::add, FusionOp::activ})
      if (p.has(o)) out.push_back("fusion:" + std::string(fusion_op_name(o)));
    if (p.steps.size() == 5) out.push_back("fusion:full");
    return out;
  }
};

}  // namespace

OpGeneratorPtr make_fusion_gen() { return std::make_shared<FusionGen>(); }

}  // namespace hiprim::fuzz
