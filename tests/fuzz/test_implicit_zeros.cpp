// Implicit zeros under special values: where they meet Inf/NaN (implicit_zero_kinds, checked against
// hand-derived positions), and the judge's rule that each solver gives exactly the answer its
// declaration (ConvSolver::implicit_zeros) implies. Every registered solver is run on cases that
// contain each kind of implicit zero meeting a NaN or Inf, must pass with its own declaration and
// must fail with that kind's declaration flipped: a solver that declared the wrong behaviour fails
// here (device solvers on a GPU machine; without one they are listed as skipped).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/error.hpp"
#include "fuzz/conv_implicit_zero.hpp"
#include "fuzz/conv_special.hpp"
#include "fuzz/conv_primitive.hpp"
#include "reference/conv.hpp"
#include "tests/fuzz/judge_fixture.hpp"
#include "tests/fuzz/mutant_conv.hpp"
#include "verify/conv_check.hpp"
#include "verify/host_solvers.hpp"
#include "verify/solvers.hpp"

namespace hiprim::fuzz_test {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// The kinds over the output's logical elements (NCHW order).
std::vector<int> kinds_list(const ConvProblem& p, const ref::ConvInputs& in) {
  const ref::ConvOutput out = ref::conv_naive(p, in);
  const auto m = fuzz::implicit_zero_kinds(p, in, out.desc);
  std::vector<int> v;
  for_each_index(out.desc.dims, [&](const Dims& i) { v.push_back(m[static_cast<std::size_t>(out.desc.offset(i))]); });
  return v;
}

void fill(HostTensor& t, std::vector<float> v = {}) {
  if (v.empty()) v.assign(t.data.size(), 1.0f);
  t.data = std::move(v);
}

// Winograd F(2x2, 3x3) on an 8x8 image, pad 1: tiles of 2x2 outputs read 4x4 windows from (2t - 1).
// x(3, 3) lies in the windows of tile rows and columns 1 and 2: outputs rows/columns 2..5 of every
// output channel of its group; a non-finite filter value of channel 1 reaches all of channel 1.
TEST(WinogradNonfiniteOutputs, MatchHandDerivedTiles) {
  const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c2 k3 in8x8 f3x3 pad1x1 g1");
  HostTensor x(p.x_desc()), w(p.w_desc());
  fill(x);
  fill(w);
  x.at({0, 1, 3, 3}) = kNaN;
  w.at({1, 0, 2, 0}) = kInf;
  const ref::ConvOutput out = ref::conv_naive(p, {&x, &w, nullptr, nullptr});
  const auto mask = fuzz::winograd_nonfinite_outputs(p, 2, {&x, &w, nullptr, nullptr}, out.desc);
  for_each_index(out.desc.dims, [&](const Dims& i) {
    const bool tile = i[2] >= 2 && i[2] <= 5 && i[3] >= 2 && i[3] <= 5;
    EXPECT_EQ(mask[static_cast<std::size_t>(out.desc.offset(i))], (tile || i[1] == 1) ? 1 : 0) << i[1] << " " << i[2] << " " << i[3];
  });
  // F(4x4): tiles of 4x4 outputs read 6x6 windows from (4t - 1): x(3, 3) is in tile 0 (rows -1..4) and
  // tile 1 (rows 3..8): every output; with groups the other group's channels stay clean.
  const ConvProblem q = parse_conv_problem("conv fwd fp32 nhwc n2 c2 k2 in8x8 f3x3 pad1x1 g2");
  HostTensor xq(q.x_desc()), wq(q.w_desc());
  fill(xq);
  fill(wq);
  xq.at({1, 0, 7, 0}) = kInf;  // image 1, group 0: rows 7 -> tile 1 only (rows 3..8), column 0 -> tile 0 only (-1..4)
  const ref::ConvOutput oq = ref::conv_naive(q, {&xq, &wq, nullptr, nullptr});
  const auto mq = fuzz::winograd_nonfinite_outputs(q, 4, {&xq, &wq, nullptr, nullptr}, oq.desc);
  for_each_index(oq.desc.dims, [&](const Dims& i) {
    const bool hit = i[0] == 1 && i[1] == 0 && i[2] >= 4 && i[3] <= 3;
    EXPECT_EQ(mq[static_cast<std::size_t>(oq.desc.offset(i))], hit ? 1 : 0) << i[0] << " " << i[1] << " " << i[2] << " " << i[3];
  });
  // bwd-data as its fwd equivalent: dy (8x8, pad 1 -> pad' 1) spreads like x above; a non-finite w[k][c] reaches dx channel c.
  const ConvProblem b = parse_conv_problem("conv bwd-data fp32 nchw n1 c3 k2 in8x8 f3x3 pad1x1");
  HostTensor dy(b.y_desc()), wb(b.w_desc());
  fill(dy);
  fill(wb);
  dy.at({0, 1, 3, 3}) = kNaN;
  wb.at({0, 2, 1, 1}) = kInf;  // output channel 0's filter for input channel 2: all of dx channel 2
  const ref::ConvOutput ob = ref::conv_naive(b, {nullptr, &wb, &dy, nullptr});
  const auto mb = fuzz::winograd_nonfinite_outputs(b, 2, {nullptr, &wb, &dy, nullptr}, ob.desc);
  for_each_index(ob.desc.dims, [&](const Dims& i) {
    const bool tile = i[2] >= 2 && i[2] <= 5 && i[3] >= 2 && i[3] <= 5;
    EXPECT_EQ(mb[static_cast<std::size_t>(ob.desc.offset(i))], (tile || i[1] == 2) ? 1 : 0) << i[1] << " " << i[2] << " " << i[3];
  });
  // bwd-weights (dw = G^T [sum_t (A dy_t A^T) . (B^T x_t B)] G), groups 2: x(3, 3) of input channel 1 (group 0)
  // reaches all of dw[k][1] for group 0's k = 0, 1; dy of output channel 3 (group 1) all of dw[3][.].
  const ConvProblem g = parse_conv_problem("conv bwd-weights fp32 nchw n1 c4 k4 in8x8 f3x3 pad1x1 g2");
  HostTensor xg(g.x_desc()), dyg(g.y_desc());
  fill(xg);
  fill(dyg);
  xg.at({0, 1, 3, 3}) = kNaN;
  dyg.at({0, 3, 7, 0}) = kInf;
  const ref::ConvOutput og = ref::conv_naive(g, {&xg, nullptr, &dyg, nullptr});
  const auto mg = fuzz::winograd_nonfinite_outputs(g, 2, {&xg, nullptr, &dyg, nullptr}, og.desc);
  for_each_index(og.desc.dims, [&](const Dims& i) {  // i = [k][c in group][r][s]
    const bool hit = (i[0] <= 1 && i[1] == 1) || i[0] == 3;
    EXPECT_EQ(mg[static_cast<std::size_t>(og.desc.offset(i))], hit ? 1 : 0) << i[0] << " " << i[1] << " " << i[2] << " " << i[3];
  });
  EXPECT_THROW(fuzz::winograd_nonfinite_outputs(parse_conv_problem("conv fwd fp32 ncdhw n1 c2 k3 in4x8x8 f3x3x3 pad1x1x1"), 2,
                                                {&x, &w, nullptr, nullptr}, out.desc),
               InputError);
}

TEST(ImplicitZeroKinds, MatchHandDerivedPositions) {
  const int P = fuzz::kZeroPadding, B = fuzz::kZeroBorderTap, H = fuzz::kZeroStrideHole;
  {  // fwd, 1-D along W: in 3, f 3, pad 1 -> out 3; output o reads x[o-1+f]: o=0 pads at f=0, o=2 at f=2.
    const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c1 k1 in1x3 f1x3 pad0x1");
    HostTensor x(p.x_desc()), w(p.w_desc());
    fill(x);
    fill(w, {kInf, 1, 1});  // only tap 0 is infinite: it meets padding at o = 0 only
    EXPECT_EQ(kinds_list(p, {&x, &w, nullptr, nullptr}), (std::vector<int>{P, 0, 0}));
    fill(w, {1, 1, kInf});
    EXPECT_EQ(kinds_list(p, {&x, &w, nullptr, nullptr}), (std::vector<int>{0, 0, P}));
  }
  {  // bwd-data, 1-D, in 5, f 3, pad 1, stride 2 -> out 3. dx[i] gets tap f from dy[o] with 2o = i+1-f.
    // Tap 1 (the only Inf) needs 2o = i: even i reach it (o = 0, 1, 2), odd i never do (a stride
    // hole), so exactly dx[1] and dx[3] are flagged, as holes.
    const ConvProblem p = parse_conv_problem("conv bwd-data fp32 nchw n1 c1 k1 in1x5 f1x3 pad0x1 str1x2");
    HostTensor y(p.y_desc()), w(p.w_desc());
    fill(y);
    fill(w, {1, kInf, 1});
    EXPECT_EQ(kinds_list(p, {nullptr, &w, &y, nullptr}), (std::vector<int>{0, H, 0, H, 0}));
    // Tap 0 needs 2o = i+1: i = 1 -> o = 1, i = 3 -> o = 2 are reached; even i are holes.
    fill(w, {kInf, 1, 1});
    EXPECT_EQ(kinds_list(p, {nullptr, &w, &y, nullptr}), (std::vector<int>{H, 0, H, 0, H}));
  }
  {  // bwd-data, stride 1: in 3, f 3, pad 1 -> out 3; dx[i] gets tap f from dy[i+1-f]. Tap 0 at i = 2
    // needs dy[3] (past the end: a border tap), tap 2 at i = 0 needs dy[-1] (before the start).
    const ConvProblem p = parse_conv_problem("conv bwd-data fp32 nchw n1 c1 k1 in1x3 f1x3 pad0x1");
    HostTensor y(p.y_desc()), w(p.w_desc());
    fill(y);
    fill(w, {kInf, 1, 1});
    EXPECT_EQ(kinds_list(p, {nullptr, &w, &y, nullptr}), (std::vector<int>{0, 0, B}));
    fill(w, {1, 1, kNaN});
    EXPECT_EQ(kinds_list(p, {nullptr, &w, &y, nullptr}), (std::vector<int>{B, 0, 0}));
  }
  {  // bwd-data 2D: H in 1, f 3, pad 1 (out 1): tap r = 0 needs dy row 1 (exact, past the end);
    // W as in the second case. Inf at w[0,0,0,1]: even dx columns divide exactly on both axes but
    // miss on H (border), odd ones are inexact on W (hole).
    const ConvProblem p = parse_conv_problem("conv bwd-data fp32 nchw n1 c1 k1 in1x5 f3x3 pad1x1 str1x2");
    HostTensor y(p.y_desc()), w(p.w_desc());
    fill(y);
    fill(w);
    w.at({0, 0, 0, 1}) = kInf;
    EXPECT_EQ(kinds_list(p, {nullptr, &w, &y, nullptr}), (std::vector<int>{B, H, B, H, B}));
  }
  {  // bwd-weights: dw[f] = sum_o dy[o] * x[o-1+f]; dy[0] infinite meets padding only through tap 0.
    const ConvProblem p = parse_conv_problem("conv bwd-weights fp32 nchw n1 c1 k1 in1x3 f1x3 pad0x1");
    HostTensor x(p.x_desc()), y(p.y_desc());
    fill(x);
    fill(y, {kInf, 1, 1});
    EXPECT_EQ(kinds_list(p, {&x, nullptr, &y, nullptr}), (std::vector<int>{P, 0, 0}));
  }
  {  // No padding, stride 1: no implicit zeros at all in fwd, whatever the weights.
    const ConvProblem p = parse_conv_problem("conv fwd fp32 nchw n1 c1 k1 in1x4 f1x2");
    HostTensor x(p.x_desc()), w(p.w_desc());
    fill(x);
    fill(w, {kInf, kNaN});
    EXPECT_EQ(kinds_list(p, {&x, &w, nullptr, nullptr}), (std::vector<int>{0, 0, 0}));
  }
}

verify::Status judge(const std::vector<float>& got, const ref::ConvOutput& e) {
  verify::Tolerance t;
  t.tier = verify::FillTier::exact;
  return fuzz::judge_special(got_of(got), e, t).status;
}

TEST(ImplicitZeros, TheExpectedAnswerIsExactlyTheDeclaredOne) {
  // Reference [0, NaN, 3, 2]; element 0 has a padding zero meeting a NaN weight, element 2 a border tap.
  const ref::ConvOutput ref = expected_of({0.0, kNaN, 3.0, 2.0});
  const std::vector<std::uint8_t> kinds{fuzz::kZeroPadding, 0, fuzz::kZeroBorderTap, 0};
  const ImplicitZeros skips = ImplicitZeros::all(ZeroTerm::skipped), multiplies = ImplicitZeros::all(ZeroTerm::multiplied);
  const ImplicitZeros pad_only{.padding = ZeroTerm::multiplied, .border_taps = ZeroTerm::skipped, .stride_holes = ZeroTerm::skipped};
  const auto s = fuzz::solver_expected(ref, kinds, skips), m = fuzz::solver_expected(ref, kinds, multiplies),
             pd = fuzz::solver_expected(ref, kinds, pad_only);
  EXPECT_EQ(judge({0, kNaN, 3, 2}, s), verify::Status::passed);
  EXPECT_EQ(judge({kNaN, kNaN, 3, 2}, s), verify::Status::failed);  // NaN where it declared skipping
  EXPECT_EQ(judge({kNaN, kNaN, kNaN, 2}, m), verify::Status::passed);
  EXPECT_EQ(judge({0, kNaN, kNaN, 2}, m), verify::Status::failed);  // the reference's value where it declared multiplying
  EXPECT_EQ(judge({kNaN, kNaN, 3, 2}, m), verify::Status::failed);
  EXPECT_EQ(judge({kNaN, kNaN, 3, 2}, pd), verify::Status::passed);
  EXPECT_EQ(judge({kNaN, kNaN, kNaN, 2}, pd), verify::Status::failed);
  EXPECT_EQ(judge({kInf, kNaN, 3, 2}, pd), verify::Status::failed);
  EXPECT_EQ(judge({kNaN, kNaN, 3, kNaN}, pd), verify::Status::failed);  // NaN away from any implicit zero
  EXPECT_EQ(fuzz::multiplied_kinds(pad_only), fuzz::kZeroPadding);
  EXPECT_EQ(fuzz::undeclared_kind(ImplicitZeros{.padding = ZeroTerm::skipped}, fuzz::kZeroPadding), std::nullopt);
  EXPECT_EQ(fuzz::undeclared_kind(ImplicitZeros{.padding = ZeroTerm::skipped}, fuzz::kZeroStrideHole), "stride_holes");
  EXPECT_THROW(fuzz::solver_expected(ref, {0, 0}, skips), InputError);
}

// inner, declaring `z` instead of its own declaration (or with the kinds of `flip` swapped).
class Redeclared final : public ConvSolver {
 public:
  Redeclared(std::shared_ptr<const ConvSolver> inner, std::uint8_t flip, std::optional<ImplicitZeros> z = std::nullopt)
      : inner_(std::move(inner)), flip_(flip), z_(z) {}
  std::string name() const override { return inner_->name(); }
  Backend backend() const override { return inner_->backend(); }
  std::string summary() const override { return "redeclared " + inner_->name(); }
  bool deterministic() const override { return inner_->deterministic(); }
  double accumulation_error_factor() const override { return inner_->accumulation_error_factor(); }
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override {
    if (z_) return *z_;
    ImplicitZeros z = inner_->implicit_zeros(p);
    auto swap = [](ZeroTerm& t) { t = t == ZeroTerm::multiplied ? ZeroTerm::skipped : ZeroTerm::multiplied; };
    if (flip_ & fuzz::kZeroPadding) swap(z.padding);
    if (flip_ & fuzz::kZeroBorderTap) swap(z.border_taps);
    if (flip_ & fuzz::kZeroStrideHole) swap(z.stride_holes);
    return z;
  }
  Applicability applicable(const ConvProblem& p) const override { return inner_->applicable(p); }
  std::size_t workspace_bytes(const ConvProblem& p) const override { return inner_->workspace_bytes(p); }
 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override { inner_->run(p, t); }

