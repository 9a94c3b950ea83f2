// Generators of the elementwise ops: activ (every mode, its coefficients), dropout (rates from 0 to
// just below 1, mask seeds) and tensorop (A op B with B broadcast over any subset of dims, ranks
// 1..5). Their corners are the element counts vector kernels split (tails past 4/32/256) and, for
// tensorop, which dims broadcast.
#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/gen/Tuple.h>

#include "core/activ_problem.hpp"
#include "core/dropout_problem.hpp"
#include "core/tensorop_problem.hpp"
#include "fuzz/op_gen_typed.hpp"

namespace hiprim::fuzz {
namespace {

// ---- activ ----
constexpr ActivDir kActivDirs[] = {ActivDir::fwd, ActivDir::bwd};
constexpr ActivMode kActivModes[] = {ActivMode::passthru, ActivMode::relu,        ActivMode::logistic,  ActivMode::tanh, ActivMode::softrelu,
                                     ActivMode::abs,      ActivMode::power,       ActivMode::clippedrelu, ActivMode::leakyrelu,
                                     ActivMode::elu,      ActivMode::gelu,        ActivMode::gelu_tanh, ActivMode::silu};
static_assert(std::size(kActivModes) == kActivModeCount);

// Coefficients the mode does not use stay 1; clippedrelu's ceiling is >= 0.
ActivProblem fix_activ(ActivProblem p) {
  if (!activ_uses_alpha(p.mode)) p.alpha = 1;
  if (!activ_uses_beta(p.mode)) p.beta = 1;
  if (!activ_uses_gamma(p.mode)) p.gamma = 1;
  if (p.mode == ActivMode::clippedrelu) p.alpha = std::abs(p.alpha);
  return p;
}

class ActivGen final : public TypedOpGen<ActivProblem> {
 public:
  std::vector<OpAxis> axes() const override {
    return {{"dir", names_of(kActivDirs, activ_dir_name)}, {"activ", names_of(kActivModes, activ_mode_name)}, dtype_axis(), shape_layout_axis()};
  }
  std::vector<std::string> feature_classes(const OpDomain&) const override { return common_feature_classes(); }

 protected:
  std::optional<ActivProblem> anchor_typed(const OpChoice& c) const override {
    ActivProblem p;
    p.dir = value_named(kActivDirs, activ_dir_name, c.at("dir"));
    p.mode = value_named(kActivModes, activ_mode_name, c.at("activ"));
    p.shape = anchor_shape(c);
    return p;
  }
  rc::Gen<ActivProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "dir", kActivDirs, activ_dir_name), enum_gen(d, "activ", kActivModes, activ_mode_name),
                                       op_shape_gen(d, lim, lim.max_c), pick<double>({{3, 1.0}, {1, 0.5}, {1, 2.0}, {1, -0.5}, {1, 0.01}, {1, 6.0}}),
                                       pick<double>({{3, 1.0}, {1, 0.5}, {1, 2.0}, {1, -1.0}}), pick<double>({{3, 1.0}, {1, 2.0}, {1, 3.0}, {1, 0.5}})),
                        [lim](const std::tuple<ActivDir, ActivMode, OpShape, double, double, double>& t) {
                          ActivProblem p;
                          std::tie(p.dir, p.mode, p.shape, p.alpha, p.beta, p.gamma) = t;
                          fit_shape(p.shape, lim.max_elements);
                          return fix_activ(p);
                        });
  }
  OpChoice choice_typed(const ActivProblem& p) const override {
    OpChoice c = shape_choice(p.shape);
    c["dir"] = activ_dir_name(p.dir);
    c["activ"] = activ_mode_name(p.mode);
    return c;
  }
  std::vector<std::string> classes_typed(const ActivProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.shape.dims(), out);
    add_tail_classes(p.shape.elements(), out);
    return out;
  }
};

// ---- dropout ----
constexpr DropoutDir kDropoutDirs[] = {DropoutDir::fwd, DropoutDir::bwd};

