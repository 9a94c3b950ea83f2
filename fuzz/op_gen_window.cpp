// Generators of the windowed and reducing ops: pool (max / average windows with padding and stride,
// 2D and 3D) and reduce (any non-empty subset of 1..5 dims, every op, NaN modes, indices). Their
// corners: padding >= half the window, stride > window, windows crossing the padded edge, outputs
// of one element, global windows (the whole input); reductions over several dims, over all of
// them, of one element, past one block.
#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/gen/Tuple.h>

#include "core/pool_problem.hpp"
#include "core/reduce_problem.hpp"
#include "fuzz/op_gen_typed.hpp"

namespace hiprim::fuzz {
namespace {

constexpr std::int64_t kBlock = 256;

// ---- pool ----
constexpr PoolDir kPoolDirs[] = {PoolDir::fwd, PoolDir::bwd};
constexpr PoolMode kPoolModes[] = {PoolMode::max, PoolMode::avg_incl, PoolMode::avg_excl};

// One spatial dim: window, padding mode (0, (win-1)/2, win/2, win-1: all < win) and stride mode
// (1, 2, 3, win+1).
using PoolDimGenome = std::tuple<std::int64_t, int, int>;

rc::Gen<PoolDimGenome> pool_dim_gen(std::int64_t max_window) {
  return rc::gen::tuple(capped({{2, 2}, {3, 3}, {1, 1}, {1, 4}, {1, 5}, {1, 7}}, max_window), pick<int>({{4, 0}, {3, 1}, {2, 2}, {1, 3}}),
                        pick<int>({{4, 0}, {3, 1}, {1, 2}, {1, 3}}));
}

// The "window" axis: local windows (window, pad and stride drawn per dim) or global ones (window =
// the whole input, pad 0: one output per (n, c), as pool.global takes).
constexpr const char* kPoolWindows[] = {"local", "global"};

bool is_global_window(const PoolProblem& p) {
  for (int i = 0; i < p.rank(); ++i)
    if (p.window[i] != p.shape.in[i] || p.pad[i] != 0) return false;
  return true;
}

// A global window follows the input (window = in, pad 0); otherwise the input grows where the
// window would not fit the padded input (validity).
PoolProblem fix_pool(PoolProblem p, bool global) {
  for (int i = 0; i < p.rank(); ++i) {
    if (global) {
      p.window[i] = p.shape.in[i];
      p.pad[i] = 0;
    } else {
      p.shape.in[i] = std::max(p.shape.in[i], p.window[i] - 2 * p.pad[i]);
    }
  }
  return p;
}

class PoolGen final : public TypedOpGen<PoolProblem> {
 public:
  std::vector<OpAxis> axes() const override {
    return {{"dir", names_of(kPoolDirs, pool_dir_name)},
            {"pool", names_of(kPoolModes, pool_mode_name)},
            {"window", {std::begin(kPoolWindows), std::end(kPoolWindows)}},
            dtype_axis(),
            shape_layout_axis()};
  }
  std::vector<std::string> feature_classes(const OpDomain& d) const override {
    auto v = common_feature_classes();
    if (!d.allows("window", "local")) std::erase(v, std::string("tail:256"));
    for (const char* c : {"pool:stride>window", "pool:window1", "pool:out1"}) v.push_back(c);
    if (d.allows("window", "local"))
      for (const char* c : {"pool:pad>=half", "pool:edge_window"}) v.push_back(c);
    return v;
  }
  std::vector<SkippedClass> skipped_classes(const OpDomain& d) const override {
    if (d.allows("window", "local")) return {};
    const std::string why = "the solver takes global windows only (window = the input, pad 0, one output per (n, c))";
    return {{"pool:pad>=half", why}, {"pool:edge_window", why}, {"tail:256", why + "; c stays within max_c"}};
  }

