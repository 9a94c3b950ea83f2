// Host tests of the GPU side's index math (no device needed): gpu/conv/conv_index.hpp,
// gpu/conv/conv_geom.hpp and the naive gathers of gpu/conv/naive_gather.hpp, against brute force
// and against the CPU reference.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "gpu/conv/conv_geom.hpp"
#include "gpu/conv/conv_index.hpp"
#include "gpu/conv/naive_gather.hpp"
#include "tests/gpu/conv_exact_cases.hpp"

using namespace hiprim;
using namespace hiprim::gpu;

namespace {

// One spatial axis: stride, pad, dilation, filter taps.
struct Axis {
  long long stride, pad, dil, taps;
};
Axis pick_axis() {
  return {*rc::gen::inRange(1, 5), *rc::gen::inRange(0, 5), *rc::gen::inRange(1, 4), *rc::gen::inRange(1, 6)};
}

// A problem's logical index [a, b, spatial...] as the relation's 5 coordinates (2D: depth 0).
Coord5 coord5_of(const ConvProblem& p, const Dims& idx) {
  Coord5 c{};
  c.i[0] = idx[0];
  c.i[1] = idx[1];
  const int skip = 3 - p.rank();
  for (int k = 0; k < 3; ++k) c.i[2 + k] = k < skip ? 0 : idx[2 + k - skip];
  return c;
}

}  // namespace

RC_GTEST_PROP(ConvIndex, FloorDivModCeilDivMatchRealArithmetic, ()) {
  const long long a = *rc::gen::inRange(-1000, 1001), b = *rc::gen::inRange(1, 40);
  RC_ASSERT(floor_div(a, b) == static_cast<long long>(std::floor(double(a) / double(b))));
  RC_ASSERT(ceil_div(a, b) == static_cast<long long>(std::ceil(double(a) / double(b))));
  const long long m = floor_mod(a, b);
  RC_ASSERT(m >= 0);
  RC_ASSERT(m < b);
  RC_ASSERT(floor_div(a, b) * b + m == a);
}

RC_GTEST_PROP(ConvIndex, OutPosIsTheUniqueInverseOfInPos, ()) {
  const Axis ax = pick_axis();
  const long long out_size = *rc::gen::inRange(1, 12);
  for (long long i = -ax.pad - 3; i < out_size * ax.stride + ax.taps * ax.dil + 3; ++i)
    for (long long f = 0; f < ax.taps; ++f) {
      long long brute = -1;
      for (long long o = 0; o < out_size; ++o)
        if (in_pos(o, f, ax.stride, ax.pad, ax.dil) == i) brute = o;
      RC_ASSERT(out_pos(i, f, ax.stride, ax.pad, ax.dil, out_size) == brute);
    }
}

RC_GTEST_PROP(ConvIndex, InRangeOfOutTileIsTightAndStagedInIndexAddressesIt, ()) {
  const Axis ax = pick_axis();
  const long long tile = *rc::gen::inRange(1, 20), o_lo = *rc::gen::inRange(-5, 30);
  const IndexRange r = in_range_of_out_tile(o_lo, tile, ax.taps, ax.stride, ax.pad, ax.dil);
  RC_ASSERT(r.hi - r.lo == in_span(tile, ax.taps, ax.stride, ax.dil));
  long long lo = in_pos(o_lo, 0, ax.stride, ax.pad, ax.dil), hi = lo;
  for (long long j = 0; j < tile; ++j)
    for (long long f = 0; f < ax.taps; ++f) {
      const long long i = in_pos(o_lo + j, f, ax.stride, ax.pad, ax.dil);
      const long long staged = staged_in_index(j, f, ax.stride, ax.dil);
      RC_ASSERT(staged >= 0);
      RC_ASSERT(staged < r.hi - r.lo);
      RC_ASSERT(r.lo + staged == i);
      lo = std::min(lo, i);
      hi = std::max(hi, i + 1);
    }
  RC_ASSERT(lo == r.lo);
  RC_ASSERT(hi == r.hi);
}

RC_GTEST_PROP(ConvIndex, OutRangeOfInTileCoversEveryReaderWithinTheBound, ()) {
  const Axis ax = pick_axis();
  const long long tile = *rc::gen::inRange(1, 20), i_lo = *rc::gen::inRange(-10, 40);
  const IndexRange r = out_range_of_in_tile(i_lo, tile, ax.taps, ax.stride, ax.pad, ax.dil);
  RC_ASSERT(r.hi - r.lo <= out_span_bound(tile, ax.taps, ax.stride, ax.dil));
  for (long long o = -60; o < 120; ++o)
    for (long long f = 0; f < ax.taps; ++f) {
      const long long i = in_pos(o, f, ax.stride, ax.pad, ax.dil);
      if (i >= i_lo && i < i_lo + tile) {
        RC_ASSERT(o >= r.lo);
        RC_ASSERT(o < r.hi);
      }
    }
}

RC_GTEST_PROP(ConvIndex, StagedOutIndexFindsTheReaderInsideTheStagedSpan, ()) {
  const Axis ax = pick_axis();
  const long long tile = *rc::gen::inRange(1, 20), i_lo = *rc::gen::inRange(-10, 40);
  const long long o_lo = out_range_of_in_tile(i_lo, tile, ax.taps, ax.stride, ax.pad, ax.dil).lo;
  const long long span = out_span_bound(tile, ax.taps, ax.stride, ax.dil);
  for (long long i = i_lo; i < i_lo + tile; ++i)
    for (long long f = 0; f < ax.taps; ++f) {
      const long long idx = staged_out_index(i, f, ax.stride, ax.pad, ax.dil, o_lo);
      const bool reachable = floor_mod(i + ax.pad - f * ax.dil, ax.stride) == 0;
      if (!reachable) {
        RC_ASSERT(idx == -1);
        continue;
      }
      RC_ASSERT(idx >= 0);
      RC_ASSERT(idx < span);
      RC_ASSERT(in_pos(o_lo + idx, f, ax.stride, ax.pad, ax.dil) == i);
    }
}

