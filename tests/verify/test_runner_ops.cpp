// The ops' framework in verify/: compare_with_bounds, merge_verdicts, fills, suites, and the runner
// with the host reference solvers (passing) and deliberately broken solvers (each caught).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/activ_problem.hpp"
#include "core/error.hpp"
#include "core/op_solver.hpp"
#include "verify/op_fill.hpp"
#include "verify/op_check.hpp"
#include "verify/runner.hpp"
#include "verify/op_solvers.hpp"
#include "verify/suite.hpp"
#include "verify/suite_rewrite.hpp"

using namespace hiprim;
using namespace hiprim::verify;

namespace {

bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

HostTensor tensor_of(std::vector<float> v) {
  HostTensor t(TensorDesc::packed(DType::fp32, Dims{static_cast<std::int64_t>(v.size())}, false));
  t.data = std::move(v);
  return t;
}

const double kNan = std::numeric_limits<double>::quiet_NaN(), kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST(CompareWithBounds, AbsoluteBoundsPerElement) {
  const HostTensor got = tensor_of({1.0f, 2.5f, -3.0f});
  const auto& d = got.desc;
  EXPECT_EQ(compare_with_bounds(got, {1.0, 2.0, -3.0}, {0.0, 0.5, 0.0}, d, DType::fp32).status, Status::passed);
  const Verdict v = compare_with_bounds(got, {1.0, 2.0, -3.0}, {0.0, 0.4, 0.0}, d, DType::fp32);
  EXPECT_EQ(v.status, Status::failed);
  EXPECT_EQ(v.metrics.mismatches, 1);
  EXPECT_TRUE(has(v.reason, "at [1]")) << v.reason;
  EXPECT_THROW(compare_with_bounds(got, {1.0}, {0.0}, d, DType::fp32), InputError);
}

TEST(CompareWithBounds, NanAndInfMustMatchExactly) {
  const HostTensor got = tensor_of({std::nanf(""), static_cast<float>(kInf), 0.0f});
  const auto& d = got.desc;
  EXPECT_EQ(compare_with_bounds(got, {kNan, kInf, 0.0}, {0, 0, 0}, d, DType::fp32).status, Status::passed);
  EXPECT_EQ(compare_with_bounds(got, {1.0, kInf, 0.0}, {1e30, 0, 0}, d, DType::fp32).status, Status::failed);  // NaN got
  EXPECT_EQ(compare_with_bounds(got, {kNan, -kInf, 0.0}, {0, 0, 0}, d, DType::fp32).status, Status::failed);   // wrong infinity
  EXPECT_EQ(compare_with_bounds(got, {kNan, kInf, kNan}, {0, 0, 0}, d, DType::fp32).status, Status::failed);   // NaN expected
}

TEST(MergeVerdicts, WorstStatusAndSummedCounts) {
  Verdict a, b;
  a.status = Status::passed;
  a.reason = "fine";
  a.metrics.checked = 3;
  a.metrics.worst_ratio = 0.5;
  b.status = Status::failed;
  b.reason = "bad";
  b.metrics.checked = 2;
  b.metrics.mismatches = 1;
  b.metrics.worst_ratio = kInf;
  const Verdict m = merge_verdicts({{"y", a}, {"saved_mean", b}});
  EXPECT_EQ(m.status, Status::failed);
  EXPECT_EQ(m.metrics.checked, 5);
  EXPECT_EQ(m.metrics.mismatches, 1);
  EXPECT_EQ(m.reason, "saved_mean: bad");
  EXPECT_EQ(merge_verdicts({{"y", a}}).status, Status::passed);
}

TEST(OpFill, SeededAndShapedPerPrimitive) {
  auto p = parse_op_problem("activ fwd relu fp16 nchw n2 c3 in4x4");
  const auto a = op_fill(*p, 1), b = op_fill(*p, 1), c = op_fill(*p, 2);
  EXPECT_EQ(a[0].to_bytes(), b[0].to_bytes());  // bytes: the fill holds NaN
  EXPECT_NE(a[0].to_bytes(), c[0].to_bytes());
  EXPECT_TRUE(std::isinf(a[0].data[0]) && std::isnan(a[0].data[2]));  // the special values come first
  auto bn = parse_op_problem("bnorm bwd spatial fp32 nchw n2 c2 in3x3 eps1e-05");
  const auto t = op_fill(*bn, 5);
  // saved_mean of channel 0 is the mean of x's channel 0 (a consistent forward pass).
  double s = 0;
  for (int n = 0; n < 2; ++n)
    for (int i = 0; i < 9; ++i) s += t[0].data[n * 18 + i];
  EXPECT_NEAR(t[3].data[0], s / 18, 1e-6);
  const auto d = op_fill(*parse_op_problem("dropout fwd fp32 nchw n2 c3 in4x4 rate0.5 seed1"), 3);
  for (float v : d[0].data) EXPECT_GE(std::fabs(v), 0.5f);
}

TEST(OpSuites, SmokeOpsAndOpsParseAndExpand) {
  const auto smoke = load_suite("smoke_ops", {});
  EXPECT_TRUE(conv_problems(smoke).empty());
  EXPECT_GE(smoke.size(), 50u);
  const auto both = load_suite("smoke", {});
  EXPECT_FALSE(conv_problems(both).empty());
  EXPECT_EQ(load_suite("smoke", {}, SuitePart::ops).size(), smoke.size());
  EXPECT_EQ(both.size(), smoke.size() + conv_problems(both).size());
  EXPECT_EQ(load_suite("smoke", {}, SuitePart::conv).size(), conv_problems(both).size());
  const auto ops = load_suite("ops", {});
  EXPECT_GT(ops.size(), smoke.size());
  const auto e = expand_dtype_layout("dropout fwd fp32 ncdhw n1 c1 in1x1x1 rate0 seed1");
  ASSERT_EQ(e.size(), 6u);
  EXPECT_EQ(e[1], "dropout fwd fp32 ndhwc n1 c1 in1x1x1 rate0 seed1");
  EXPECT_EQ(e[5], "dropout fwd bf16 ndhwc n1 c1 in1x1x1 rate0 seed1");
  EXPECT_TRUE(has([] {
    try {
      parse_suite("conv fwd fp32 nchw n1 c1 k1 in3x3 f1x1\nactiv fwd relu fp32 nchw n1 c1 in1x1 beta2\n", "mine.txt");
    } catch (const InputError& err) {
      return std::string(err.what());
    }
    return std::string();
  }(), "mine.txt:2:"));
}

TEST(OpRunner, ReferenceSolversPassTheSmokeSuite) {
  RunOptions o;
  for (const auto& [p, count] : load_suite("smoke_ops", {})) {
    PreparedCase c(p, o);
    for (const auto& s : match_op_solvers("ref.*", p->op())) {
      const CaseRecord r = run_case(c, *s, o);
      EXPECT_EQ(r.verdict.status, Status::passed) << r.problem << ": " << r.verdict.reason;
      EXPECT_EQ(r.repro, "hiprim repro \"" + p->str() + "\" --solver " + s->name() + " --seed 1");
      EXPECT_TRUE(r.deterministic.value_or(false));
    }
  }
}

namespace {

// An activ host solver that computes relu correctly, then breaks it in one chosen way.
enum class Fault { none, skip_one, skip_nan, off_by_two_ulp, write_past_end, touch_input, nondeterministic, negate_zero };

class FaultyRelu final : public TypedOpSolver<ActivProblem> {
 public:
  explicit FaultyRelu(Fault f) : fault_(f) {}
  std::string name() const override { return "test.relu.faulty"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "test"; }

