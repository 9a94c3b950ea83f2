// Property tests of the CPU convolution oracle on small random problems (conv_property_tools.hpp).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <functional>
#include <set>

#include "tests/reference/conv_property_tools.hpp"

using namespace hiprim;
using namespace hiprim::test;

namespace {

using Oracle = std::function<ref::ConvOutput(const ConvProblem&, const ref::ConvInputs&, const TensorDesc*)>;

// Both implementations, fast with 3 threads (more threads than most small problems have units).
std::vector<std::pair<const char*, Oracle>> oracles() {
  return {{"naive", [](const ConvProblem& p, const ref::ConvInputs& in, const TensorDesc* d) { return ref::conv_naive(p, in, true, d); }},
          {"fast", [](const ConvProblem& p, const ref::ConvInputs& in, const TensorDesc* d) { return ref::conv_fast(p, in, true, d, 3); }}};
}

ConvProblem with_dir(ConvProblem p, ConvDir d) {
  p.dir = d;
  p.bias = p.bias && d == ConvDir::fwd;
  return p;
}

// Different-order double sums of the same <= L terms differ by at most 2*gamma_L*sum|terms|,
// gamma_L = L*u/(1-L*u), u = 2^-53. The generated problems have L <= 3*7*7 = 147 (bwd-weights,
// 2D trans: n * in-spatial; 3D: 3*4^3 = 192) and L <= 6*27 (fwd/bwd-data), so 2*gamma_L < 5e-14;
// 1e-12 leaves room without hiding any real error (a wrong term changes a value by O(1)).
constexpr double kSameTermsRel = 1e-12;

rc::Gen<ConvProblem> gen_mode(ConvMode m) {
  return rc::gen::suchThat(gen_small_problem(), [m](const ConvProblem& p) { return p.mode == m; });
}

// Copy of channels [begin, begin+count) of dim `dim` (0 or 1) into a packed tensor of the same layout.
HostTensor slice(const HostTensor& t, std::size_t dim, std::int64_t begin, std::int64_t count, bool channels_last) {
  Dims d = t.desc.dims;
  d[dim] = count;
  HostTensor r(TensorDesc::packed(t.desc.dtype, d, channels_last && d.size() > 1));
  for_each_index(d, [&](const Dims& i) {
    Dims src = i;
    src[dim] += begin;
    r.at(i) = t.at(src);
  });
  return r;
}

}  // namespace

// <fwd(x,w), dy> == <x, bwd_data(dy,w)> == <w, bwd_weights(x,dy)>: all three are the sum of the
// same products x*w*dy over every term of the convolution.
RC_GTEST_PROP(ReferenceConv, DirectionsAreAdjoint, ()) {
  ConvProblem p = *gen_small_problem();
  p.bias = false;
  const auto t = random_tensors(p, *rc::gen::arbitrary<std::uint32_t>());
  for (const auto& [name, run] : oracles()) {
    const auto y = run(with_dir(p, ConvDir::fwd), t.inputs(), nullptr);
    const auto dx = run(with_dir(p, ConvDir::bwd_data), t.inputs(), nullptr);
    const auto dw = run(with_dir(p, ConvDir::bwd_weights), t.inputs(), nullptr);
    const double a = dot(y, t.y), b = dot(dx, t.x), c = dot(dw, t.w);
    const double s_abs = abs_dot(y, t.y);  // sum over terms of |x*w*dy|
    // Each of a, b, c is a double sum of the same products, through at most T = macs + outputs
    // additions plus 2 multiplications per term: error <= gamma_{T+2} * s_abs each (u = 2^-53), so
    // |a - b| <= 2*gamma_{T+2}*s_abs. For these sizes T < 2e6, i.e. about 4e-10 relative at most.
    const double tt = p.macs() + double(std::max({t.x.desc.elements(), t.w.desc.elements(), t.y.desc.elements()})) + 2;
    const double u = std::ldexp(1.0, -53);
    const double tol = 2.0 * tt * u / (1.0 - tt * u) * s_abs;
    RC_LOG() << name << " " << to_string(p) << ": " << a << " " << b << " " << c << " tol " << tol << "\n";
    RC_ASSERT(std::fabs(a - b) <= tol);
    RC_ASSERT(std::fabs(a - c) <= tol);
    RC_ASSERT(std::fabs(s_abs - abs_dot(dx, t.x)) <= tol);
    RC_ASSERT(std::fabs(s_abs - abs_dot(dw, t.w)) <= tol);
  }
}