 private:
  std::shared_ptr<const ConvSolver> inner_;
  std::uint8_t flip_;
  std::optional<ImplicitZeros> z_;
};

fuzz::ConvCase nan_case(const std::string& problem, std::uint64_t seed) {
  return {parse_conv_problem(problem), {seed, std::nullopt, fuzz::Special::nan}};
}

TEST(ImplicitZeros, OnePaddedPixelDistinguishesSkippingFromMultiplying) {
  // One input pixel, 1x1 filter, width padding 1: y = [w*pad, w*x, w*pad]. The reference sums real
  // terms only: [0, w*x, 0]; a solver multiplying the padding gets w*0. Seed 1 puts the NaN in w:
  // the direct conv (skips) must give [0, NaN, 0], the fast reference (im2col zeros, multiplies) NaN everywhere.
  const fuzz::ConvCase c = nan_case("conv fwd fp32 nchw n1 c1 k1 in1x1 f1x1 pad0x1 str1x1 dil1x1 g1", 1);
  const auto direct = make_host_mutant(Bug::none);
  const auto fast = verify::make_fast_reference_solver();
  const auto d = fuzz::run_conv_case(c, *direct), f = fuzz::run_conv_case(c, *fast);
  EXPECT_EQ(d.verdict.status, verify::Status::passed) << d.verdict.reason;
  EXPECT_EQ(f.verdict.status, verify::Status::passed) << f.verdict.reason;
  EXPECT_NE(f.verdict.reason.find("multiplies an implicit zero"), std::string::npos) << f.verdict.reason;
  // Each with the other's declaration fails.
  const auto d2 = fuzz::run_conv_case(c, Redeclared(direct, fuzz::kZeroPadding));
  const auto f2 = fuzz::run_conv_case(c, Redeclared(fast, fuzz::kZeroPadding));
  EXPECT_EQ(d2.verdict.status, verify::Status::failed) << d2.verdict.reason;
  EXPECT_EQ(f2.verdict.status, verify::Status::failed) << f2.verdict.reason;
  // A declaration that leaves the kind out is an error naming it.
  const auto u = fuzz::run_conv_case(c, Redeclared(fast, 0, ImplicitZeros{.border_taps = ZeroTerm::skipped}));
  EXPECT_EQ(u.verdict.status, verify::Status::error);
  EXPECT_NE(u.verdict.reason.find("kind padding"), std::string::npos) << u.verdict.reason;
}

// A case whose data makes one element's only implicit-zero kind `bit` meet Inf/NaN, with a reference
// value that is not NaN there: flipping that kind's declaration changes the expected answer.
std::optional<fuzz::ConvCase> discriminating_case(const ConvProblem& p, std::uint8_t bit) {
  for (fuzz::Special sp : {fuzz::Special::nan, fuzz::Special::inf})
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      const fuzz::ConvCase c{p, {seed, std::nullopt, sp}};
      const auto o = fuzz::conv_run_options(p, c.data, *verify::make_fast_reference_solver());
      const verify::PreparedCase pc(p, o);
      const ref::ConvInputs in = verify::conv_inputs(pc);
      const ref::ConvOutput& e = verify::conv_expected(pc, true);
      const auto kinds = fuzz::implicit_zero_kinds(p, in, e.desc);
      for (std::size_t i = 0; i < kinds.size(); ++i)
        if (kinds[i] == bit && !std::isnan(e.value[i])) return c;
    }
  return std::nullopt;
}