 protected:
  Applicability applicable_to(const ActivProblem& p) const override {
    return p.mode == ActivMode::relu && p.dir == ActivDir::fwd && p.shape.dtype == DType::fp32 ? Applicability::yes()
                                                                                                : Applicability::no("fp32 relu fwd only");
  }
  void run_typed(const ActivProblem& p, const std::vector<void*>& b, void*, void*) const override {
    auto* x = static_cast<float*>(b[0]);
    auto* y = static_cast<float*>(b[1]);
    const auto n = static_cast<std::size_t>(p.shape.elements());
    static int calls = 0;
    const std::size_t k = n - 1;  // an ordinary element (the specials are at the front; x[2] is NaN)
    for (std::size_t i = 0; i < n; ++i) {
      if ((fault_ == Fault::skip_one && i == k) || (fault_ == Fault::skip_nan && i == 2)) continue;  // never written
      y[i] = x[i] > 0 ? x[i] : (std::isnan(x[i]) ? x[i] : 0.0f);
    }
    switch (fault_) {
      case Fault::none: case Fault::skip_one: case Fault::skip_nan: break;
      case Fault::off_by_two_ulp: y[k] = std::nextafter(std::nextafter(y[k], 1e30f), 1e30f); break;
      case Fault::write_past_end: y[n] = 1.0f; break;
      case Fault::touch_input: x[k] += 1.0f; break;
      case Fault::nondeterministic: y[k] += static_cast<float>(calls++); break;
      case Fault::negate_zero: y[3] = 1.0f; break;  // x[3] is +0: relu gives 0
    }
  }

