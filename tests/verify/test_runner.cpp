// The conv runner takes each solver's accumulation model into its tolerance: a solver declaring
// truncating adds (accumulation_error_factor 2, the tensor-core solvers) is judged by 2*gamma(L).
#include <gtest/gtest.h>

#include "core/conv_problem.hpp"
#include "verify/host_solvers.hpp"
#include "verify/runner.hpp"

namespace hiprim::verify_test {
namespace {

// The fast reference, declaring a given accumulation error factor.
class DeclaredFactor final : public ConvSolver {
 public:
  explicit DeclaredFactor(double f) : factor_(f) {}
  std::string name() const override { return "test.factor"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "fast reference with a declared accumulation factor"; }
  double accumulation_error_factor() const override { return factor_; }
  Applicability applicable(const ConvProblem& p) const override { return inner_->applicable(p); }
  std::size_t workspace_bytes(const ConvProblem& p) const override { return inner_->workspace_bytes(p); }
  void run(const ConvProblem& p, const ConvTensors& t) const override { inner_->run(p, t); }

 private:
  double factor_;
  std::shared_ptr<const ConvSolver> inner_ = verify::make_fast_reference_solver();
};

TEST(Runner, ToleranceUsesTheSolversAccumulationFactor) {
  const ConvProblem p = parse_conv_problem("conv fwd bf16 nhwc n1 c8 k4 in5x5 f3x3 pad1x1");
  verify::RunOptions o;
  o.seed = 3;
  o.fill = verify::FillTier::bounded;
  const verify::PreparedCase c(p, o);
  const auto one = verify::run_case(c, DeclaredFactor(1.0), o), two = verify::run_case(c, DeclaredFactor(2.0), o);
  EXPECT_EQ(one.verdict.status, verify::Status::passed) << one.verdict.reason;
  EXPECT_EQ(two.verdict.status, verify::Status::passed) << two.verdict.reason;
  EXPECT_NE(one.tolerance.find("(1*gamma"), std::string::npos) << one.tolerance;
  EXPECT_NE(two.tolerance.find("(2*gamma"), std::string::npos) << two.tolerance;
  EXPECT_EQ(c.tolerance(2.0).algorithm_factor, 2.0);
  EXPECT_EQ(c.tolerance().algorithm_factor, 1.0);
}

}  // namespace
}  // namespace hiprim::verify_test