// Geometries with every kind of implicit zero in some direction: padding, border taps, stride
// holes, dilation, groups, transposed, 3D.
const char* const kGeometries[] = {
    "n1 c2 k3 in5x6 f3x3 pad1x1 str1x1",
    "n1 c2 k2 in7x7 f3x3 pad1x1 str2x2",
    "n1 c4 k2 in6x5 f3x2 pad2x1 str2x2 dil2x1 g2",
    "n1 c2 k2 in4x4 f3x3 pad1x1 str2x2 trans opad1x1",
    "n1 c2 k2 in3x4x4 f3x3x3 pad1x1x1 str2x1x2",
};

TEST(ImplicitZeros, EveryRegisteredSolverGivesExactlyItsDeclaredAnswer) {
  ConvSolverList solvers = verify::conv_solvers();
  solvers.push_back(make_host_mutant(Bug::none));  // a host direct conv that skips every kind
  std::map<std::string, std::set<int>> checked;    // solver -> kinds it was held to
  std::set<std::string> no_device;
  for (const char* geometry : kGeometries)
    for (const char* dir : {"fwd", "bwd-data", "bwd-weights"})
      for (const bool bf16_nhwc : {false, true}) {
        ConvProblem p = parse_conv_problem(std::string("conv ") + dir + " " + geometry);
        p.dtype = bf16_nhwc ? DType::bf16 : DType::fp32;  // the .mma solvers take fp16/bf16 only
        p.channels_last = bf16_nhwc;
        for (std::uint8_t bit : {fuzz::kZeroPadding, fuzz::kZeroBorderTap, fuzz::kZeroStrideHole}) {
          const auto c = discriminating_case(p, bit);
          if (!c) continue;
          for (const auto& s : solvers) {
            if (!s->applicable(p)) continue;
            const auto own = fuzz::run_conv_case(*c, *s);
            if (own.verdict.status == verify::Status::unsupported) {  // a device solver without a GPU
              no_device.insert(s->name());
              continue;
            }
            EXPECT_EQ(own.verdict.status, verify::Status::passed) << s->name() << ": " << own.repro << ": " << own.verdict.reason;
            const auto flipped = fuzz::run_conv_case(*c, Redeclared(s, bit));
            EXPECT_EQ(flipped.verdict.status, verify::Status::failed)
                << s->name() << " with kind " << int(bit) << " flipped still passes: " << own.repro;
            checked[s->name()].insert(bit);
          }
        }
      }
  for (const auto& [name, kinds] : checked) {
    std::string list;
    for (int k : kinds) list += " " + std::to_string(k);
    std::printf("  %-24s held to kinds%s (1 padding, 2 border taps, 4 stride holes)\n", name.c_str(), list.c_str());
  }
  // The reference solvers take every geometry: each kind was checked on them.
  EXPECT_EQ(checked[verify::kFastReferenceSolverName], (std::set<int>{1, 2, 4}));
  EXPECT_EQ(checked["mutant.none"], (std::set<int>{1, 2, 4}));
  if (!no_device.empty()) {
    std::string names;
    for (const auto& n : no_device) names += " " + n;
    GTEST_SKIP() << "device solvers not checked (no GPU here):" << names;
  }
}

}  // namespace
}  // namespace hiprim::fuzz_test