class DropoutGen final : public TypedOpGen<DropoutProblem> {
 public:
  std::vector<OpAxis> axes() const override { return {{"dir", names_of(kDropoutDirs, dropout_dir_name)}, dtype_axis(), shape_layout_axis()}; }
  std::vector<std::string> feature_classes(const OpDomain&) const override {
    auto v = common_feature_classes();
    v.push_back("dropout:rate0");
    v.push_back("dropout:rate>=0.99");
    return v;
  }

 protected:
  std::optional<DropoutProblem> anchor_typed(const OpChoice& c) const override {
    DropoutProblem p;
    p.dir = value_named(kDropoutDirs, dropout_dir_name, c.at("dir"));
    p.shape = anchor_shape(c);
    return p;
  }
  rc::Gen<DropoutProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    // Rates: 0 (keep all, scale 1), the extremes near 1 (scale up to 2^24) and ordinary ones. Mask
    // seeds over the whole 64-bit range (the high word feeds Philox's key).
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "dir", kDropoutDirs, dropout_dir_name), op_shape_gen(d, lim, lim.max_c),
                                       pick<double>({{3, 0.5}, {2, 0.0}, {1, 0.1}, {1, 0.9}, {1, 0.999}, {1, 1.0 - 0x1.0p-24}}),
                                       pick<std::uint64_t>({{2, 0}, {2, 42}, {1, 0xFFFFFFFFULL}, {1, std::uint64_t{1} << 40}, {1, ~std::uint64_t{0}}})),
                        [lim](const std::tuple<DropoutDir, OpShape, double, std::uint64_t>& t) {
                          DropoutProblem p;
                          std::tie(p.dir, p.shape, p.rate, p.seed) = t;
                          fit_shape(p.shape, lim.max_elements);
                          return p;
                        });
  }
  OpChoice choice_typed(const DropoutProblem& p) const override {
    OpChoice c = shape_choice(p.shape);
    c["dir"] = dropout_dir_name(p.dir);
    return c;
  }
  std::vector<std::string> classes_typed(const DropoutProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.shape.dims(), out);
    add_tail_classes(p.shape.elements(), out);
    if (p.rate == 0) out.push_back("dropout:rate0");
    if (p.rate >= 0.99) out.push_back("dropout:rate>=0.99");
    return out;
  }
};

// ---- tensorop ----
constexpr TensorOpKind kTensorOps[] = {TensorOpKind::add, TensorOpKind::mul, TensorOpKind::min, TensorOpKind::max};

// B's dim i is 1 where A's is 1 or B broadcasts it (mask bit i).
Dims broadcast_dims(const Dims& a, unsigned mask) {
  Dims b = a;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (mask >> i & 1U) b[i] = 1;
  return b;
}
unsigned broadcast_mask(const TensorOpProblem& p) {
  unsigned m = 0;
  for (std::size_t i = 0; i < p.a.size(); ++i)
    if (p.b[i] == 1 && p.a[i] > 1) m |= 1U << i;
  return m;
}

class TensorOpGen final : public TypedOpGen<TensorOpProblem> {
 public:
  std::vector<OpAxis> axes() const override { return {{"tensorop", names_of(kTensorOps, tensorop_kind_name)}, dtype_axis(), nd_layout_axis()}; }
  std::vector<std::string> feature_classes(const OpDomain& d) const override {
    auto v = common_feature_classes();
    int max_rank = 0;
    for (const auto& l : d.values("layout")) max_rank = std::max(max_rank, nd_layout_rank(l));
    for (int i = 0; i < max_rank; ++i) v.push_back("tensorop:bcast_dim" + std::to_string(i));
    for (const char* c : {"tensorop:bcast_all", "tensorop:no_bcast", "tensorop:beta"}) v.push_back(c);
    return v;
  }

