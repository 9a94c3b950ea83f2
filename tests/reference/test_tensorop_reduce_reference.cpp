// Tensor-op and reduction references: hand cases; broadcasting equals the op on an explicitly
// expanded B; results do not depend on the layout; reductions compose over dims, report the
// first chosen element, and follow the NaN modes.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>

#include "reference/reduce.hpp"
#include "reference/tensorop.hpp"

namespace hiprim::ref {
namespace {

std::vector<double> logical(const OpExpected& e, const TensorDesc& d) {
  std::vector<double> v;
  for_each_index(d.dims, [&](const Dims& idx) { v.push_back(e.value[static_cast<std::size_t>(d.offset(idx))]); });
  return v;
}

HostTensor random_tensor(const TensorDesc& d, int range) {
  HostTensor t(d);
  for_each_index(d.dims, [&](const Dims& idx) { t.at(idx) = static_cast<float>(*rc::gen::inRange(-range, range + 1)); });
  return t;
}

// The same logical values in another layout.
HostTensor relayout(const HostTensor& t, bool channels_last) {
  HostTensor r(TensorDesc::packed(t.desc.dtype, t.desc.dims, channels_last));
  for_each_index(t.desc.dims, [&](const Dims& i) { r.at(i) = t.at(i); });
  return r;
}

std::pair<Dims, bool> gen_dims(int max_size) {
  const int rank = *rc::gen::inRange(1, 6);
  Dims d;
  for (int i = 0; i < rank; ++i) d.push_back(*rc::gen::inRange(1, max_size + 1));
  return {d, (rank == 4 || rank == 5) && *rc::gen::arbitrary<bool>()};
}

TEST(TensorOpReference, HandCases) {
  TensorOpProblem p = parse_tensorop_problem("tensorop add fp32 a2x2 b1x2 alpha1=1 alpha2=2 beta=0.5");
  HostTensor a(p.a_desc()), b(p.b_desc()), c(p.c_desc());
  a.data = {1, 2, 3, 4};
  b.data = {10, 20};
  c.data = {100, 100, 100, 100};
  EXPECT_EQ(logical(tensorop_forward(p, a, b, &c)[0], p.c_desc()), (std::vector<double>{71, 92, 73, 94}));
  p.op = TensorOpKind::min;
  p.beta = 0;
  p.alpha2 = -1;
  EXPECT_EQ(logical(tensorop_forward(p, a, b, nullptr)[0], p.c_desc()), (std::vector<double>{-10, -20, -10, -20}));
  p.op = TensorOpKind::mul;
  p.alpha1 = 0.1;  // used as fp32(0.1), as the device does
  const double a1 = static_cast<float>(0.1);
  EXPECT_EQ(logical(tensorop_forward(p, a, b, nullptr)[0], p.c_desc())[3], a1 * 4 * -20);
}

// B broadcast along its size-1 dims equals the op on B repeated to A's dims (index i % b[d]).
RC_GTEST_PROP(TensorOpReference, BroadcastEqualsExpandedB, ()) {
  TensorOpProblem p;
  p.op = *rc::gen::element(TensorOpKind::add, TensorOpKind::mul, TensorOpKind::min, TensorOpKind::max);
  std::tie(p.a, p.channels_last) = gen_dims(4);
  p.b = p.a;
  for (auto& v : p.b)
    if (*rc::gen::arbitrary<bool>()) v = 1;
  p.alpha1 = *rc::gen::element(1.0, -2.0, 0.5);
  p.alpha2 = *rc::gen::element(1.0, 3.0, -0.25);
  p.beta = *rc::gen::element(0.0, 1.0, -2.0);
  const HostTensor a = random_tensor(p.a_desc(), 5), b = random_tensor(p.b_desc(), 5), c = random_tensor(p.c_desc(), 5);
  TensorOpProblem full = p;
  full.b = p.a;
  HostTensor bf(full.b_desc());
  for_each_index(p.a, [&](const Dims& i) {
    Dims j = i;
    for (std::size_t d = 0; d < j.size(); ++d) j[d] = i[d] % p.b[d];
    bf.at(i) = b.at(j);
  });
  const auto got = tensorop_forward(p, a, b, &c)[0], want = tensorop_forward(full, a, bf, &c)[0];
  RC_ASSERT(logical(got, p.c_desc()) == logical(want, full.c_desc()));
  // Same logical result in the other layout.
  if (p.rank() == 4 || p.rank() == 5) {
    TensorOpProblem q = p;
    q.channels_last = !p.channels_last;
    const HostTensor c2 = relayout(c, q.channels_last);
    const auto other = tensorop_forward(q, relayout(a, q.channels_last), relayout(b, q.channels_last), &c2)[0];
    RC_ASSERT(logical(other, q.c_desc()) == logical(got, p.c_desc()));
  }
}

ReduceProblem gen_reduce(std::initializer_list<ReduceOp> ops) {
  ReduceProblem p;
  p.op = *rc::gen::elementOf(std::vector<ReduceOp>(ops));
  std::tie(p.dims, p.channels_last) = gen_dims(5);
  p.over.clear();
  for (int i = 0; i < p.rank(); ++i)
    if (*rc::gen::arbitrary<bool>()) p.over.push_back(i);
  if (p.over.empty()) p.over.push_back(*rc::gen::inRange(0, p.rank()));
  p.propagate_nan = *rc::gen::arbitrary<bool>();
  p.indices = reduce_op_selects(p.op);
  return p;
}

TEST(ReduceReference, HandCases) {
  ReduceProblem p = parse_reduce_problem("reduce add fp32 dims2x3 over1");
  HostTensor x(p.x_desc());
  x.data = {1, -2, 3, 4, 5, -6};
  EXPECT_EQ(logical(reduce_forward(p, x)[0], p.y_desc()), (std::vector<double>{2, 3}));
  p.op = ReduceOp::norm1;
  EXPECT_EQ(logical(reduce_forward(p, x)[0], p.y_desc()), (std::vector<double>{6, 15}));
  p.op = ReduceOp::norm2;
  EXPECT_DOUBLE_EQ(logical(reduce_forward(p, x)[0], p.y_desc())[1], std::sqrt(16 + 25 + 36.0));
  p.op = ReduceOp::mul;
  EXPECT_EQ(logical(reduce_forward(p, x)[0], p.y_desc()), (std::vector<double>{-6, -120}));
  p.op = ReduceOp::avg;
  p.over = {0};
  EXPECT_EQ(logical(reduce_forward(p, x)[0], p.y_desc()), (std::vector<double>{2.5, 1.5, -1.5}));
  p.op = ReduceOp::amax;
  p.over = {0, 1};
  p.indices = true;
  const auto r = reduce_forward(p, x);
  EXPECT_EQ(r[0].value[0], 6);  // |-6|
  EXPECT_EQ(r[1].value[0], 5);
}

TEST(ReduceReference, NanModes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ReduceProblem p = parse_reduce_problem("reduce max fp32 dims3x3 over1 nan_propagate indices");
  HostTensor x(p.x_desc());
  x.data = {1, static_cast<float>(nan), 3, static_cast<float>(nan), static_cast<float>(nan), 2, 5, 5, 4};
  auto r = reduce_forward(p, x);
  EXPECT_TRUE(std::isnan(r[0].value[0]));
  EXPECT_EQ(r[1].value[0], 1);  // the first NaN
  EXPECT_TRUE(std::isnan(r[0].value[1]));
  EXPECT_EQ(r[1].value[1], 0);
  EXPECT_EQ(r[0].value[2], 5);
  EXPECT_EQ(r[1].value[2], 0);  // tie: the first 5
  p.propagate_nan = false;
  r = reduce_forward(p, x);
  EXPECT_EQ(r[0].value[0], 3);
  EXPECT_EQ(r[1].value[0], 2);
  EXPECT_EQ(r[0].value[1], 2);
  EXPECT_EQ(r[1].value[1], 2);
}

// Reducing over A then over B (the kept size-1 dims) equals reducing over A u B at once.
RC_GTEST_PROP(ReduceReference, SumsComposeOverDims, ()) {
  ReduceProblem p = gen_reduce({ReduceOp::add, ReduceOp::norm1, ReduceOp::max, ReduceOp::min});
  if (p.rank() == 1) p.dims.push_back(*rc::gen::inRange(1, 6)), p.channels_last = false;
  if (p.over.size() < 2) p.over = {0, p.rank() - 1};
  p.indices = false;
  const HostTensor x = random_tensor(p.x_desc(), 6);
  const auto all = reduce_forward(p, x)[0];
  ReduceProblem first = p, second = p;
  first.over = Dims(p.over.begin(), p.over.begin() + 1);
  second.over = Dims(p.over.begin() + 1, p.over.end());
  second.dims = first.out_dims();
  if (p.op == ReduceOp::norm1) second.op = ReduceOp::add;  // |.| already applied
  const auto partial = reduce_forward(first, x)[0];
  HostTensor mid(first.y_desc());
  for (std::size_t i = 0; i < mid.data.size(); ++i) mid.data[i] = static_cast<float>(partial.value[i]);
  const auto two_step = reduce_forward(second, mid)[0];
  RC_ASSERT(logical(two_step, second.y_desc()) == logical(all, p.y_desc()));  // integer data: exact
}

// y is the slice element at idx (|.| for amax); no element before it is as good, none after it better.
RC_GTEST_PROP(ReduceReference, IndicesNameTheFirstChosenElement, ()) {
  ReduceProblem p = gen_reduce({ReduceOp::min, ReduceOp::max, ReduceOp::amax});
  HostTensor x = random_tensor(p.x_desc(), 3);
  for (auto& v : x.data)  // some NaNs
    if (*rc::gen::inRange(0, 8) == 0) v = std::numeric_limits<float>::quiet_NaN();
  const auto r = reduce_forward(p, x);
  Dims slice;
  for (auto d : p.over) slice.push_back(p.dims[static_cast<std::size_t>(d)]);
  auto key = [&](double v) { return p.op == ReduceOp::amax ? std::fabs(v) : p.op == ReduceOp::min ? -v : v; };
  for_each_index(p.out_dims(), [&](const Dims& o) {
    const auto at = static_cast<std::size_t>(p.y_desc().offset(o));
    const double y = r[0].value[at];
    const auto chosen = static_cast<std::int64_t>(r[1].value[at]);
    std::int64_t pos = 0;
    bool any_nan = false, all_nan = true;
    for_each_index(slice, [&](const Dims& s) {
      Dims xi = o;
      for (std::size_t k = 0; k < s.size(); ++k) xi[static_cast<std::size_t>(p.over[k])] = s[k];
      const double v = x.at(xi);
      any_nan = any_nan || std::isnan(v);
      all_nan = all_nan && std::isnan(v);
      if (pos == chosen) {
        if (std::isnan(y)) RC_ASSERT(std::isnan(v));
        else RC_ASSERT(y == (p.op == ReduceOp::amax ? std::fabs(v) : v));
      }
      if (!std::isnan(v) && !std::isnan(y)) {
        if (pos < chosen) RC_ASSERT(key(v) < key(y));
        else RC_ASSERT(key(v) <= key(y));
      }
      ++pos;
    });
    RC_ASSERT(std::isnan(y) == (p.propagate_nan ? any_nan : all_nan));
  });
}

TEST(ReduceReference, BoundsFollowThePolicy) {
  ReduceProblem p = parse_reduce_problem("reduce add fp16 dims4x64 over1");
  HostTensor x(p.x_desc());
  for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] = (i % 7) - 3.0f;
  auto r = reduce_forward(p, x)[0];
  for (std::size_t i = 0; i < r.value.size(); ++i) EXPECT_GT(r.bound[i], 0x1p-11 * std::fabs(r.value[i]));
  p.op = ReduceOp::max;
  r = reduce_forward(p, x)[0];
  for (double b : r.bound) EXPECT_EQ(b, 0.0);  // a selection is exact
}

}  // namespace
}  // namespace hiprim::ref
