// ctc.alpha_beta on the device (skips without a GPU): every ctc problem of smoke_ops, ops and
// test_ctc::kProblems through the runner within reference/ctc.hpp's bound, and the data rules (a
// broken sequence gets NaN outputs; the others are bit-identical) in guarded device buffers.
#include <gtest/gtest.h>

#include "gpu/ctc/solvers.hpp"
#include "gpu/runtime/device.hpp"
#include "tests/gpu/ctc_cases.hpp"
#include "tests/gpu/guarded_device.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "tests/gpu/skip_without_gpu.hpp"

namespace hiprim {
namespace {

TEST(CtcGpu, PassesEveryProblemWithinTheBound) {
  HIPRIM_SKIP_WITHOUT_GPU();
  std::vector<OpProblemPtr> problems;
  for (const char* suite : {"smoke_ops", "ops"})
    for (const auto& p : test_ops::op_problems({}, suite))
      if (p->op() == "ctc") problems.push_back(p);
  for (const auto& p : test_ops::op_problems(test_ctc::kProblems)) problems.push_back(p);
  const auto ran = test_ops::expect_solvers_pass(problems, gpu::ctc_solvers());
  EXPECT_EQ(ran.at("ctc.alpha_beta"), static_cast<int>(problems.size()));
}

// The tensors after one device run (guarded buffers: a changed guard or input fails the test).
std::vector<HostTensor> run_on_device(const OpProblem& p, const OpSolver& s, const std::vector<HostTensor>& in) {
  const auto ts = p.tensors();
  std::vector<std::vector<unsigned char>> bytes;
  std::vector<gputest::GuardedBuffer> bufs;
  std::vector<void*> ptrs;
  bufs.reserve(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    bytes.push_back(in[i].to_bytes());
    bufs.push_back(ts[i].role == OpTensor::Role::output ? gputest::guarded_output(bytes[i].size(), ts[i].desc.dtype, ts[i].name)
                                                        : gputest::guarded_input(bytes[i], ts[i].name));
    ptrs.push_back(bufs.back().data());
  }
  gputest::GuardedBuffer ws(Backend::device, std::max<std::size_t>(s.workspace_bytes(p), 1), "workspace");
  s.run(p, ptrs, ws.data(), ws.payload(), nullptr);
  gpu::synchronize("ctc run_on_device");
  EXPECT_EQ(gputest::guard_error(ws), "");
  std::vector<HostTensor> out;
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].role == OpTensor::Role::input) {
      EXPECT_EQ(gputest::input_error(bufs[i], bytes[i]), "") << ts[i].name;
      out.push_back(in[i]);
      continue;
    }
    const gputest::Readback r = gputest::read_back(bufs[i]);
    EXPECT_EQ(r.guard_error, "") << ts[i].name;
    HostTensor t(ts[i].desc);
    t.from_bytes(r.payload.data());
    out.push_back(std::move(t));
  }
  return out;
}

TEST(CtcGpu, DataRuleViolationsGiveNaNForThatSequenceOnly) {
  HIPRIM_SKIP_WITHOUT_GPU();
  test_ctc::expect_data_rules_give_nan(*gpu::ctc_solvers()[0], run_on_device);
}

}  // namespace
}  // namespace hiprim