 protected:
  std::optional<TensorOpProblem> anchor_typed(const OpChoice& c) const override {
    TensorOpProblem p;
    p.op = value_named(kTensorOps, tensorop_kind_name, c.at("tensorop"));
    p.dtype = dtype_of(c.at("dtype"));
    const int rank = nd_layout_rank(c.at("layout"));
    p.channels_last = nd_layout_channels_last(c.at("layout"));
    p.a = Dims(static_cast<std::size_t>(rank), 2);
    p.a[rank >= 4 ? 1 : rank - 1] = 8;
    p.b = p.a;
    return p;
  }
  rc::Gen<TensorOpProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    // Broadcast mask: each dim with probability 1/3, or all of them (a scalar B).
    auto mask = rc::gen::map(rc::gen::tuple(flag(33), flag(33), flag(33), flag(33), flag(33), flag(8)),
                             [](const std::tuple<bool, bool, bool, bool, bool, bool>& t) {
                               const auto& [m0, m1, m2, m3, m4, all] = t;
                               return all ? 31U : unsigned(m0) | unsigned(m1) << 1 | unsigned(m2) << 2 | unsigned(m3) << 3 | unsigned(m4) << 4;
                             });
    auto scalar = [](double first) { return pick<double>({{3, first}, {1, 0.5}, {1, -1.0}, {1, 2.0}, {1, 0.0}}); };
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "tensorop", kTensorOps, tensorop_kind_name), op_dtype_gen(d), nd_genome_gen(d, lim), mask,
                                       scalar(1.0), scalar(1.0), pick<double>({{3, 0.0}, {1, 1.0}, {1, 0.5}, {1, -1.0}})),
                        [lim](const std::tuple<TensorOpKind, DType, NdGenome, unsigned, double, double, double>& t) {
                          TensorOpProblem p;
                          p.op = std::get<0>(t);
                          p.dtype = std::get<1>(t);
                          p.channels_last = nd_layout_channels_last(std::get<0>(std::get<2>(t)));
                          p.a = nd_dims(std::get<2>(t), lim.max_elements);
                          p.b = broadcast_dims(p.a, std::get<3>(t));
                          std::tie(std::ignore, std::ignore, std::ignore, std::ignore, p.alpha1, p.alpha2, p.beta) = t;
                          return p;
                        });
  }
  std::optional<TensorOpProblem> repair_typed(const TensorOpProblem& p, int step) const override {
    TensorOpProblem r = p;
    const unsigned m = broadcast_mask(p);
    if (!repair_dims(r.a, r.channels_last, step)) return std::nullopt;
    r.b = broadcast_dims(r.a, m);
    return r;
  }
  OpChoice choice_typed(const TensorOpProblem& p) const override {
    return {{"tensorop", std::string(tensorop_kind_name(p.op))}, {"dtype", std::string(dtype_name(p.dtype))}, {"layout", nd_layout_of(p.rank(), p.channels_last)}};
  }
  std::vector<std::string> classes_typed(const TensorOpProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.a, out);
    add_tail_classes(p.a_desc().elements(), out);
    // the outer extent (all but the innermost storage dim), which vector solvers do not split
    const std::size_t inner = p.channels_last && p.rank() >= 4 ? 1 : static_cast<std::size_t>(p.rank() - 1);
    add_tail_classes(p.a_desc().elements() / p.a[inner], out);
    const unsigned m = broadcast_mask(p);
    for (int i = 0; i < p.rank(); ++i)
      if (m >> i & 1U) out.push_back("tensorop:bcast_dim" + std::to_string(i));
    if (p.b_desc().elements() == 1 && p.a_desc().elements() > 1) out.push_back("tensorop:bcast_all");
    if (m == 0) out.push_back("tensorop:no_bcast");
    if (p.beta != 0) out.push_back("tensorop:beta");
    return out;
  }
};

}  // namespace

OpGeneratorPtr make_activ_gen() { return std::make_shared<ActivGen>(); }
OpGeneratorPtr make_dropout_gen() { return std::make_shared<DropoutGen>(); }
OpGeneratorPtr make_tensorop_gen() { return std::make_shared<TensorOpGen>(); }

}  // namespace hiprim::fuzz