// Transposed conv T (x [N,C,in], w [C,K/G,f], y [N,K,out]) is the adjoint of the conv P with
// input channels K, output channels C, input size out: T fwd == P bwd-data, T bwd-data == P fwd,
// T bwd-weights(x, dy) == P bwd-weights(x := dy, dy := x).
RC_GTEST_PROP(ReferenceConv, TransposedMatchesConvAdjoint, ()) {
  ConvProblem tp = *gen_mode(ConvMode::trans);
  tp.bias = false;
  ConvProblem cp = tp;
  cp.mode = ConvMode::conv;
  cp.c = tp.k;
  cp.k = tp.c;
  cp.in = tp.out();
  cp.out_pad = Dims(tp.in.size(), 0);
  RC_PRE(cp.valid() && cp.out() == tp.in);  // fails only when an output padding >= stride is floored away
  const auto t = random_tensors(tp, *rc::gen::arbitrary<std::uint32_t>());
  auto check = [&](ConvDir tdir, ref::ConvInputs tin, ConvDir cdir, ref::ConvInputs cin) {
    const auto a = ref::conv_naive(with_dir(tp, tdir), tin);
    const auto b = ref::conv_naive(with_dir(cp, cdir), cin);
    RC_ASSERT(a.desc.dims == b.desc.dims);
    RC_ASSERT(count_mismatches(a, b, kSameTermsRel) == 0);
  };
  check(ConvDir::fwd, {&t.x, &t.w, nullptr, nullptr}, ConvDir::bwd_data, {nullptr, &t.w, &t.x, nullptr});
  check(ConvDir::bwd_data, {nullptr, &t.w, &t.y, nullptr}, ConvDir::fwd, {&t.y, &t.w, nullptr, nullptr});
  check(ConvDir::bwd_weights, {&t.x, nullptr, &t.y, nullptr}, ConvDir::bwd_weights, {&t.y, nullptr, &t.x, nullptr});
}

// A G-group conv is G independent convs on channel slices, outputs concatenated along channels.
RC_GTEST_PROP(ReferenceConv, GroupedEqualsPerGroupConcatenated, ()) {
  const ConvProblem p = *rc::gen::suchThat(gen_small_problem(), [](const ConvProblem& q) { return q.groups > 1; });
  const auto t = random_tensors(p, *rc::gen::arbitrary<std::uint32_t>());
  const auto full = ref::conv_naive(p, t.inputs());
  const std::int64_t cg = p.c / p.groups, kg = p.k / p.groups;
  const bool conv = p.mode == ConvMode::conv;
  for (std::int64_t g = 0; g < p.groups; ++g) {
    ConvProblem q = p;
    q.groups = 1;
    q.c = cg;
    q.k = kg;
    const HostTensor x = slice(t.x, 1, g * cg, cg, p.channels_last), y = slice(t.y, 1, g * kg, kg, p.channels_last);
    const HostTensor w = slice(t.w, 0, g * (conv ? kg : cg), conv ? kg : cg, p.channels_last);
    const HostTensor b = slice(t.bias, 0, g * kg, kg, false);
    const auto part = ref::conv_naive(q, {&x, &w, &y, &b});
    // Output channel dim and offset of this group: y/x are sliced on dim 1, w on dim 0.
    const std::size_t dim = p.dir == ConvDir::bwd_weights ? 0 : 1;
    const std::int64_t first = p.dir == ConvDir::fwd ? g * kg : p.dir == ConvDir::bwd_data ? g * cg : g * (conv ? kg : cg);
    for_each_index(part.desc.dims, [&](const Dims& i) {
      Dims j = i;
      j[dim] += first;
      const double tol = kSameTermsRel * abs_sum_at(full, j);
      RC_ASSERT(std::fabs(value_at(part, i) - value_at(full, j)) <= tol);
      RC_ASSERT(std::fabs(abs_sum_at(part, i) - abs_sum_at(full, j)) <= tol);
    });
  }
}