RC_GTEST_PROP(ConvIndex, Unravel5RoundTrips, ()) {
  long long d[5];
  for (auto& v : d) v = *rc::gen::inRange(1, 7);
  const long long total = d[0] * d[1] * d[2] * d[3] * d[4];
  const long long idx = *rc::gen::inRange(0LL, total);
  const Coord5 c = unravel5(idx, d[0], d[1], d[2], d[3], d[4]);
  long long back = 0;
  for (int k = 0; k < 5; ++k) {
    RC_ASSERT(c.i[k] >= 0);
    RC_ASSERT(c.i[k] < d[k]);
    back = back * d[k] + c.i[k];
  }
  RC_ASSERT(back == idx);
}

TEST(ConvIndex, DirectionsMapOntoTheRelationsOperations) {
  ConvProblem p;
  const std::pair<ConvDir, ConvOp> conv[] = {{ConvDir::fwd, ConvOp::out_from_in},
                                             {ConvDir::bwd_data, ConvOp::in_from_out},
                                             {ConvDir::bwd_weights, ConvOp::w_from_in_out}};
  const std::pair<ConvDir, ConvOp> trans[] = {{ConvDir::fwd, ConvOp::in_from_out},
                                              {ConvDir::bwd_data, ConvOp::out_from_in},
                                              {ConvDir::bwd_weights, ConvOp::w_from_in_out}};
  for (auto [d, op] : conv) {
    p.dir = d;
    p.mode = ConvMode::conv;
    EXPECT_EQ(conv_op(p), op) << conv_dir_name(d);
  }
  for (auto [d, op] : trans) {
    p.dir = d;
    p.mode = ConvMode::trans;
    EXPECT_EQ(conv_op(p), op) << "trans " << conv_dir_name(d);
  }
}

// ConvGeom's sizes and offsets are those of the problem's descriptors in the relation's roles.
RC_GTEST_PROP(ConvGeom, OffsetsAndSizesMatchTheProblemsDescriptors, ()) {
  const ConvProblem p = gputest::pick_small_problem(true);
  RC_PRE(p.valid());
  const ConvGeom g = conv_geom(p);
  const bool conv = p.mode == ConvMode::conv;
  const TensorDesc in = conv ? p.x_desc() : p.y_desc(), out = conv ? p.y_desc() : p.x_desc(), w = p.w_desc();
  RC_ASSERT(g.in_elements() == in.elements());
  RC_ASSERT(g.out_elements() == out.elements());
  RC_ASSERT(g.w_elements() == w.elements());
  for_each_index(in.dims, [&](const Dims& idx) {
    const Coord5 c = coord5_of(p, idx);
    RC_ASSERT(g.in_offset(c.i[0], c.i[1], c.i[2], c.i[3], c.i[4]) == in.offset(idx));
  });
  for_each_index(out.dims, [&](const Dims& idx) {
    const Coord5 c = coord5_of(p, idx);
    RC_ASSERT(g.out_offset(c.i[0], c.i[1], c.i[2], c.i[3], c.i[4]) == out.offset(idx));
  });
  for_each_index(w.dims, [&](const Dims& idx) {
    const Coord5 c = coord5_of(p, idx);
    RC_ASSERT(g.w_offset(c.i[0], c.i[1], c.i[2], c.i[3], c.i[4]) == w.offset(idx));
  });
}

// The naive kernels' gathers, run on the host over fp32 copies of exact-tier integer data, give the
// reference's exact result for every element (bias added to y's channel as the kernels do).
RC_GTEST_PROP(NaiveGather, MatchesTheReferenceExactly, ()) {
  const ConvProblem p = gputest::pick_small_problem(true);
  RC_PRE(p.valid());
  gputest::ConvCase c = gputest::make_case(p, *rc::gen::inRange(0u, 1000u));
  const std::vector<float> expected = gputest::expected_output(p, c);
  const ConvGeom g = conv_geom(p);
  const bool conv = p.mode == ConvMode::conv;
  const std::vector<float>& in = conv ? c.x.data : c.y.data;
  const std::vector<float>& out = conv ? c.y.data : c.x.data;
  auto load = [](const std::vector<float>& v) { return [&v](long long i) { return v.at(static_cast<std::size_t>(i)); }; };
  const TensorDesc out_desc = c.output(p.dir).desc;
  for_each_index(out_desc.dims, [&](const Dims& idx) {
    const Coord5 e = coord5_of(p, idx);
    float v = 0;
    switch (conv_op(p)) {
      case ConvOp::out_from_in: v = gather_out_from_in(g, e, load(in), load(c.w.data)); break;
      case ConvOp::in_from_out: v = gather_in_from_out(g, e, load(out), load(c.w.data)); break;
      case ConvOp::w_from_in_out: v = gather_w_from_in_out(g, e, load(in), load(out)); break;
    }
    if (p.bias) v += c.bias.data.at(static_cast<std::size_t>(idx[1]));
    const float want = expected.at(static_cast<std::size_t>(out_desc.offset(idx)));
    RC_ASSERT(round_to(p.dtype, v) == want);
  });
}