 protected:
  std::optional<PoolProblem> anchor_typed(const OpChoice& c) const override {
    PoolProblem p;
    p.dir = value_named(kPoolDirs, pool_dir_name, c.at("dir"));
    p.mode = value_named(kPoolModes, pool_mode_name, c.at("pool"));
    p.shape = anchor_shape(c);
    const std::size_t r = p.shape.in.size();
    p.window = Dims(r, 2);
    p.pad = Dims(r, 1);
    p.stride = Dims(r, 2);
    return fix_pool(p, c.at("window") == "global");
  }
  rc::Gen<PoolProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    using Genome = std::tuple<PoolDir, PoolMode, OpShape, PoolDimGenome, PoolDimGenome, PoolDimGenome, std::string>;
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "dir", kPoolDirs, pool_dir_name), enum_gen(d, "pool", kPoolModes, pool_mode_name),
                                       op_shape_gen(d, lim, lim.max_c), pool_dim_gen(3), pool_dim_gen(7), pool_dim_gen(7),
                                       any_of(d.values("window"))),
                        [lim](const Genome& t) {
                          PoolProblem p;
                          std::tie(p.dir, p.mode, p.shape, std::ignore, std::ignore, std::ignore, std::ignore) = t;
                          fit_shape(p.shape, lim.max_elements);
                          const std::vector<PoolDimGenome> dims{std::get<3>(t), std::get<4>(t), std::get<5>(t)};
                          p.window.clear();
                          p.pad.clear();
                          p.stride.clear();
                          for (std::size_t i = 3 - p.shape.in.size(); i < 3; ++i) {
                            const auto [win, pad_mode, stride_mode] = dims[i];
                            const std::int64_t pads[] = {0, (win - 1) / 2, win / 2, win - 1};
                            const std::int64_t strides[] = {1, 2, 3, win + 1};
                            p.window.push_back(win);
                            p.pad.push_back(pads[pad_mode]);
                            p.stride.push_back(strides[stride_mode]);
                          }
                          return fix_pool(p, std::get<6>(t) == "global");
                        });
  }
  std::optional<PoolProblem> repair_typed(const PoolProblem& p, int step) const override {
    PoolProblem r = p;
    if (!repair_shape(r.shape, step)) return std::nullopt;
    return fix_pool(r, is_global_window(p));
  }
  OpChoice choice_typed(const PoolProblem& p) const override {
    OpChoice c = shape_choice(p.shape);
    c["dir"] = pool_dir_name(p.dir);
    c["pool"] = pool_mode_name(p.mode);
    c["window"] = is_global_window(p) ? "global" : "local";
    return c;
  }
  std::vector<std::string> classes_typed(const PoolProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.shape.dims(), out);
    const Dims o = p.out();
    std::int64_t positions = 1;  // output positions per (n, c): vector solvers split c, these stay free
    for (auto v : o) positions *= v;
    add_tail_classes(positions, out);
    add_tail_classes(p.shape.c, out);
    bool pad_half = false, stride_gt = false, win1 = true, out1 = false, edge = false;
    for (int i = 0; i < p.rank(); ++i) {
      pad_half = pad_half || (p.pad[i] > 0 && 2 * p.pad[i] >= p.window[i]);
      stride_gt = stride_gt || p.stride[i] > p.window[i];
      win1 = win1 && p.window[i] == 1;
      out1 = out1 || o[i] == 1;
      // the last window reaches past the input's end into the padding
      edge = edge || (o[i] - 1) * p.stride[i] - p.pad[i] + p.window[i] > p.shape.in[i];
    }
    if (pad_half) out.push_back("pool:pad>=half");
    if (stride_gt) out.push_back("pool:stride>window");
    if (win1) out.push_back("pool:window1");
    if (out1) out.push_back("pool:out1");
    if (edge) out.push_back("pool:edge_window");
    return out;
  }
};

// ---- reduce ----
constexpr ReduceOp kReduceOps[] = {ReduceOp::add, ReduceOp::mul, ReduceOp::min, ReduceOp::max, ReduceOp::amax, ReduceOp::avg, ReduceOp::norm1, ReduceOp::norm2};
const char* nan_name(bool propagate) { return propagate ? "nan_propagate" : "nan_ignore"; }

class ReduceGen final : public TypedOpGen<ReduceProblem> {
 public:
  std::vector<OpAxis> axes() const override {
    return {{"reduce", names_of(kReduceOps, reduce_op_name)}, dtype_axis(), nd_layout_axis(), {"nan", {"nan_ignore", "nan_propagate"}},
            {"indices", {"no", "yes"}}};
  }
  std::vector<std::string> feature_classes(const OpDomain&) const override {
    auto v = common_feature_classes();
    for (const char* c : {"reduce:multi_dim", "reduce:all_dims", "reduce:L1", "reduce:L>block", "reduce:inner", "reduce:outer"}) v.push_back(c);
    return v;
  }