// Changing the layout (NCHW <-> NHWC) changes only where values live: logically equal results,
// bitwise, since both implementations sum in logical order.
RC_GTEST_PROP(ReferenceConv, ChannelsLastEqualsChannelsFirst, ()) {
  ConvProblem p = *gen_small_problem();
  p.channels_last = false;
  ConvProblem q = p;
  q.channels_last = true;
  const auto t = random_tensors(p, *rc::gen::arbitrary<std::uint32_t>());
  const ConvHostTensors u{relayout(t.x, q.x_desc()), relayout(t.w, q.w_desc()), relayout(t.y, q.y_desc()), t.bias};
  for (const auto& [name, run] : oracles()) {
    const auto a = run(p, t.inputs(), nullptr), b = run(q, u.inputs(), nullptr);
    for_each_index(a.desc.dims, [&](const Dims& i) {
      RC_ASSERT(value_at(a, i) == value_at(b, i));
      RC_ASSERT(abs_sum_at(a, i) == abs_sum_at(b, i));
    });
  }
}

// Non-packed (padded) strides for the inputs and the output give the same logical values; the
// gaps of the inputs hold NaN (a read of a gap would show), the gaps of the output stay 0.
RC_GTEST_PROP(ReferenceConv, PaddedStridesEqualPacked, ()) {
  const ConvProblem p = *gen_small_problem();
  const std::int64_t gap = *rc::gen::inRange<std::int64_t>(1, 3);
  const auto t = random_tensors(p, *rc::gen::arbitrary<std::uint32_t>());
  const float nan = std::nanf("");
  const ConvHostTensors u{relayout(t.x, padded_desc(t.x.desc, gap), nan), relayout(t.w, padded_desc(t.w.desc, gap), nan),
                          relayout(t.y, padded_desc(t.y.desc, gap), nan), relayout(t.bias, padded_desc(t.bias.desc, gap), nan)};
  const TensorDesc out_desc = padded_desc(ref::conv_naive(p, t.inputs(), false).desc, gap);
  for (const auto& [name, run] : oracles()) {
    const auto a = run(p, t.inputs(), nullptr), b = run(p, u.inputs(), &out_desc);
    RC_ASSERT(b.desc == out_desc);
    RC_ASSERT(b.value.size() == static_cast<std::size_t>(out_desc.storage_elements()));
    std::set<std::int64_t> used;
    for_each_index(a.desc.dims, [&](const Dims& i) {
      used.insert(out_desc.offset(i));
      RC_ASSERT(value_at(a, i) == value_at(b, i));
      RC_ASSERT(abs_sum_at(a, i) == abs_sum_at(b, i));
    });
    for (std::size_t o = 0; o < b.value.size(); ++o)
      if (!used.count(static_cast<std::int64_t>(o))) RC_ASSERT(b.value[o] == 0.0 && b.abs_sum[o] == 0.0);
  }
}

// conv_fast sums the same terms as conv_naive (tolerance: kSameTermsRel), and its result does not
// depend on the thread count (bitwise).
RC_GTEST_PROP(ReferenceConv, FastEqualsNaive, ()) {
  const ConvProblem p = *gen_small_problem();
  const auto t = random_tensors(p, *rc::gen::arbitrary<std::uint32_t>());
  const auto a = ref::conv_naive(p, t.inputs());
  const auto b = ref::conv_fast(p, t.inputs(), true, nullptr, 3);
  const auto c = ref::conv_fast(p, t.inputs(), true, nullptr, 1);
  RC_ASSERT(a.desc == b.desc);
  RC_ASSERT(count_mismatches(a, b, kSameTermsRel) == 0);
  RC_ASSERT(b.value == c.value);
  RC_ASSERT(b.abs_sum == c.abs_sum);
  const auto d = ref::conv_fast(p, t.inputs(), false, nullptr, 2);
  RC_ASSERT(d.abs_sum.empty());
  RC_ASSERT(d.value == c.value);
}

