#include "fuzz/conv_gen.hpp"

#include <algorithm>
#include <numeric>

#include <rapidcheck/Random.h>
#include <rapidcheck/gen/Build.h>
#include <rapidcheck/gen/Create.h>
#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/gen/Tuple.h>
#include <rapidcheck/shrink/Shrink.h>
#include <rapidcheck/shrinkable/Create.h>
#include <rapidcheck/shrinkable/Transform.h>

#include "fuzz/gen_util.hpp"

namespace hiprim::fuzz {
namespace {

using verify::FillTier;

// Filter extents by weight: 1 and 3 most, then 2, 5, 4, 7; none below the domain's minimum.
std::vector<std::pair<int, std::int64_t>> filter_weights(std::int64_t min_filter) {
  std::vector<std::pair<int, std::int64_t>> w;
  for (const auto& e : std::vector<std::pair<int, std::int64_t>>{{3, 1}, {3, 3}, {1, 2}, {1, 5}, {1, 4}, {1, 7}})
    if (e.second >= min_filter) w.push_back(e);
  return w;
}

rc::Gen<SpatialGenome> spatial_gen(const ConvDomain& d, std::int64_t max_in, std::int64_t max_f, const ConvGenLimits& lim) {
  using rc::gen::set;
  return rc::gen::build<SpatialGenome>(
      set(&SpatialGenome::in, corner_size(1, max_in)),
      set(&SpatialGenome::filter, d.fixed_filter > 0 ? rc::gen::just<std::int64_t>(std::int64_t{d.fixed_filter})
                                  : d.filter_gt1   ? capped(filter_weights(d.min_filter), std::max(max_f, d.min_filter))
                                                   : rc::gen::just<std::int64_t>(1)),
      set(&SpatialGenome::stride, d.stride ? capped({{5, 1}, {3, 2}, {1, 3}, {1, 4}}, lim.max_stride) : rc::gen::just<std::int64_t>(1)),
      set(&SpatialGenome::dilation, d.dilation ? capped({{6, 1}, {2, 2}, {1, 3}}, lim.max_dilation) : rc::gen::just<std::int64_t>(1)),
      set(&SpatialGenome::pad_mode, d.pad ? pick<int>({{5, 0}, {4, 1}, {2, 2}, {1, 3}, {1, 4}}) : rc::gen::just(0)),
      set(&SpatialGenome::opad, d.trans ? pick<std::int64_t>({{3, 0}, {2, 1}, {1, 2}, {1, 3}}) : rc::gen::just<std::int64_t>(0)));
}

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

// One spatial axis of a problem under construction.
struct Axis {
  std::int64_t in, f, st, dil, pad, opad;
  std::int64_t extent() const { return dil * (f - 1) + 1; }  // E
};

// The axis's output size (ConvProblem::out()'s rule).
std::int64_t axis_out(const Axis& a, bool trans) {
  if (trans) return (a.in - 1) * a.st - 2 * a.pad + a.extent() + a.opad;
  const std::int64_t span = a.in + 2 * a.pad - a.extent();
  return span < 0 ? 0 : span / a.st + 1;
}

// Fraction of the computed tensor's positions along this axis that have at least one real term
// (the rest are structural zeros). In the relation P[q*st - pad + t*dil] ~ Q[q] (P = x, Q = y in
// mode conv; swapped in mode trans): computing Q, q is live when some tap lands inside P; computing
// P, p is live when some (q, t) reaches it; computing W, tap t is live when some q lands inside P.
double axis_live_fraction(const Axis& a, bool trans, ConvDir dir) {
  const std::int64_t out = axis_out(a, trans);
  const std::int64_t p_ext = trans ? out : a.in, q_ext = trans ? a.in : out;
  if (p_ext <= 0 || q_ext <= 0) return 0.0;
  auto inside_p = [&](std::int64_t q, std::int64_t t) {
    const std::int64_t pos = q * a.st - a.pad + t * a.dil;
    return pos >= 0 && pos < p_ext;
  };
  std::int64_t live = 0, total = 0;
  if (dir == ConvDir::bwd_weights) {
    total = a.f;
    for (std::int64_t t = 0; t < a.f; ++t)
      for (std::int64_t q = 0; q < q_ext; ++q)
        if (inside_p(q, t)) { ++live; break; }
  } else if ((dir == ConvDir::fwd) != trans) {  // computing Q
    total = q_ext;
    for (std::int64_t q = 0; q < q_ext; ++q)
      for (std::int64_t t = 0; t < a.f; ++t)
        if (inside_p(q, t)) { ++live; break; }
  } else {  // computing P
    total = p_ext;
    std::vector<char> hit(static_cast<std::size_t>(p_ext), 0);
    for (std::int64_t q = 0; q < q_ext; ++q)
      for (std::int64_t t = 0; t < a.f; ++t)
        if (inside_p(q, t)) hit[static_cast<std::size_t>(q * a.st - a.pad + t * a.dil)] = 1;
    for (char h : hit) live += h;
  }
  return static_cast<double>(live) / static_cast<double>(total);
}

// Everything of a case but its data, from the genome's (possibly budget-reduced) sizes.
ConvProblem build_problem(const ConvGenome& g, const ConvDomain& d) {
  ConvProblem p;
  p.dir = g.dir;
  p.dtype = g.dtype;
  p.channels_last = g.channels_last;
  if (d.fp32_needs_tf32 && p.dtype == DType::fp32) {  // the solver takes fp32 with math=tf32 only
    if (std::find(d.tf32_dirs.begin(), d.tf32_dirs.end(), p.dir) != d.tf32_dirs.end()) {
      p.math = ConvMath::tf32;
    } else {
      for (DType t : d.dtypes)
        if (t != DType::fp32) {
          p.dtype = t;
          break;
        }
    }
  }
  p.mode = g.trans && d.trans ? ConvMode::trans : ConvMode::conv;
  const bool trans = p.mode == ConvMode::trans;
  const int rank = g.three_d && d.rank3 ? 3 : 2;
  const std::int64_t m = std::max<std::int64_t>(1, d.channel_multiple);
  const bool depthwise = g.depthwise && d.depthwise;
  const std::int64_t groups = d.groups || depthwise ? std::max<std::int64_t>(1, g.groups) : 1;
  p.groups = groups;
  p.c = groups * (depthwise ? 1 : round_up(g.c_per_group, m));
  p.k = groups * round_up(g.k_per_group, m);
  p.n = g.n;
  std::vector<Axis> axes;
  for (int i = 3 - rank; i < 3; ++i) {
    const SpatialGenome& s = g.spatial[static_cast<std::size_t>(i)];
    Axis a{s.in, s.filter, s.stride, s.dilation, 0, 0};
    const std::int64_t extent = a.extent();
    const std::int64_t mode_pad[] = {0, (extent - 1) / 2, (extent + 1) / 2, extent - 1, extent};
    a.pad = mode_pad[std::clamp(s.pad_mode, 0, 4)];
    if (!trans) {
      if (a.in + 2 * a.pad < extent) {  // output >= 1 needs in + 2*pad >= E
        if (d.pad) a.pad = (extent - a.in + 1) / 2;
        else a.in = extent;
      }
    } else {
      a.opad = s.opad % std::max(a.st, a.dil);  // < stride or < dilation
      a.pad = std::min(a.pad, ((a.in - 1) * a.st + extent + a.opad - 1) / 2);  // output >= 1
    }
    axes.push_back(a);
  }
  // Structural zeros: the comparator mistrusts an output with more than 80% zeros (verify/compare.hpp),
  // so keep at least kMinLiveFraction of the computed tensor's elements live (some real term): lower
  // the pad, else the stride, else the dilation, of the axis with the fewest live positions until it
  // is. Problems past
  // that (a 1x1 stride-2 bwd-data: 75% structural zeros) stay to the conformance suites.
  for (int iter = 0; iter < 64; ++iter) {
    double live = 1.0, worst = 2.0;
    Axis* w = nullptr;
    for (Axis& a : axes) {
      const double f = axis_live_fraction(a, trans, p.dir);
      live *= f;
      if (f < worst && (a.pad > 0 || a.st > 1 || a.dil > 1)) worst = f, w = &a;
    }
    if (live >= kMinLiveFraction || !w) break;
    if (w->pad > 0) {
      --w->pad;
    } else if (w->st > 1) {
      --w->st;
    } else {
      --w->dil;  // dilation holes: dx positions between the taps of a short output
    }
    if (!trans && w->in + 2 * w->pad < w->extent()) w->in = w->extent() - 2 * w->pad;
    if (trans) {  // keep opad < max(stride, dilation) and the output >= 1
      w->opad = std::min(w->opad, std::max(w->st, w->dil) - 1);
      w->pad = std::min(w->pad, ((w->in - 1) * w->st + w->extent() + w->opad - 1) / 2);
    }
  }
  p.in.clear();
  p.filter.clear();
  p.pad.clear();
  p.stride.clear();
  p.dilation.clear();
  p.out_pad.clear();
  for (const Axis& a : axes) {
    p.in.push_back(a.in);
    p.filter.push_back(a.f);
    p.pad.push_back(a.pad);
    p.stride.push_back(a.st);
    p.dilation.push_back(a.dil);
    p.out_pad.push_back(a.opad);
  }
  p.bias = g.bias && d.bias && p.dir == ConvDir::fwd;
  return p;
}

bool over_budget(const ConvProblem& p, double max_macs, double max_elements) {
  if (p.macs() > max_macs) return true;
  for (const TensorDesc& t : {p.x_desc(), p.w_desc(), p.y_desc()})
    if (static_cast<double>(t.elements()) > std::max(std::min(max_macs, max_elements), 1.0)) return true;
  return false;
}

// Halves n, then the larger channel count per group, then groups, then the largest input size,
// then the largest filter, until the problem fits the budget.
void fit_budget(ConvGenome& g, const ConvDomain& d, double max_macs, double max_elements) {
  for (int iter = 0; iter < 200 && over_budget(build_problem(g, d), max_macs, max_elements); ++iter) {
    if (g.n > 1) { g.n /= 2; continue; }
    std::int64_t& ch = g.c_per_group >= g.k_per_group ? g.c_per_group : g.k_per_group;
    if (ch > 1) { ch /= 2; continue; }
    if (g.groups > 1) { g.groups /= 2; continue; }
    auto largest = [&](auto member) -> std::int64_t* {
      std::int64_t* best = nullptr;
      for (auto& s : g.spatial)
        if (s.*member > 1 && (!best || s.*member > *best)) best = &(s.*member);
      return best;
    };
    if (auto* in = largest(&SpatialGenome::in)) { *in /= 2; continue; }
    if (auto* f = largest(&SpatialGenome::filter)) { *f /= 2; continue; }
    break;
  }
}

std::string layout_class(bool channels_last, int rank) {
  if (rank == 3) return channels_last ? "layout:ndhwc" : "layout:ncdhw";
  return channels_last ? "layout:nhwc" : "layout:nchw";
}

}  // namespace

double structural_live_fraction(const ConvProblem& p) {
  double live = 1.0;
  for (int i = 0; i < p.rank(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    live *= axis_live_fraction(Axis{p.in[k], p.filter[k], p.stride[k], p.dilation[k], p.pad[k], p.out_pad[k]},
                               p.mode == ConvMode::trans, p.dir);
  }
  return live;
}

ConvGenLimits small_conv_limits() { return {}; }

ConvGenLimits large_conv_limits() {
  ConvGenLimits l;
  l.max_n = 32;
  l.max_channels_per_group = 256;
  l.max_groups = 8;
  l.max_spatial = 96;
  l.max_spatial_3d = 24;
  l.max_macs = 3e8;
  l.max_macs_bounded = 2e7;
  l.max_macs_special = 2e6;
  l.max_tensor_elements = 8e6;
  return l;
}

rc::Gen<ConvGenome> conv_genome_gen(const ConvDomain& d, const ConvGenLimits& lim) {
  using rc::gen::set;
  std::vector<std::pair<int, Special>> specials;
  for (Special s : d.specials) specials.push_back({s == Special::none ? 12 : (s == Special::nan || s == Special::inf ? 2 : 1), s});
  std::vector<std::pair<int, DType>> dtypes;
  for (DType t : d.dtypes) dtypes.push_back({t == DType::fp32 ? 2 : 1, t});
  std::vector<std::pair<int, std::int64_t>> groups{{6, 1}};
  for (std::int64_t gr = 2; gr <= (d.depthwise ? 2 * lim.max_groups : lim.max_groups); ++gr) groups.push_back({gr <= 3 ? 2 : 1, gr});
  auto sp2 = spatial_gen(d, lim.max_spatial, lim.max_filter, lim);
  auto sp3 = spatial_gen(d, lim.max_spatial_3d, lim.max_filter_3d, lim);
  auto spatial = rc::gen::map(rc::gen::tuple(sp3, sp2, sp2), [](std::tuple<SpatialGenome, SpatialGenome, SpatialGenome>&& t) {
    return std::array<SpatialGenome, 3>{std::get<0>(t), std::get<1>(t), std::get<2>(t)};
  });
  rc::Gen<ConvGenome> raw = rc::gen::build<ConvGenome>(
      set(&ConvGenome::special, pick(specials)),
      // Shrinks toward bounded: a rounding bug seen in the exact tier only with long integer sums
      // (> 2^8 for bf16) shows in the bounded tier on a single product; indexing bugs show in both.
      set(&ConvGenome::fill, pick<FillTier>({{2, FillTier::bounded}, {3, FillTier::exact}})),
      set(&ConvGenome::three_d, d.rank3 ? flag(20) : rc::gen::just(false)),
      set(&ConvGenome::trans, d.trans ? flag(25) : rc::gen::just(false)),
      set(&ConvGenome::bias, d.bias ? flag(30) : rc::gen::just(false)),
      set(&ConvGenome::depthwise, d.depthwise ? flag(20) : rc::gen::just(false)),
      set(&ConvGenome::groups, d.groups || d.depthwise ? pick(groups) : rc::gen::just<std::int64_t>(1)),
      set(&ConvGenome::dtype, pick(dtypes)),
      set(&ConvGenome::channels_last, any_of(d.channels_last)),
      set(&ConvGenome::dir, any_of(d.dirs)),
      set(&ConvGenome::n, corner_size(1, lim.max_n)),
      set(&ConvGenome::c_per_group, corner_size(1, lim.max_channels_per_group)),
      set(&ConvGenome::k_per_group, corner_size(1, lim.max_channels_per_group)),
      set(&ConvGenome::spatial, spatial),
      set(&ConvGenome::seed, seed_gen()));
  return raw;
}

ConvCase conv_case_from_genome(const ConvGenome& genome, const ConvDomain& d, const ConvGenLimits& lim) {
  ConvGenome g = genome;
  fit_budget(g, d, lim.max_macs, lim.max_tensor_elements);
  ConvCase c;
  c.problem = build_problem(g, d);
  c.data.seed = g.seed;
  // The data choice, then the budget of the oracle it needs (smaller problems fit it exactly too).
  const bool exact_possible = verify::exact_fill_range(c.problem) > 0;
  FillTier tier = exact_possible ? g.fill : FillTier::bounded;
  Special special = g.special;
  // math=tf32 cases carry no special values: the special-value judge has the direct model only.
  if (c.problem.math == ConvMath::tf32) special = Special::none;
  if (special == Special::huge) tier = FillTier::bounded;
  if (special == Special::subnormal) {
    if (exact_possible) tier = FillTier::exact;
    else special = Special::none;
  }
  const double budget = special != Special::none ? lim.max_macs_special : tier == FillTier::bounded ? lim.max_macs_bounded : lim.max_macs;
  if (budget < lim.max_macs) {
    fit_budget(g, d, budget, lim.max_tensor_elements);
    c.problem = build_problem(g, d);
  }
  const bool exact_ok = verify::exact_fill_range(c.problem) > 0;
  if (!exact_ok) tier = FillTier::bounded;
  if (special == Special::subnormal && !exact_ok) special = Special::none;
  c.data.special = special;
  if (tier != (exact_ok ? FillTier::exact : FillTier::bounded)) c.data.fill = tier;
  return c;
}

FillTier conv_case_tier(const ConvCase& c) {
  if (c.data.fill) return *c.data.fill;
  return verify::exact_fill_range(c.problem) > 0 ? FillTier::exact : FillTier::bounded;
}

std::vector<std::string> conv_case_classes(const ConvCase& cc) {
  const ConvProblem& p = cc.problem;
  std::vector<std::string> out{"dir:" + std::string(conv_dir_name(p.dir)), "dtype:" + std::string(dtype_name(p.dtype)),
                               layout_class(p.channels_last, p.rank()), "fill:" + std::string(verify::fill_tier_name(conv_case_tier(cc)))};
  if (cc.data.special != Special::none) out.push_back("special:" + std::string(special_name(cc.data.special)));
  const Dims o = p.out();
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  bool size1 = p.n == 1 || p.c == 1 || p.k == 1, odd = false, prime = is_prime(p.c) && p.c >= 5, pad_half = false, stride_gt = false,
       dil = false, opad = false;
  prime = prime || (is_prime(p.k) && p.k >= 5);
  for (int i = 0; i < p.rank(); ++i) {
    size1 = size1 || p.in[i] == 1 || o[i] == 1;
    odd = odd || (p.in[i] % 2 == 1 && p.in[i] > 1) || (o[i] % 2 == 1 && o[i] > 1);
    prime = prime || (is_prime(p.in[i]) && p.in[i] >= 5) || (is_prime(o[i]) && o[i] >= 5);
    pad_half = pad_half || (p.pad[i] > 0 && 2 * p.pad[i] >= p.filter[i]);
    stride_gt = stride_gt || p.stride[i] > p.filter[i];
    dil = dil || (p.dilation[i] > 1 && p.filter[i] > 1);
    opad = opad || p.out_pad[i] > 0;
  }
  // Tiles of 16 (width) x 8 (height) pixels and 8 channels: a remainder past at least one full tile.
  const std::int64_t ow = o.back(), oh = o[static_cast<std::size_t>(p.rank() - 2)];
  const bool tail = (ow > 16 && ow % 16 != 0) || (oh > 8 && oh % 8 != 0) || (kg > 8 && kg % 8 != 0) || (cg > 8 && cg % 8 != 0);
  auto add = [&](bool on, const char* name) {
    if (on) out.push_back(name);
  };
  add(size1, "size1");
  add(odd, "odd_size");
  add(prime, "prime_size");
  add(tail, "tail");
  add(pad_half, "pad_ge_half_filter");
  add(stride_gt, "stride_gt_filter");
  add(dil, "dilation");
  add(p.groups > 1 && cg > 1, "groups");
  add(p.groups > 1 && cg == 1, "depthwise");
  add(p.rank() == 3, "3d");
  add(p.mode == ConvMode::trans, "trans");
  add(opad, "opad");
  add(p.bias, "bias");
  add(p.math == ConvMath::tf32, "math:tf32");
  return out;
}

std::vector<std::string> conv_reachable_classes(const ConvDomain& d) {
  std::vector<std::string> out;
  for (ConvDir dir : d.dirs) out.push_back("dir:" + std::string(conv_dir_name(dir)));
  for (DType t : d.dtypes) out.push_back("dtype:" + std::string(dtype_name(t)));
  for (bool cl : d.channels_last) {
    out.push_back(layout_class(cl, 2));
    if (d.rank3) out.push_back(layout_class(cl, 3));
  }
  out.push_back("fill:exact");
  out.push_back("fill:bounded");
  for (Special s : d.specials)
    if (s != Special::none) out.push_back("special:" + std::string(special_name(s)));
  for (const char* c : {"size1", "odd_size", "prime_size", "tail"}) out.push_back(c);
  auto add = [&](bool on, const char* name) {
    if (on) out.push_back(name);
  };
  add(d.fp32_needs_tf32, "math:tf32");
  add(d.pad, "pad_ge_half_filter");
  add(d.stride, "stride_gt_filter");
  add(d.dilation, "dilation");
  add(d.groups, "groups");
  add(d.depthwise, "depthwise");
  add(d.rank3, "3d");
  add(d.trans, "trans");
  add(d.trans && (d.stride || d.dilation), "opad");
  add(d.bias, "bias");
  return out;
}

std::vector<SkippedClass> conv_skipped_classes(const ConvDomain& d) {
  std::vector<SkippedClass> out{{"non_packed_strides", "ConvProblem is packed per layout: conv solvers take no strided tensors"}};
  for (Special s : all_specials())
    if (s != Special::none && std::find(d.specials.begin(), d.specials.end(), s) == d.specials.end())
      out.push_back({"special:" + std::string(special_name(s)), "not drawn (--specials, or it failed earlier in this campaign)"});
  auto refused = [&](bool on, const char* name, const char* what) {
    if (!on) out.push_back({name, std::string("the solver refuses ") + what + " (probed)"});
  };
  refused(d.pad, "pad_ge_half_filter", "padding");
  refused(d.stride, "stride_gt_filter", "stride > 1");
  refused(d.dilation, "dilation", "dilation > 1");
  refused(d.groups, "groups", "groups");
  refused(d.depthwise, "depthwise", "depthwise groups");
  refused(d.rank3, "3d", "3D");
  refused(d.trans, "trans", "transposed convolution");
  refused(d.trans && (d.stride || d.dilation), "opad", "output padding (needs trans with stride or dilation)");
  refused(d.bias, "bias", "bias");
  for (ConvDir dir : {ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights})
    if (std::find(d.dirs.begin(), d.dirs.end(), dir) == d.dirs.end())
      out.push_back({"dir:" + std::string(conv_dir_name(dir)), "the solver refuses this direction (probed)"});
  for (DType t : {DType::fp32, DType::fp16, DType::bf16})
    if (std::find(d.dtypes.begin(), d.dtypes.end(), t) == d.dtypes.end())
      out.push_back({"dtype:" + std::string(dtype_name(t)), "the solver refuses this dtype (probed)"});
  return out;
}

}  // namespace hiprim::fuzz