 protected:
  std::optional<ReduceProblem> anchor_typed(const OpChoice& c) const override {
    ReduceProblem p;
    p.op = value_named(kReduceOps, reduce_op_name, c.at("reduce"));
    p.dtype = dtype_of(c.at("dtype"));
    const int rank = nd_layout_rank(c.at("layout"));
    p.channels_last = nd_layout_channels_last(c.at("layout"));
    p.dims = Dims(static_cast<std::size_t>(rank), 3);
    p.dims[rank >= 4 ? 1 : rank - 1] = 8;
    p.over = {rank - 1};
    p.propagate_nan = c.at("nan") == "nan_propagate";
    p.indices = c.at("indices") == "yes";
    return p;
  }
  rc::Gen<ReduceProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    // Reduced dims: each with probability 45%, or all (10%); none drawn: the last one.
    auto mask = rc::gen::map(rc::gen::tuple(flag(45), flag(45), flag(45), flag(45), flag(45), flag(10)),
                             [](const std::tuple<bool, bool, bool, bool, bool, bool>& t) {
                               const auto& [m0, m1, m2, m3, m4, all] = t;
                               return all ? 31U : unsigned(m0) | unsigned(m1) << 1 | unsigned(m2) << 2 | unsigned(m3) << 3 | unsigned(m4) << 4;
                             });
    std::vector<bool> nan_modes, indices;
    for (const auto& v : d.values("nan")) nan_modes.push_back(v == "nan_propagate");
    for (const auto& v : d.values("indices")) indices.push_back(v == "yes");
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "reduce", kReduceOps, reduce_op_name), op_dtype_gen(d), nd_genome_gen(d, lim), mask,
                                       any_of(nan_modes), any_of(indices)),
                        [lim](const std::tuple<ReduceOp, DType, NdGenome, unsigned, bool, bool>& t) {
                          ReduceProblem p;
                          p.op = std::get<0>(t);
                          p.dtype = std::get<1>(t);
                          p.channels_last = nd_layout_channels_last(std::get<0>(std::get<2>(t)));
                          p.dims = nd_dims(std::get<2>(t), lim.max_elements);
                          p.over.clear();
                          for (int i = 0; i < p.rank(); ++i)
                            if (std::get<3>(t) >> i & 1U) p.over.push_back(i);
                          if (p.over.empty()) p.over.push_back(p.rank() - 1);
                          p.propagate_nan = std::get<4>(t);
                          p.indices = std::get<5>(t) && reduce_op_selects(p.op);
                          return p;
                        });
  }
  std::optional<ReduceProblem> repair_typed(const ReduceProblem& p, int step) const override {
    ReduceProblem r = p;
    if (!repair_dims(r.dims, r.channels_last, step)) return std::nullopt;
    return r;
  }
  OpChoice choice_typed(const ReduceProblem& p) const override {
    return {{"reduce", std::string(reduce_op_name(p.op))},
            {"dtype", std::string(dtype_name(p.dtype))},
            {"layout", nd_layout_of(p.rank(), p.channels_last)},
            {"nan", nan_name(p.propagate_nan)},
            {"indices", p.indices ? "yes" : "no"}};
  }
  std::vector<std::string> classes_typed(const ReduceProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.dims, out);
    const std::int64_t L = p.reduced_length();
    add_tail_classes(L, out);
    if (p.over.size() >= 2) out.push_back("reduce:multi_dim");
    if (static_cast<int>(p.over.size()) == p.rank()) out.push_back("reduce:all_dims");
    if (L == 1) out.push_back("reduce:L1");
    if (L > kBlock) out.push_back("reduce:L>block");
    out.push_back(p.over.back() == p.rank() - 1 ? "reduce:inner" : "reduce:outer");
    return out;
  }
};

}  // namespace

OpGeneratorPtr make_pool_gen() { return std::make_shared<PoolGen>(); }
OpGeneratorPtr make_reduce_gen() { return std::make_shared<ReduceGen>(); }

}  // namespace hiprim::fuzz
