#include "fuzz/conv_domain.hpp"

#include <algorithm>

namespace hiprim::fuzz {
namespace {

// Small 2D problem: n1 c k in8x8 f1x1 (f = 3: f3x3 pad1x1), everything else default.
ConvProblem anchor_problem(std::int64_t ch, DType t, bool channels_last, ConvDir dir, std::int64_t f = 1) {
  ConvProblem p;
  p.dir = dir;
  p.dtype = t;
  p.channels_last = channels_last;
  p.n = 1;
  p.c = ch;
  p.k = ch;
  p.in = {8, 8};
  p.filter = {f, f};
  p.pad = {f / 2, f / 2};
  p.stride = {1, 1};
  p.dilation = {1, 1};
  p.out_pad = {0, 0};
  return p;
}

bool accepts(const ConvSolver& s, const ConvProblem& p) { return p.valid() && static_cast<bool>(s.applicable(p)); }

template <typename T>
void keep_if(std::vector<T>& v, auto pred) {
  std::vector<T> out;
  for (const T& x : v)
    if (pred(x)) out.push_back(x);
  v = out;
}

}  // namespace

ConvDomain full_conv_domain() { return {}; }

std::string ConvDomain::describe() const {
  std::string s = "dirs ";
  for (std::size_t i = 0; i < dirs.size(); ++i) s += (i ? "," : "") + std::string(conv_dir_name(dirs[i]));
  s += "; dtypes ";
  for (std::size_t i = 0; i < dtypes.size(); ++i) s += (i ? "," : "") + std::string(dtype_name(dtypes[i]));
  s += "; layouts ";
  for (std::size_t i = 0; i < channels_last.size(); ++i) s += (i ? "," : "") + std::string(channels_last[i] ? "channels-last" : "channels-first");
  s += rank3 ? "; 2D,3D" : "; 2D";
  auto feature = [&](bool on, const char* name) { s += std::string("; ") + (on ? "" : "no ") + name; };
  feature(trans, "trans");
  feature(groups, "groups");
  feature(depthwise, "depthwise");
  if (fixed_filter > 0) s += "; filter " + std::to_string(fixed_filter) + " only";
  else if (min_filter > 1) s += "; filter >= " + std::to_string(min_filter);
  else feature(filter_gt1, "filter>1");
  feature(pad, "pad");
  feature(stride, "stride");
  feature(dilation, "dilation");
  feature(bias, "bias");
  if (specials.size() < all_specials().size()) {
    s += "; specials ";
    for (std::size_t i = 0; i < specials.size(); ++i) s += (i ? "," : "") + std::string(special_name(specials[i]));
  }
  if (channel_multiple > 1) s += "; channels per group multiple of " + std::to_string(channel_multiple);
  if (fp32_needs_tf32) {
    s += "; fp32 as math=tf32 (";
    for (std::size_t i = 0; i < tf32_dirs.size(); ++i) s += (i ? "," : "") + std::string(conv_dir_name(tf32_dirs[i]));
    s += ")";
  }
  if (!found_anchor) s += " (no probe accepted: unconstrained)";
  return s;
}

ConvDomain probe_conv_domain(const ConvSolver& s) {
  ConvDomain d;
  const ConvDomain full;
  // 1. Anchor: the smallest channel count, then the first dtype/layout/direction it accepts.
  std::optional<ConvProblem> anchor;
  for (std::int64_t f : {1, 3}) {
    for (std::int64_t ch : {1, 2, 4, 8, 16, 32, 64}) {
      for (DType t : full.dtypes)
        for (bool cl : full.channels_last)
          for (ConvDir dir : full.dirs)
            if (!anchor && accepts(s, anchor_problem(ch, t, cl, dir, f))) anchor = anchor_problem(ch, t, cl, dir, f);
      if (anchor) break;
    }
    if (anchor) {
      // A 3x3 anchor after every 1x1 one was refused: the solver takes one filter size, unless it
      // takes the 5x5 anchor too (then filters from 2, or 3, up).
      if (f > 1) {
        auto with_filter = [&](std::int64_t g) {
          return accepts(s, anchor_problem(anchor->c, anchor->dtype, anchor->channels_last, anchor->dir, g));
        };
        if (!with_filter(5))
          d.fixed_filter = f;
        else
          d.min_filter = with_filter(2) ? 2 : f;
      }
      break;
    }
  }
  if (!anchor) {
    d.found_anchor = false;
    return d;
  }
  const std::int64_t f = d.fixed_filter > 0 ? d.fixed_filter : d.min_filter > 1 ? 3 : 1;  // the filter of every probe below
  d.channel_multiple = anchor->c;
  // 2. One axis at a time from the anchor.
  keep_if(d.dirs, [&](ConvDir dir) {
    ConvProblem p = *anchor;
    p.dir = dir;
    return accepts(s, p);
  });
  // A feature is in when the anchor with it is accepted in some accepted direction.
  auto with = [&](auto change) {
    for (ConvDir dir : d.dirs) {
      ConvProblem p = *anchor;
      p.dir = dir;
      change(p);
      if (accepts(s, p)) return true;
    }
    return false;
  };
  keep_if(d.dtypes, [&](DType t) {
    if (with([&](ConvProblem& p) { p.dtype = t; })) return true;
    if (t != DType::fp32) return false;
    for (ConvDir dir : d.dirs) {  // fp32 only with the opt-in TF32 token?
      ConvProblem p = *anchor;
      p.dir = dir, p.dtype = DType::fp32, p.math = ConvMath::tf32;
      if (accepts(s, p)) d.tf32_dirs.push_back(dir);
    }
    d.fp32_needs_tf32 = !d.tf32_dirs.empty();
    return d.fp32_needs_tf32;
  });
  keep_if(d.channels_last, [&](bool cl) { return with([&](ConvProblem& p) { p.channels_last = cl; }); });
  const std::int64_t ch = anchor->c;
  d.rank3 = with([&](ConvProblem& p) {
    p.in = {4, 8, 8};
    p.filter = {f, f, f};
    p.pad = {f / 2, f / 2, f / 2};
    p.stride = {1, 1, 1};
    p.dilation = {1, 1, 1};
    p.out_pad = {0, 0, 0};
  });
  d.trans = with([](ConvProblem& p) { p.mode = ConvMode::trans; });
  d.groups = with([&](ConvProblem& p) {
    p.groups = 2;
    p.c = p.k = 2 * ch;
  });
  d.depthwise = with([&](ConvProblem& p) {
    p.groups = p.c = p.k = std::max<std::int64_t>(2, ch);
  });
  d.filter_gt1 = d.fixed_filter > 1 || d.min_filter > 1 || with([](ConvProblem& p) { p.filter = {3, 3}; });
  d.pad = with([&](ConvProblem& p) {
    p.pad = {1, 1};
    if (d.filter_gt1) p.filter = {3, 3};
  }) || with([](ConvProblem& p) { p.pad = {1, 1}; });
  d.stride = with([](ConvProblem& p) { p.stride = {2, 2}; });
  d.dilation = d.filter_gt1 && with([](ConvProblem& p) {
    p.filter = {3, 3};
    p.dilation = {2, 2};
  });
  d.bias = std::find(d.dirs.begin(), d.dirs.end(), ConvDir::fwd) != d.dirs.end() && [&] {
    ConvProblem p = *anchor;
    p.dir = ConvDir::fwd;
    p.bias = true;
    return accepts(s, p);
  }();
  if (d.depthwise && ch > 1) d.depthwise = false;  // depthwise needs one channel per group
  return d;
}

}  // namespace hiprim::fuzz
