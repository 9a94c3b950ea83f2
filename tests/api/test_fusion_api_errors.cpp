// Every refusal of the fusion-plan calls: a clear status, a message naming the fault (for the calls
// with a handle), and nothing written (y keeps its sentinel).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "api/api_objects.hpp"
#include "tests/api/fusion_fixture.hpp"
#include "verify/op_solvers.hpp"

namespace hiprim_api_test {
namespace {

bool has(const std::string& message, const std::string& part) { return message.find(part) != std::string::npos; }

TEST(FusionApiErrors, NullPointers) {
  Chain c(kNchw);
  hiprimFusionPlanDescriptor_t p = nullptr;
  hiprimFusionOpDescriptor_t op = nullptr;
  EXPECT_EQ(hiprimCreateFusionPlan(nullptr, c.d.x), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateFusionPlan(&p, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimDestroyFusionPlan(nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOpConvForward(nullptr, &op, c.d.conv, c.d.w), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOpConvForward(c.plan, nullptr, c.d.conv, c.d.w), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOpConvForward(c.plan, &op, nullptr, c.d.w), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOpConvForward(c.plan, &op, c.d.conv, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOpBiasForward(c.plan, &op, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOpBatchNormInference(c.plan, &op, hiprimBNSpatial, nullptr, 1e-5), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOpAddForward(c.plan, &op, nullptr, 1, 1), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOpActivationForward(c.plan, &op, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(op, nullptr);
  EXPECT_TRUE(c.plan->ops.empty());  // a refused op is not added
  ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
  EXPECT_EQ(hiprimCompileFusionPlan(nullptr, c.plan), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCompileFusionPlan(c.h, nullptr), hiprimStatusInvalidValue);
  EXPECT_TRUE(has(c.message(), "plan is null")) << c.message();
  ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
  const char* text = nullptr;
  std::size_t ws = 0;
  EXPECT_EQ(hiprimFusionPlanGetProblem(c.plan, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimFusionPlanGetProblem(nullptr, &text), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimFusionPlanGetSolverName(c.plan, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimFusionPlanGetWorkSpaceSize(c.h, c.plan, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimFusionPlanGetWorkSpaceSize(c.h, nullptr, &ws), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimCreateOperatorArgs(nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimDestroyOperatorArgs(nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimSetOpArgsConvForward(nullptr, c.conv_op, c.w.data()), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimSetOpArgsConvForward(c.args, nullptr, c.w.data()), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimSetOpArgsConvForward(c.args, c.conv_op, nullptr), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimExecuteFusionPlan(nullptr, c.plan, c.d.x, c.x.data(), c.d.y, c.y.data(), c.args, nullptr, 0), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimExecuteFusionPlan(c.h, nullptr, c.d.x, c.x.data(), c.d.y, c.y.data(), c.args, nullptr, 0), hiprimStatusInvalidValue);
  EXPECT_EQ(hiprimExecuteFusionPlan(c.h, c.plan, c.d.x, nullptr, c.d.y, c.y.data(), c.args, nullptr, 0), hiprimStatusInvalidValue);
  EXPECT_TRUE(has(c.message(), "x or y is null")) << c.message();
  EXPECT_EQ(hiprimExecuteFusionPlan(c.h, c.plan, c.d.x, c.x.data(), c.d.y, c.y.data(), nullptr, nullptr, 0), hiprimStatusInvalidValue);
  EXPECT_TRUE(has(c.message(), "args is null")) << c.message();
  EXPECT_EQ(hiprimExecuteFusionPlan(c.h, c.plan, nullptr, c.x.data(), c.d.y, c.y.data(), c.args, nullptr, 0), hiprimStatusInvalidValue);
  EXPECT_TRUE(has(c.message(), "x descriptor is null")) << c.message();
  EXPECT_TRUE(c.untouched());
}

// A chain out of order, a step twice, no conv first, no op at all: hiprimStatusBadParm at compile,
// the message naming the fault, and the plan stays uncompiled.
TEST(FusionApiErrors, ChainsThatAreNotConvBiasBnormAddActiv) {
  struct Case {
    std::vector<hiprimStatus_t (Chain::*)()> ops;
    std::string fault;
  };
  const std::vector<Case> cases = {
      {{&Chain::add_conv, &Chain::add_relu, &Chain::add_bias}, "bias (step 3) comes after activ"},
      {{&Chain::add_conv, &Chain::add_add, &Chain::add_bn}, "bnorm-infer (step 3) comes after add"},
      {{&Chain::add_conv, &Chain::add_bias, &Chain::add_bias}, "bias given twice (steps 2 and 3)"},
      {{&Chain::add_conv, &Chain::add_conv}, "conv given twice"},
      {{&Chain::add_bias, &Chain::add_relu}, "the chain starts with bias: it must start with conv"},
      {{&Chain::add_bias, &Chain::add_conv}, "the chain starts with bias"},
      {{}, "the chain is empty"},
  };
  for (const Case& k : cases) {
    Chain c(kNchw);
    for (auto add : k.ops) ASSERT_EQ((c.*add)(), hiprimStatusSuccess);
    EXPECT_EQ(c.compile(), hiprimStatusBadParm) << k.fault;
    EXPECT_TRUE(has(c.message(), "invalid fusion plan: " + k.fault)) << c.message();
    EXPECT_FALSE(c.plan->compiled);
    EXPECT_EQ(c.execute(), hiprimStatusBadParm);
    EXPECT_TRUE(has(c.message(), "not compiled")) << c.message();
    EXPECT_TRUE(c.untouched());
  }
}

// Descriptors that disagree with the plan: the message names the op and the quantity.
TEST(FusionApiErrors, DescriptorsThatDisagreeWithThePlan) {
  auto refused = [](Chain& c, hiprimStatus_t want, const std::string& part) {
    EXPECT_EQ(c.compile(), want) << part;
    EXPECT_TRUE(has(c.message(), part)) << c.message();
    EXPECT_FALSE(c.plan->compiled);
  };
  {  // the bias of K + 1 channels
    Chain c(kNchw);
    Descs::set(c.bias_desc, c.sh, 1, c.sh.k + 1, 1, 1);
    ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
    ASSERT_EQ(c.add_bias(), hiprimStatusSuccess);
    refused(c, hiprimStatusBadParm, "op 2 (bias): bias descriptor dims [1,5,1,1] are not the plan's [1,4,1,1]");
  }
  {  // batch norm parameters in fp16, per activation
    Chain c(kNchw);
    const int dims[4] = {1, c.sh.k, 1, 1}, strides[4] = {c.sh.k, 1, 1, 1};
    ASSERT_EQ(hiprimSetTensorDescriptor(c.bn_desc, hiprimHalf, 4, dims, strides), hiprimStatusSuccess);
    ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
    ASSERT_EQ(c.add_bn(), hiprimStatusSuccess);
    refused(c, hiprimStatusBadParm, "op 2 (bnorm-infer): bn descriptor has data type fp16, the plan needs fp32");
    hiprimFusionOpDescriptor_t op = nullptr;
    Chain e(kNchw);
    ASSERT_EQ(e.add_conv(), hiprimStatusSuccess);
    ASSERT_EQ(hiprimCreateOpBatchNormInference(e.plan, &op, hiprimBNPerActivation, e.bn_desc, 1e-5), hiprimStatusSuccess);
    refused(e, hiprimStatusNotImplemented, "hiprimBNSpatial only");
    EXPECT_EQ(hiprimCreateOpBatchNormInference(e.plan, &op, static_cast<hiprimBatchNormMode_t>(9), e.bn_desc, 1e-5), hiprimStatusBadParm);
  }
  {  // a residual of another size, then of the other channel order
    Chain c(kNchw);
    Descs::set(c.res_desc, c.sh, c.sh.n, c.sh.k, c.sh.p() + 1, c.sh.q());
    ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
    ASSERT_EQ(c.add_add(), hiprimStatusSuccess);
    refused(c, hiprimStatusBadParm, "op 2 (add): residual descriptor dims [2,4,6,6] are not the plan's [2,4,5,6]");
    Chain e(kNchw);
    Shape nhwc = e.sh;
    nhwc.nhwc = true;
    Descs::set(e.res_desc, nhwc, e.sh.n, e.sh.k, e.sh.p(), e.sh.q());
    ASSERT_EQ(e.add_conv(), hiprimStatusSuccess);
    ASSERT_EQ(e.add_add(), hiprimStatusSuccess);
    refused(e, hiprimStatusBadParm, "residual descriptor is channels last (NHWC), the plan channels first (NCHW)");
  }
  {  // w of another data type, w of the wrong channel count, an unset activation, bad epsilon
    Chain c(kNchw);
    const int dims[4] = {c.sh.k, c.sh.c, c.sh.r, c.sh.s}, strides[4] = {c.sh.c * 9, 9, 3, 1};
    ASSERT_EQ(hiprimSetTensorDescriptor(c.d.w, hiprimBFloat16, 4, dims, strides), hiprimStatusSuccess);
    ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
    refused(c, hiprimStatusBadParm, "op 1 (conv): x and w descriptors have different data types");
    Chain e(kNchw);
    Descs::set(e.d.w, e.sh, e.sh.k, e.sh.c + 1, e.sh.r, e.sh.s);
    ASSERT_EQ(e.add_conv(), hiprimStatusSuccess);
    refused(e, hiprimStatusBadParm, "op 1 (conv): ");
    Chain f(kNchw);
    hiprimActivationDescriptor_t unset = nullptr;
    ASSERT_EQ(hiprimCreateActivationDescriptor(&unset), hiprimStatusSuccess);
    ASSERT_EQ(f.add_conv(), hiprimStatusSuccess);
    ASSERT_EQ(hiprimCreateOpActivationForward(f.plan, &f.activ_op, unset), hiprimStatusSuccess);
    hiprimDestroyActivationDescriptor(unset);  // the op keeps its copy
    refused(f, hiprimStatusBadParm, "op 2 (activ): activation descriptor was created but never set");
    Chain g(kNchw);
    g.eps = -1;
    ASSERT_EQ(g.add_conv(), hiprimStatusSuccess);
    ASSERT_EQ(g.add_bn(), hiprimStatusSuccess);
    refused(g, hiprimStatusBadParm, "bnorm-infer: eps = -1 must be finite and > 0");
  }
}

// A compiled plan run with the wrong arguments: missing, of another plan, of another op kind, x or
// y descriptors that are not the plan's.
TEST(FusionApiErrors, ArgumentsThatDoNotFitTheCompiledPlan) {
  Chain c(kNchw);
  ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
  ASSERT_EQ(hiprimCreateOpBiasForward(c.plan, &c.bias_op, c.bias_desc), hiprimStatusSuccess);  // no arguments set
  ASSERT_EQ(c.add_relu(), hiprimStatusSuccess);
  ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
  EXPECT_EQ(c.execute(), hiprimStatusBadParm);
  EXPECT_TRUE(has(c.message(), "no arguments for op 2 (bias) (hiprimSetOpArgsBiasForward)")) << c.message();
  EXPECT_EQ(hiprimSetOpArgsBiasForward(c.args, c.conv_op, c.bias.data()), hiprimStatusBadParm);  // a conv op
  EXPECT_EQ(hiprimSetOpArgsAddForward(c.args, c.bias_op, c.bias.data()), hiprimStatusBadParm);
  ASSERT_EQ(hiprimSetOpArgsBiasForward(c.args, c.bias_op, c.bias.data()), hiprimStatusSuccess);
  {  // the arguments also hold an op of another plan
    Chain other(kNchw);
    ASSERT_EQ(other.add_conv(), hiprimStatusSuccess);
    ASSERT_EQ(hiprimSetOpArgsConvForward(c.args, other.conv_op, c.w.data()), hiprimStatusSuccess);
    EXPECT_EQ(c.execute(), hiprimStatusBadParm);
    EXPECT_TRUE(has(c.message(), "an op that is not this plan's")) << c.message();
    hiprimDestroyOperatorArgs(c.args);
    ASSERT_EQ(hiprimCreateOperatorArgs(&c.args), hiprimStatusSuccess);
    ASSERT_EQ(hiprimSetOpArgsConvForward(c.args, c.conv_op, c.w.data()), hiprimStatusSuccess);
    ASSERT_EQ(hiprimSetOpArgsBiasForward(c.args, c.bias_op, c.bias.data()), hiprimStatusSuccess);
  }
  // x and y descriptors of other sizes or types.
  hiprimTensorDescriptor_t t = nullptr;
  ASSERT_EQ(hiprimCreateTensorDescriptor(&t), hiprimStatusSuccess);
  Descs::set(t, c.sh, c.sh.n, c.sh.c, c.sh.h, c.sh.w + 1);
  EXPECT_EQ(hiprimExecuteFusionPlan(c.h, c.plan, t, c.x.data(), c.d.y, c.y.data(), c.args, nullptr, 0), hiprimStatusBadParm);
  EXPECT_TRUE(has(c.message(), "x descriptor dims [2,3,5,7] are not the plan's [2,3,5,6]")) << c.message();
  Descs::set(t, c.sh, c.sh.n, c.sh.k, c.sh.p(), c.sh.q() - 1);
  EXPECT_EQ(hiprimExecuteFusionPlan(c.h, c.plan, c.d.x, c.x.data(), t, c.y.data(), c.args, nullptr, 0), hiprimStatusBadParm);
  EXPECT_TRUE(has(c.message(), "y descriptor dims [2,4,5,5] are not the plan's [2,4,5,6]")) << c.message();
  const int dims[4] = {c.sh.n, c.sh.k, c.sh.p(), c.sh.q()}, strides[4] = {c.sh.k * 30, 30, 6, 1};
  ASSERT_EQ(hiprimSetTensorDescriptor(t, hiprimHalf, 4, dims, strides), hiprimStatusSuccess);
  EXPECT_EQ(hiprimExecuteFusionPlan(c.h, c.plan, c.d.x, c.x.data(), t, c.y.data(), c.args, nullptr, 0), hiprimStatusBadParm);
  EXPECT_TRUE(has(c.message(), "y descriptor has data type fp16")) << c.message();
  hiprimDestroyTensorDescriptor(t);
  EXPECT_TRUE(c.untouched());
  ASSERT_EQ(c.execute(), hiprimStatusSuccess) << c.message();  // the right arguments run
  EXPECT_FALSE(c.untouched());
}

// ref.fusion, asking for 256 bytes of workspace (the host solvers need none).
class WorkspaceFusionSolver final : public hiprim::OpSolver {
 public:
  std::string name() const override { return "test.fusion.workspace"; }
  std::string op() const override { return "fusion"; }
  hiprim::Backend backend() const override { return hiprim::Backend::host; }
  std::string summary() const override { return "ref.fusion with a workspace"; }
  hiprim::Applicability applicable(const hiprim::OpProblem& p) const override { return ref_->applicable(p); }
  std::size_t workspace_bytes(const hiprim::OpProblem&) const override { return 256; }
  void run(const hiprim::OpProblem& p, const std::vector<void*>& buffers, void*, std::size_t ws_bytes, void* stream) const override {
    hiprim::check_op_run(name(), p, p.op() == "fusion", buffers.size(), ws_bytes, 256);
    ref_->run(p, buffers, nullptr, 0, stream);
  }

 private:
  std::shared_ptr<const hiprim::OpSolver> ref_ = hiprim::verify::make_op_reference_solver("fusion");
};

// The plan's solver replaced by one that needs a workspace: the query reports it, a smaller one is
// refused, null takes the handle's own.
TEST(FusionApiErrors, WorkspaceTooSmallAndTheHandlesOwn) {
  Chain c(kNchw);
  ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
  ASSERT_EQ(c.add_relu(), hiprimStatusSuccess);
  ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
  const WorkspaceFusionSolver solver;
  c.plan->chosen.solver = &solver;
  std::size_t ws = 0;
  ASSERT_EQ(hiprimFusionPlanGetWorkSpaceSize(c.h, c.plan, &ws), hiprimStatusSuccess);
  EXPECT_EQ(ws, 256u);
  std::vector<unsigned char> small(100), enough(256);
  EXPECT_EQ(c.execute(small.data(), small.size()), hiprimStatusBadParm);
  EXPECT_TRUE(has(c.message(), "the workspace (100 bytes) is smaller than the 256 bytes test.fusion.workspace needs")) << c.message();
  EXPECT_TRUE(c.untouched());
  ASSERT_EQ(c.execute(), hiprimStatusSuccess) << c.message();
  EXPECT_GE(c.h->workspace_bytes, 256u);
  const std::vector<float> conv = direct_fwd(kNchw, c.x, c.w);
  for (std::size_t i = 0; i < conv.size(); ++i) ASSERT_EQ(c.y[i], std::max(conv[i], 0.0f)) << i;
  c.y.assign(c.y.size(), kSentinel);
  ASSERT_EQ(c.execute(enough.data(), enough.size()), hiprimStatusSuccess) << c.message();
  EXPECT_FALSE(c.untouched());
}

// No solver takes the plan (HIPRIM_SOLVER admits none of the fusion op's): refused loudly at
// compile, naming the problem; HIPRIM_LOG_CMD prints the repro line of an execution.
TEST(FusionApiErrors, NoSolverAndTheReproLine) {
  Chain c(kNchw);
  ASSERT_EQ(c.add_conv(), hiprimStatusSuccess);
  ASSERT_EQ(c.add_bias(), hiprimStatusSuccess);
  ASSERT_EQ(c.add_relu(), hiprimStatusSuccess);
  setenv("HIPRIM_SOLVER", "conv.*", 1);
  EXPECT_EQ(c.compile(), hiprimStatusUnsupported);
  unsetenv("HIPRIM_SOLVER");
  const std::string problem = "fusion fwd fp32 nchw conv(n2 c3 k4 in5x6 f3x3 pad1x1 str1x1 dil1x1 g1) bias activ(relu)";
  EXPECT_TRUE(has(c.message(), "no host solver matching HIPRIM_SOLVER='conv.*'")) << c.message();
  EXPECT_TRUE(has(c.message(), "takes " + problem)) << c.message();
  EXPECT_FALSE(c.plan->compiled);
  EXPECT_EQ(c.execute(), hiprimStatusBadParm);
  EXPECT_TRUE(c.untouched());
  ASSERT_EQ(c.compile(), hiprimStatusSuccess) << c.message();
  setenv("HIPRIM_LOG_CMD", "1", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(c.execute(), hiprimStatusSuccess) << c.message();
  const std::string log = testing::internal::GetCapturedStderr();
  unsetenv("HIPRIM_LOG_CMD");
  EXPECT_TRUE(has(log, "hiprim repro \"" + problem + "\" --solver ref.fusion")) << log;
}

}  // namespace
}  // namespace hiprim_api_test
