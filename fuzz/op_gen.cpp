#include "fuzz/op_gen.hpp"

#include <algorithm>
#include <functional>

#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/gen/Tuple.h>

#include "core/error.hpp"
#include "core/primitives.hpp"
#include "fuzz/gen_util.hpp"

namespace hiprim::fuzz {
namespace {

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

// Halves *v; a multiple of 8 above 8 stays a multiple of 8 (what step 0 of a repair made it).
void halve(std::int64_t& v) { v = v % 8 == 0 && v > 8 ? std::max<std::int64_t>(8, round_up(v / 2, 8)) : std::max<std::int64_t>(1, v / 2); }

// Every combination of the axes' values, in order (first axis slowest).
void for_each_choice(const std::vector<OpAxis>& axes, const std::function<void(const OpChoice&)>& f) {
  OpChoice c;
  std::function<void(std::size_t)> rec = [&](std::size_t i) {
    if (i == axes.size()) return f(c);
    for (const auto& v : axes[i].values) {
      c[axes[i].name] = v;
      rec(i + 1);
    }
  };
  rec(0);
}

}  // namespace

OpGenLimits small_op_limits() { return {}; }

OpGenLimits large_op_limits() {
  OpGenLimits l;
  l.max_elements = 1 << 18;
  l.max_n = 16;
  l.max_c = 256;
  l.max_spatial = 128;
  l.max_spatial_3d = 24;
  l.max_row_c = 1500;
  l.max_dim = 300;
  return l;
}

const std::vector<std::string>& OpDomain::values(const std::string& axis) const {
  for (const auto& a : axes)
    if (a.name == axis) return a.values;
  throw InputError("op domain: no axis '" + axis + "'");
}

bool OpDomain::allows(const std::string& axis, const std::string& value) const {
  const auto& v = values(axis);
  return std::find(v.begin(), v.end(), value) != v.end();
}

std::string OpDomain::describe() const {
  std::string s;
  for (const auto& a : axes) {
    s += (s.empty() ? "" : "; ") + a.name + " ";
    for (std::size_t i = 0; i < a.values.size(); ++i) s += (i ? "," : "") + a.values[i];
  }
  if (!found_anchor) s += " (no probe accepted: unconstrained)";
  return s;
}

std::vector<std::string> fuzzed_ops() {
  std::vector<std::string> ops = primitive_names();
  std::sort(ops.begin(), ops.end());
  return ops;
}

OpGeneratorPtr op_generator(const std::string& op) {
  static const std::map<std::string, OpGeneratorPtr> gens = {
#define HIPRIM_PRIMITIVE(name, fill) {#name, make_##name##_gen()},
#include "core/primitives.def"
  };
  auto it = gens.find(op);
  return it == gens.end() ? nullptr : it->second;
}

OpDomain full_op_domain(const OpGenerator& g) { return {g.axes(), true}; }

OpDomain probe_op_domain(const OpGenerator& g, const OpSolver& s) {
  const std::vector<OpAxis> full = g.axes();
  std::map<std::string, std::vector<bool>> seen;
  for (const auto& a : full) seen[a.name].assign(a.values.size(), false);
  bool any = false;
  for_each_choice(full, [&](const OpChoice& c) {
    const OpProblemPtr p = g.anchor(c);
    if (!p || !p->valid() || !s.applicable(*p)) return;
    any = true;
    for (const auto& a : full)
      for (std::size_t i = 0; i < a.values.size(); ++i)
        if (a.values[i] == c.at(a.name)) seen[a.name][i] = true;
  });
  if (!any) return {full, false};
  OpDomain d;
  for (const auto& a : full) {
    OpAxis kept{a.name, {}};
    for (std::size_t i = 0; i < a.values.size(); ++i)
      if (seen[a.name][i]) kept.values.push_back(a.values[i]);
    d.axes.push_back(kept);
  }
  return d;
}

std::vector<std::string> op_reachable_classes(const OpGenerator& g, const OpDomain& d) {
  std::vector<std::string> out;
  for (const auto& a : d.axes)
    for (const auto& v : a.values) out.push_back(a.name + ":" + v);
  for (auto& c : g.feature_classes(d)) out.push_back(c);
  return out;
}

std::vector<SkippedClass> op_skipped_classes(const OpGenerator& g, const OpDomain& d) {
  std::vector<SkippedClass> out{{"non_packed_strides", "op problems are packed per layout: op solvers take no strided tensors"}};
  for (const auto& a : g.axes())
    for (const auto& v : a.values)
      if (!d.allows(a.name, v)) out.push_back({a.name + ":" + v, "the solver refuses it (probed)"});
  for (auto& k : g.skipped_classes(d)) out.push_back(k);
  return out;
}

std::vector<std::string> op_case_classes(const OpGenerator& g, const OpProblem& p) {
  std::vector<std::string> out;
  for (const auto& [axis, value] : g.choice_of(p)) out.push_back(axis + ":" + value);
  for (auto& c : g.classes(p)) out.push_back(c);
  return out;
}

double op_case_size(const OpProblem& p) {
  double s = 0;
  for (const auto& t : p.tensors()) s += static_cast<double>(t.desc.elements());
  return s;
}

OpAxis shape_layout_axis() { return {"layout", {"nchw", "nhwc", "ncdhw", "ndhwc"}}; }
OpAxis dtype_axis() { return {"dtype", {"fp32", "fp16", "bf16"}}; }

DType dtype_of(const std::string& name) {
  if (name == "fp16") return DType::fp16;
  if (name == "bf16") return DType::bf16;
  return DType::fp32;
}

namespace {

std::vector<std::pair<int, std::string>> dtype_weights(const OpDomain& d) {
  std::vector<std::pair<int, std::string>> w;
  for (const auto& t : d.values("dtype")) w.push_back({t == "fp32" ? 2 : 1, t});
  return w;
}

const std::vector<std::int64_t>& channel_tiles() {
  static const std::vector<std::int64_t> t = [] {
    std::vector<std::int64_t> v = default_tile_sizes();
    for (std::int64_t x : {127, 128, 129, 255, 256, 257}) v.push_back(x);
    return v;
  }();
  return t;
}

}  // namespace

rc::Gen<DType> op_dtype_gen(const OpDomain& d) {
  return rc::gen::map(pick(dtype_weights(d)), [](const std::string& t) { return dtype_of(t); });
}

rc::Gen<OpShape> op_shape_gen(const OpDomain& d, const OpGenLimits& lim, std::int64_t max_c) {
  return rc::gen::map(rc::gen::tuple(op_dtype_gen(d), any_of(d.values("layout")), corner_size(1, lim.max_n),
                                     corner_size(1, max_c, channel_tiles()), corner_size(1, lim.max_spatial_3d),
                                     corner_size(1, lim.max_spatial), corner_size(1, lim.max_spatial)),
                      [](const std::tuple<DType, std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>& t) {
                        const auto& [dt, layout, n, c, dd, h, w] = t;
                        OpShape s;
                        s.dtype = dt;
                        s.channels_last = layout == "nhwc" || layout == "ndhwc";
                        s.n = n;
                        s.c = c;
                        s.in = layout == "ncdhw" || layout == "ndhwc" ? Dims{dd, h, w} : Dims{h, w};
                        return s;
                      });
}

OpShape anchor_shape(const OpChoice& c) {
  OpShape s;
  s.dtype = dtype_of(c.count("dtype") ? c.at("dtype") : "fp32");
  const std::string layout = c.count("layout") ? c.at("layout") : "nchw";
  s.channels_last = layout == "nhwc" || layout == "ndhwc";
  s.n = 2;
  s.c = 8;
  s.in = layout == "ncdhw" || layout == "ndhwc" ? Dims{3, 5, 6} : Dims{5, 6};
  return s;
}

void fit_shape(OpShape& s, std::int64_t max_elements, std::int64_t factor) {
  for (int iter = 0; iter < 200 && s.elements() * factor > max_elements; ++iter) {
    if (s.n > 1) {
      s.n /= 2;
      continue;
    }
    std::int64_t* largest = s.c > 1 ? &s.c : nullptr;
    for (auto& v : s.in)
      if (v > 1 && (!largest || v > *largest)) largest = &v;
    if (!largest) break;
    *largest /= 2;
  }
}

bool repair_shape(OpShape& s, int step) {
  if (step == 0) {
    s.c = round_up(s.c, 8);
    return true;
  }
  std::int64_t* largest = s.n > 1 ? &s.n : nullptr;
  for (auto& v : s.in)
    if (v > 1 && (!largest || v > *largest)) largest = &v;
  if (s.c > 8 && (!largest || s.c > *largest)) largest = &s.c;
  if (!largest) return false;
  halve(*largest);
  return true;
}

bool repair_dims(Dims& dims, bool channels_last, int step) {
  const std::size_t inner = channels_last && dims.size() >= 4 ? 1 : dims.size() - 1;
  if (step == 0) {
    dims[inner] = round_up(dims[inner], 8);
    return true;
  }
  std::int64_t* largest = nullptr;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const bool shrinkable = i == inner ? dims[i] > 8 || (dims[i] > 1 && dims[i] % 8 != 0) : dims[i] > 1;
    if (shrinkable && (!largest || dims[i] > *largest)) largest = &dims[i];
  }
  if (!largest) return false;
  halve(*largest);
  return true;
}

