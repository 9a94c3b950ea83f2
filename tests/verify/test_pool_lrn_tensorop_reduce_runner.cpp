// Pooling, LRN, tensor-op and reduction cases through the runner on the host reference solver
// (fills, references, bounds and comparison without a GPU), and the fills' promises: max-pool and
// min/max reduction data hold ties and NaNs, saved pooling indices point inside the input.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/pool_problem.hpp"
#include "core/reduce_problem.hpp"
#include "verify/op_fill.hpp"
#include "verify/runner.hpp"
#include "verify/op_solvers.hpp"
#include "verify/suite.hpp"

namespace hiprim::verify {
namespace {

TEST(PoolLrnTensorOpReduceRunner, SmokeProblemsPassOnTheHostReferenceSolver) {
  const std::vector<SuiteProblem> suite = load_suite("smoke_ops", SuiteOptions{});
  int ran = 0;
  for (const auto& [p, count] : suite) {
    const std::string op = p->op();
    if (op != "pool" && op != "lrn" && op != "tensorop" && op != "reduce") continue;
    RunOptions o;
    o.seed = 3;
    PreparedCase c(p, o);
    const auto solver = make_op_reference_solver(op);
    const CaseRecord rec = run_case(c, *solver, o);
    EXPECT_EQ(rec.verdict.status, Status::passed) << p->str() << ": " << rec.verdict.reason;
    ++ran;
  }
  EXPECT_GE(ran, 20);  // the lines of the four primitives in smoke_ops.txt
}

TEST(PoolLrnTensorOpReduceRunner, MaxPoolFillHasTiedWindowsAndNaNs) {
  const PoolProblem p = parse_pool_problem("pool fwd max fp32 nchw n2 c4 in16x16 win3x3 pad1x1 str2x2");
  const auto data = op_fill(*make_op_problem(p), 11);
  const HostTensor& x = data[0];
  int tied = 0, nans = 0, windows = 0;
  for_each_index(p.y_desc().dims, [&](const Dims& o) {
    std::map<float, int> count;
    for (std::int64_t kh = 0; kh < 3; ++kh)
      for (std::int64_t kw = 0; kw < 3; ++kw) {
        const std::int64_t h = o[2] * 2 - 1 + kh, w = o[3] * 2 - 1 + kw;
        if (h < 0 || w < 0 || h >= 16 || w >= 16) continue;
        const float v = x.at(Dims{o[0], o[1], h, w});
        if (std::isnan(v)) ++nans;
        else ++count[v];
      }
    if (!count.empty() && count.rbegin()->second > 1) ++tied;
    ++windows;
  });
  EXPECT_GT(tied, windows / 4);  // 7 values over up to 9 positions: ties are the rule
  EXPECT_GT(nans, 0);
}

TEST(PoolLrnTensorOpReduceRunner, SavedIndicesOfTheBackwardFillPointInsideTheInput) {
  const PoolProblem p = parse_pool_problem("pool bwd max fp32 nchw n1 c3 in7x5 win3x3 pad2x1 str2x2");
  const auto data = op_fill(*make_op_problem(p), 5);
  const HostTensor& idx = data[1];
  for_each_index(p.idx_desc().dims, [&](const Dims& o) {
    const auto k = static_cast<std::int64_t>(idx.at(o));
    ASSERT_EQ(static_cast<float>(k), idx.at(o));
    const std::int64_t h = o[2] * 2 - 2 + k / 3, w = o[3] * 2 - 1 + k % 3;
    EXPECT_TRUE(h >= 0 && h < 7 && w >= 0 && w < 5) << "window " << o[2] << "," << o[3] << " k " << k;
  });
}

TEST(PoolLrnTensorOpReduceRunner, ReduceFillsMatchTheOp) {
  auto x_of = [](const char* s) { return op_fill(*parse_op_problem(s), 9)[0]; };
  const HostTensor sel = x_of("reduce max fp32 dims64x64 over1 nan_ignore indices");
  int nans = 0;
  for (float v : sel.data) {
    if (std::isnan(v)) ++nans;
    else EXPECT_TRUE(v == std::floor(v) && std::fabs(v) <= 4) << v;
  }
  EXPECT_GT(nans, 0);
  for (float v : x_of("reduce mul fp32 dims64x64 over1 nan_ignore").data)
    EXPECT_TRUE(std::fabs(v) >= 0.875f && std::fabs(v) <= 1.125f) << v;
  // Long slices: the band narrows to d = 60/L, so the most extreme partial product of any subset
  // (all factors 1-d, or all 1+d) stays normal in fp32.
  const std::int64_t L = 34561;
  const HostTensor longer = x_of("reduce mul fp32 dims1x34561 over1 nan_ignore");
  double lo = 0, hi = 0;  // sums of log|x| over the factors below / above 1
  for (float v : longer.data) {
    EXPECT_LE(std::fabs(std::fabs(v) - 1.0), 60.0 / L * (1 + 1e-6)) << v;
    (std::fabs(v) < 1 ? lo : hi) += std::log(std::fabs(static_cast<double>(v)));
  }
  EXPECT_GT(lo, std::log(0x1p-126));
  EXPECT_LT(hi, std::log(0x1p127));
}

}  // namespace
}  // namespace hiprim::verify