 private:
  Fault fault_;
};

Status run_faulty(Fault f, std::string* reason = nullptr) {
  RunOptions o;
  PreparedCase c(parse_op_problem("activ fwd relu fp32 nchw n1 c2 in5x5"), o);
  const CaseRecord r = run_case(c, FaultyRelu(f), o);
  if (reason) *reason = r.verdict.reason;
  return r.verdict.status;
}

}  // namespace

TEST(OpRunner, BrokenSolversAreCaught) {
  std::string why;
  EXPECT_EQ(run_faulty(Fault::none, &why), Status::passed) << why;
  EXPECT_EQ(run_faulty(Fault::skip_one, &why), Status::failed) << why;
  EXPECT_TRUE(has(why, "never wrote 1 of 50 elements of y")) << why;
  EXPECT_TRUE(has(why, "first at [0,1,4,4]")) << why;
  // The poison is a NaN, but not the NaN relu(NaN) gives: an unwritten element where NaN is expected fails.
  EXPECT_EQ(run_faulty(Fault::skip_nan, &why), Status::failed) << why;
  EXPECT_TRUE(has(why, "first at [0,0,0,2]")) << why;
  EXPECT_EQ(run_faulty(Fault::off_by_two_ulp, &why), Status::failed) << why;  // relu is exact: bound 0
  EXPECT_EQ(run_faulty(Fault::write_past_end, &why), Status::failed);
  EXPECT_TRUE(has(why, "past the end of buffer y")) << why;
  EXPECT_EQ(run_faulty(Fault::touch_input, &why), Status::failed);
  EXPECT_TRUE(has(why, "modified its input buffer x")) << why;
  EXPECT_EQ(run_faulty(Fault::nondeterministic, &why), Status::failed);
  EXPECT_TRUE(has(why, "claims to be deterministic")) << why;
  EXPECT_EQ(run_faulty(Fault::negate_zero, &why), Status::failed) << why;
  RunOptions o;
  PreparedCase other(parse_op_problem("activ fwd tanh fp32 nchw n1 c2 in5x5 alpha1 beta1"), o);
  EXPECT_EQ(run_case(other, FaultyRelu(Fault::none), o).verdict.status, Status::unsupported);
}

namespace {

// A typed solver with perf configs "a" and "b" (default "b") that records which config ran.
class TwoConfigs final : public TypedOpSolver<ActivProblem> {
 public:
  std::string name() const override { return "test.relu.two_configs"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "test"; }
  std::vector<std::string> perf_configs() const override { return {"a", "b"}; }
  std::string default_config_for(const OpProblem&) const override { return "b"; }
  mutable std::string ran;

 protected:
  Applicability applicable_to(const ActivProblem&) const override { return Applicability::yes(); }
  void run_typed(const ActivProblem&, const std::vector<void*>&, void*, void*) const override { ran = "run_typed"; }
  void run_typed_config(const ActivProblem&, const std::vector<void*>&, void*, void*, const std::string& config) const override {
    ran = config;
  }
};

}  // namespace

// TypedOpSolver::run_config: "" resolves to the default, a listed config runs as given, anything else
// and a problem of another op are refused naming the solver (before any run).
TEST(OpRunner, TypedRunConfigResolvesChecksAndDispatches) {
  const OpProblemPtr p = parse_op_problem("activ fwd relu fp32 nchw n1 c2 in5x5");
  TwoConfigs s;
  std::vector<void*> b(p->tensors().size(), nullptr);
  s.run_config(*p, b, nullptr, 0, nullptr, "");
  EXPECT_EQ(s.ran, "b");
  s.run_config(*p, b, nullptr, 0, nullptr, "a");
  EXPECT_EQ(s.ran, "a");
  s.ran.clear();
  try {
    s.run_config(*p, b, nullptr, 0, nullptr, "c");
    ADD_FAILURE() << "config c ran";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test.relu.two_configs"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.ran, "");
  const OpProblemPtr other = parse_op_problem("softmax fwd log channel fp32 nchw n2 c10 in1x1");
  EXPECT_THROW(s.run_config(*other, std::vector<void*>(other->tensors().size(), nullptr), nullptr, 0, nullptr, "a"), InputError);
  EXPECT_EQ(s.ran, "");
  EXPECT_THROW(s.run_config(*p, std::vector<void*>(1, nullptr), nullptr, 0, nullptr, "a"), InputError);  // buffer count
}