// |value| <= abs_sum exactly: both sums see the same products in the same order, and
// |fl(s + t)| = fl(|s + t|) <= fl(a + |t|) whenever |s| <= a (rounding is monotone).
RC_GTEST_PROP(ReferenceConv, AbsSumBoundsValue, ()) {
  const ConvProblem p = *gen_small_problem();
  const auto t = random_tensors(p, *rc::gen::arbitrary<std::uint32_t>());
  for (const auto& [name, run] : oracles()) {
    const auto o = run(p, t.inputs(), nullptr);
    for (std::size_t i = 0; i < o.value.size(); ++i) RC_ASSERT(std::fabs(o.value[i]) <= o.abs_sum[i]);
  }
}

// A 1x1, stride-1, pad-0, 1-group conv is a GEMM over channels at each pixel, computed here with
// plain loops: y[n,k,p] = sum_c w[k,c] x[n,c,p], dx[n,c,p] = sum_k w[k,c] dy[n,k,p],
// dw[k,c] = sum_{n,p} dy[n,k,p] x[n,c,p]. Integer fills keep every sum exact: equality.
RC_GTEST_PROP(ReferenceConv, OneByOneConvIsGemm, ()) {
  ConvProblem p = *gen_small_problem();
  p.mode = ConvMode::conv;
  p.groups = 1;
  p.bias = false;
  p.filter = p.stride = p.dilation = Dims(p.in.size(), 1);
  p.pad = p.out_pad = Dims(p.in.size(), 0);
  const auto t = random_tensors(p, *rc::gen::arbitrary<std::uint32_t>(), true);
  std::int64_t pixels = 1;
  for (auto v : p.in) pixels *= v;
  // (n, channel, flat pixel) -> logical index of an activation; (k, c) -> logical index of w.
  auto act = [&](std::int64_t n, std::int64_t ch, std::int64_t px) {
    Dims i{n, ch};
    Dims sp(p.in.size());
    for (std::size_t a = sp.size(); a-- > 0;) {
      sp[a] = px % p.in[a];
      px /= p.in[a];
    }
    i.insert(i.end(), sp.begin(), sp.end());
    return i;
  };
  auto wid = [&](std::int64_t k, std::int64_t c) {
    Dims i{k, c};
    i.resize(p.in.size() + 2, 0);
    return i;
  };
  for (const auto& [name, run] : oracles()) {
    const auto y = run(with_dir(p, ConvDir::fwd), t.inputs(), nullptr);
    const auto dx = run(with_dir(p, ConvDir::bwd_data), t.inputs(), nullptr);
    const auto dw = run(with_dir(p, ConvDir::bwd_weights), t.inputs(), nullptr);
    for (std::int64_t n = 0; n < p.n; ++n)
      for (std::int64_t px = 0; px < pixels; ++px) {
        for (std::int64_t k = 0; k < p.k; ++k) {
          double s = 0;
          for (std::int64_t c = 0; c < p.c; ++c) s += double(t.w.at(wid(k, c))) * t.x.at(act(n, c, px));
          RC_ASSERT(value_at(y, act(n, k, px)) == s);
        }
        for (std::int64_t c = 0; c < p.c; ++c) {
          double s = 0;
          for (std::int64_t k = 0; k < p.k; ++k) s += double(t.w.at(wid(k, c))) * t.y.at(act(n, k, px));
          RC_ASSERT(value_at(dx, act(n, c, px)) == s);
        }
      }
    for (std::int64_t k = 0; k < p.k; ++k)
      for (std::int64_t c = 0; c < p.c; ++c) {
        double s = 0;
        for (std::int64_t n = 0; n < p.n; ++n)
          for (std::int64_t px = 0; px < pixels; ++px) s += double(t.y.at(act(n, k, px))) * t.x.at(act(n, c, px));
        RC_ASSERT(value_at(dw, wid(k, c)) == s);
      }
  }
}