OpAxis nd_layout_axis() { return {"layout", {"nchw", "nhwc", "ncdhw", "ndhwc", "rank1", "rank2", "rank3"}}; }

int nd_layout_rank(const std::string& layout) {
  if (layout == "nchw" || layout == "nhwc") return 4;
  if (layout == "ncdhw" || layout == "ndhwc") return 5;
  return layout.back() - '0';
}

bool nd_layout_channels_last(const std::string& layout) { return layout == "nhwc" || layout == "ndhwc"; }

std::string nd_layout_of(int rank, bool channels_last) {
  if (rank == 4) return channels_last ? "nhwc" : "nchw";
  if (rank == 5) return channels_last ? "ndhwc" : "ncdhw";
  return "rank" + std::to_string(rank);
}

rc::Gen<NdGenome> nd_genome_gen(const OpDomain& d, const OpGenLimits& lim) {
  auto dim = corner_size(1, lim.max_dim);
  return rc::gen::tuple(any_of(d.values("layout")), dim, dim, dim, dim, dim);
}

Dims nd_dims(const NdGenome& g, std::int64_t max_elements) {
  const auto& [layout, d0, d1, d2, d3, d4] = g;
  const Dims all{d0, d1, d2, d3, d4};
  Dims d(all.begin(), all.begin() + nd_layout_rank(layout));
  auto elements = [&] {
    std::int64_t e = 1;
    for (auto v : d) e *= v;
    return e;
  };
  for (int iter = 0; iter < 200 && elements() > max_elements; ++iter) *std::max_element(d.begin(), d.end()) /= 2;
  return d;
}

void add_shape_classes(const Dims& dims, std::vector<std::string>& out) {
  bool size1 = false, odd = false, prime = false;
  for (auto v : dims) {
    size1 = size1 || v == 1;
    odd = odd || (v > 1 && v % 2 == 1);
    prime = prime || (v >= 5 && is_prime(v));
  }
  if (size1) out.push_back("size1");
  if (odd) out.push_back("odd");
  if (prime) out.push_back("prime");
}

void add_tail_classes(std::int64_t length, std::vector<std::string>& out) {
  for (auto [m, name] : {std::pair{4, "tail:4"}, std::pair{32, "tail:32"}, std::pair{256, "tail:256"}})
    if (length > m && length % m != 0 && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
}

std::vector<std::string> common_feature_classes() { return {"size1", "odd", "prime", "tail:4", "tail:32", "tail:256"}; }

}  // namespace hiprim::fuzz
