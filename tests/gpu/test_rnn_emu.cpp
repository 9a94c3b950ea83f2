// The rnn.gemm solvers (gpu/rnn/rnn.hip) on the host emulation of the HIP layer (tests/gpu/emu: the
// real kernel and GEMM sources, every thread of a block a CPU thread), judged against the double
// reference with the derived bound of reference/rnn_bound.hpp: every output element within its bound.
// Mutant builds of the same source (HIPRIM_RNN_MUTANT: a wrong gate order, no reverse-direction
// flip, a dropped recurrent bias) must fail that judgement, so the judgement can fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/op_solver.hpp"
#include "emu/emulated_solver.hpp"
#include "tests/gpu/op_solver_sweep.hpp"
#include "core/rnn_problem.hpp"
#include "gpu/rnn/rnn_plan.hpp"
#include "reference/op_reference.hpp"
#include "tests/gpu/rnn_cases.hpp"
#include "verify/op_fill.hpp"

namespace hiprim {
namespace ref {
std::vector<OpExpected> rnn_expected(const OpProblem& p, const std::vector<const HostTensor*>& inputs);
}
namespace verify {
std::vector<HostTensor> rnn_fill(const OpProblem& op, std::uint64_t seed);
}
namespace gpu_emu {
OpSolverList rnn_solvers_split_on_simt();
}
namespace gpu_emu_m1 {
OpSolverList rnn_solvers_split_on_simt();
}
namespace gpu_emu_m2 {
OpSolverList rnn_solvers_split_on_simt();
}
namespace gpu_emu_m3 {
OpSolverList rnn_solvers_split_on_simt();
}

namespace {

struct Judged {
  bool ran = false;
  long long outside = 0, checked = 0;
  double worst = 0;  // max |got - expected| / bound
  std::string where;
};

// Runs the solver of p's direction from `solvers` on p's fill (seed 1) and compares every output with
// the reference's values and bounds. config: a perf config (solvers that do not list it for p are
// skipped), or "" for each solver's default. bound_of: judge with this problem's bound instead (the
// same tensors, another math mode).
Judged judge(const OpSolverList& solvers, const std::string& problem, const std::string& config = "", const std::string& bound_of = "") {
  const OpProblemPtr p = make_op_problem(parse_rnn_problem(problem));
  const OpProblemPtr judged = make_op_problem(parse_rnn_problem(bound_of.empty() ? problem : bound_of));
  Judged j;
  for (const auto& s : solvers) {
    if (!s->applicable(*p)) continue;
    if (!config.empty()) {
      const auto listed = s->configs_for(*p);
      if (std::find(listed.begin(), listed.end(), config) == listed.end()) continue;
    }
    std::vector<HostTensor> t = verify::rnn_fill(*p, 1);
    const auto tensors = p->tensors();
    std::vector<std::vector<unsigned char>> bytes;
    std::vector<void*> buffers;
    std::vector<const HostTensor*> inputs;
    for (std::size_t i = 0; i < t.size(); ++i) {
      bytes.push_back(t[i].to_bytes());
      if (tensors[i].role == OpTensor::Role::output) std::fill(bytes.back().begin(), bytes.back().end(), 0xA5);  // poison
      inputs.push_back(tensors[i].role == OpTensor::Role::output ? nullptr : &t[i]);
    }
    for (auto& b : bytes) buffers.push_back(b.data());
    std::vector<unsigned char> ws(s->workspace_bytes(*p));
    s->run_config(*p, buffers, ws.data(), ws.size(), nullptr, config);
    const auto expected = ref::rnn_expected(*judged, inputs);
    for (const auto& e : expected) {
      std::size_t i = 0;
      while (tensors[i].name != e.tensor) ++i;
      HostTensor got(tensors[i].desc);
      got.from_bytes(bytes[i].data());
      for (std::size_t k = 0; k < e.value.size(); ++k) {
        const double diff = std::fabs(double(got.data[k]) - e.value[k]);
        ++j.checked;
        const double ratio = e.bound[k] > 0 ? diff / e.bound[k] : (diff == 0 ? 0 : INFINITY);
        if (!(diff <= e.bound[k])) {
          if (j.outside++ == 0)
            j.where = e.tensor + "[" + std::to_string(k) + "] got " + std::to_string(got.data[k]) + " want " + std::to_string(e.value[k]) +
                      " bound " + std::to_string(e.bound[k]);
        }
        if (!(ratio <= j.worst)) j.worst = ratio;
      }
    }
    j.ran = true;
  }
  return j;
}

TEST(RnnEmulated, EveryOutputWithinTheDerivedBound) {
  for (const char* s : test_rnn::kProblems) {
    const Judged j = judge(gpu_emu::rnn_solvers_split_on_simt(), s);
    ASSERT_TRUE(j.ran) << s;
    EXPECT_EQ(j.outside, 0) << s << ": " << j.where;
    EXPECT_GT(j.checked, 0) << s;
    // Informative: the fp32 results sit well inside the bound (a bound far above the error is loose,
    // not wrong; print it for the report).
    std::printf("%-70s worst error / bound %.3g over %lld values\n", s, j.worst, j.checked);
  }
}

// The split engine alone (rnn.split_simt.*: the fp32 operands of the weight GEMMs as three bf16
// pieces, K' = 3K, gpu/rnn/rnn_plan.hpp) on every bf16 problem: within the bound, and it did run.
TEST(RnnEmulated, SplitEngineWithinTheDerivedBound) {
  OpSolverList split;
  for (const auto& s : gpu_emu::rnn_solvers_split_on_simt())
    if (s->name().rfind("rnn.split_simt.", 0) == 0) split.push_back(s);
  ASSERT_EQ(split.size(), 3u);
  int ran = 0;
  for (const char* s : test_rnn::kProblems) {
    if (std::string(s).find(" bf16 ") == std::string::npos) continue;
    const Judged j = judge(split, s);
    ASSERT_TRUE(j.ran) << s;
    ++ran;
    EXPECT_EQ(j.outside, 0) << s << ": " << j.where;
    std::printf("split engine: %-60s worst error / bound %.3g over %lld values\n", s, j.worst, j.checked);
  }
  EXPECT_GE(ran, 5);
  // fp32 and fp16 problems are refused (the weights are not bf16 values).
  EXPECT_FALSE(judge(split, "rnn fwd lstm fp32 layers1 hidden4 input3 seq3 n2 uni bias").ran);
}

// Both step configs (steps.persist: one cooperative launch per layer and direction, gpu/rnn/rnn_persist.hpp;
// steps.gemm: a GEMM and a gate kernel per step) within the bound wherever listed; the persistent one
// is listed (its blocks fit the emulated device's 4 resident blocks) on enough problems to cover
// every cell, both directions, stacked layers and the backward's recompute.
TEST(RnnEmulated, BothStepConfigsWithinTheDerivedBound) {
  int persist = 0;
  for (const char* s : test_rnn::kProblems)
    for (const char* config : {"steps.persist", "steps.gemm"}) {
      const Judged j = judge(gpu_emu::rnn_solvers_split_on_simt(), s, config);
      if (!j.ran) {
        EXPECT_STREQ(config, "steps.persist") << s << ": steps.gemm is always listed";
        continue;
      }
      persist += std::string(config) == "steps.persist";
      EXPECT_EQ(j.outside, 0) << s << " " << config << ": " << j.where;
    }
  EXPECT_GE(persist, 12);
  // A problem whose blocks outnumber the emulated device's resident ones lists steps.gemm only.
  const OpProblemPtr wide = make_op_problem(parse_rnn_problem("rnn fwd lstm fp32 layers1 hidden128 input8 seq2 n2 uni bias"));
  for (const auto& s : gpu_emu::rnn_solvers_split_on_simt()) {
    if (s->applicable(*wide)) {
      EXPECT_EQ(s->configs_for(*wide), std::vector<std::string>{"steps.gemm"}) << s->name();
    }
  }
}

// steps.tc (gpu/rnn/rnn_persist_tc.hpp: R h_prev on tensor cores from h rounded to bf16, math=h16; on
// the emulation each mma formed from the fragment maps) within the math=h16 bound, listed and the
// default for those problems: every cell, both directions, stacked layers, H not a multiple of 8 (scalar
// staging), more than 64 samples (two chunks), the backward's recompute. Judged by the exact model's
// bound instead, the same outputs fall outside: h really is rounded, and the widened bound is needed.
TEST(RnnEmulated, TensorCoreStepsWithinTheH16Bound) {
  const char* problems[] = {
      "rnn fwd lstm bf16 layers2 hidden16 input8 seq4 n5 uni bias math=h16",
      "rnn fwd gru bf16 layers2 hidden12 input5 seq3 n3 bidir bias math=h16",
      "rnn fwd relu bf16 layers1 hidden40 input4 seq3 n2 uni nobias math=h16",
      "rnn fwd tanh bf16 layers2 hidden24 input6 seq3 n2 bidir bias math=h16",
      "rnn bwd-data lstm bf16 layers1 hidden8 input3 seq3 n70 uni bias math=h16",
      "rnn bwd-weights gru bf16 layers2 hidden8 input5 seq3 n3 bidir bias math=h16",
      "rnn fwd tanh bf16 layers1 hidden64 input8 seq3 n64 uni bias math=h16",  // whole 16-byte rows staged, 8 n-tiles
  };
  int r64 = 0;
  for (const char* s : problems) {
    const Judged j = judge(gpu_emu::rnn_solvers_split_on_simt(), s, "steps.tc");
    ASSERT_TRUE(j.ran) << s << ": steps.tc not listed";
    EXPECT_EQ(j.outside, 0) << s << ": " << j.where;
    std::printf("steps.tc: %-66s worst error / bound %.3g over %lld values\n", s, j.worst, j.checked);
    // 64 gate rows per block (twice the units, 16 warps): listed where its fewer blocks fit
    const Judged j64 = judge(gpu_emu::rnn_solvers_split_on_simt(), s, "steps.tc.r64");
    if (j64.ran) ++r64;
    EXPECT_EQ(j64.outside, 0) << s << " steps.tc.r64: " << j64.where;
    const OpProblemPtr p = make_op_problem(parse_rnn_problem(s));
    for (const auto& solver : gpu_emu::rnn_solvers_split_on_simt())
      if (solver->name().rfind("rnn.split_simt.", 0) == 0 && solver->applicable(*p)) EXPECT_EQ(solver->default_config_for(*p), "steps.tc") << s;
  }
  EXPECT_EQ(r64, 7);
  const std::string h16 = problems[0], exact = h16.substr(0, h16.size() - std::string(" math=h16").size());
  EXPECT_GT(judge(gpu_emu::rnn_solvers_split_on_simt(), h16, "steps.tc", exact).outside, 0);
  // Not listed: math=exact, fp16, or blocks beyond the emulated device's resident ones.
  for (const char* s : {"rnn fwd lstm bf16 layers1 hidden16 input8 seq3 n2 uni bias", "rnn fwd lstm fp16 layers1 hidden16 input8 seq3 n2 uni bias math=h16",
                        "rnn fwd lstm bf16 layers1 hidden64 input8 seq2 n2 uni bias math=h16"})
    EXPECT_FALSE(judge(gpu_emu::rnn_solvers_split_on_simt(), s, "steps.tc").ran) << s;
}

// steps.tc.wave (every layer of a unidirectional stack in one launch, the layers' steps meeting by counted
// arrivals, layers >= 1 forming P = W h_below + bW in the kernel) within the math=h16 bound: every cell, 2 and 3
// layers, H not a multiple of 8, two chunks of samples, the backward's recompute; refused (not listed) for
// one layer and for a bidirectional stack.
TEST(RnnEmulated, WaveStepsWithinTheH16Bound) {
  const char* problems[] = {
      "rnn fwd lstm bf16 layers2 hidden16 input8 seq4 n5 uni bias math=h16",
      "rnn fwd gru bf16 layers3 hidden12 input5 seq3 n3 uni bias math=h16",
      "rnn fwd tanh bf16 layers2 hidden24 input6 seq3 n9 uni nobias math=h16",  // chunks of 8 samples here
      "rnn fwd relu bf16 layers2 hidden10 input4 seq5 n2 uni bias math=h16",
      "rnn bwd-data lstm bf16 layers2 hidden8 input3 seq3 n4 uni bias math=h16",
      "rnn bwd-weights gru bf16 layers2 hidden8 input5 seq3 n3 uni bias math=h16",
      "rnn fwd tanh bf16 layers2 hidden64 input8 seq3 n16 uni nobias math=h16",  // whole 16-byte rows staged (chunks of 8)
  };
  for (const char* s : problems) {
    const Judged j = judge(gpu_emu::rnn_solvers_split_on_simt(), s, "steps.tc.wave");
    ASSERT_TRUE(j.ran) << s << ": steps.tc.wave not listed";
    EXPECT_EQ(j.outside, 0) << s << ": " << j.where;
    std::printf("steps.tc.wave: %-66s worst error / bound %.3g over %lld values\n", s, j.worst, j.checked);
  }
  for (const char* s : {"rnn fwd lstm bf16 layers1 hidden16 input8 seq3 n2 uni bias math=h16",
                        "rnn fwd lstm bf16 layers2 hidden16 input8 seq3 n2 bidir bias math=h16"})
    EXPECT_FALSE(judge(gpu_emu::rnn_solvers_split_on_simt(), s, "steps.tc.wave").ran) << s;
}

// The bound is not vacuous on these sizes: a perturbation of one ulp-scale relative 1e-3 of any
// output would exceed it (the comparison can fail).
TEST(RnnEmulated, BoundIsTightEnoughToCatchSmallErrors) {
  const OpProblemPtr p = make_op_problem(parse_rnn_problem("rnn fwd lstm fp32 layers2 hidden5 input3 seq4 n3 bidir bias"));
  std::vector<HostTensor> t = verify::rnn_fill(*p, 1);
  std::vector<const HostTensor*> in;
  for (const auto& x : t) in.push_back(&x);
  for (const auto& e : ref::rnn_expected(*p, in))
    for (std::size_t k = 0; k < e.value.size(); ++k) EXPECT_LT(e.bound[k], 1e-3 * std::max(1e-2, std::fabs(e.value[k]))) << e.tensor << k;
}

TEST(RnnEmulated, MutantsFail) {
  struct M {
    const char* what;
    OpSolverList solvers;
    std::vector<const char*> problems;
  };
  const M mutants[] = {
      {"wrong gate order", gpu_emu_m1::rnn_solvers_split_on_simt(),
       {"rnn fwd lstm fp32 layers1 hidden4 input3 seq3 n2 uni bias", "rnn fwd gru fp32 layers1 hidden4 input3 seq3 n2 uni bias",
        "rnn bwd-data lstm fp32 layers1 hidden3 input3 seq2 n2 uni bias", "rnn fwd lstm bf16 layers1 hidden8 input3 seq3 n2 uni bias math=h16"}},
      {"no reverse-direction flip", gpu_emu_m2::rnn_solvers_split_on_simt(),
       {"rnn fwd tanh fp32 layers1 hidden4 input3 seq3 n2 bidir bias", "rnn bwd-weights gru fp32 layers1 hidden3 input3 seq3 n2 bidir bias",
        "rnn fwd gru bf16 layers1 hidden8 input3 seq3 n2 bidir bias math=h16"}},
      {"dropped recurrent bias", gpu_emu_m3::rnn_solvers_split_on_simt(),
       {"rnn fwd lstm fp32 layers1 hidden4 input3 seq3 n2 uni bias", "rnn bwd-weights relu bf16 layers1 hidden4 input3 seq2 n2 uni bias",
        "rnn fwd tanh bf16 layers1 hidden8 input3 seq3 n2 uni bias math=h16"}},
  };
  for (const auto& m : mutants)
    for (const char* s : m.problems) {
      const Judged j = judge(m.solvers, s);
      ASSERT_TRUE(j.ran) << s;
      EXPECT_GT(j.outside, 0) << m.what << " passed " << s;
    }
  // steps.tc.wave (its own launch path: one launch for both layers, P of layer 2 formed in the kernel) too.
  const char* stack = "rnn fwd lstm bf16 layers2 hidden8 input3 seq3 n2 uni bias math=h16";
  for (const M* m : {&mutants[0], &mutants[2]}) {
    const Judged j = judge(m->solvers, stack, "steps.tc.wave");
    ASSERT_TRUE(j.ran) << stack;
    EXPECT_GT(j.outside, 0) << m->what << " passed " << stack << " through steps.tc.wave";
  }
  EXPECT_EQ(judge(gpu_emu::rnn_solvers_split_on_simt(), stack, "steps.tc.wave").outside, 0) << stack;
  // The unmutated solvers pass the same problems.
  for (const char* s : {"rnn fwd tanh fp32 layers1 hidden4 input3 seq3 n2 bidir bias", "rnn bwd-weights relu bf16 layers1 hidden4 input3 seq2 n2 uni bias"})
    EXPECT_EQ(judge(gpu_emu::rnn_solvers_split_on_simt(), s).outside, 0) << s;
}

// The same solvers through the op runner (the registered fill and reference, guarded buffers,
// poisoned outputs, inputs unchanged, determinism re-run) over smoke_ops' rnn lines.
TEST(RnnEmulated, SmokeOpsThroughTheRunner) {
  std::vector<OpProblemPtr> problems;
  for (const auto& p : test_ops::op_problems({}, "smoke_ops"))
    if (p->op() == "rnn") problems.push_back(p);
  ASSERT_GE(problems.size(), 12u);
  OpSolverList emulated;
  for (const auto& s : gpu_emu::rnn_solvers_split_on_simt()) emulated.push_back(std::make_shared<EmulatedOpSolver>(s));
  const auto ran = test_ops::expect_solvers_pass(problems, emulated);
  for (const char* name : {"rnn.gemm.fwd", "rnn.gemm.bwd_data", "rnn.gemm.bwd_weights"}) EXPECT_EQ(ran.count(name) ? ran.at(name) : 0, 4) << name;
  // one bf16 line per direction
  for (const char* name : {"rnn.split_simt.fwd", "rnn.split_simt.bwd_data", "rnn.split_simt.bwd_weights"})
    EXPECT_EQ(ran.count(name) ? ran.at(name) : 0, 1) << name;
}

// steps.tc's launch shape (gpu/rnn/rnn_plan.hpp): units per block, blocks, k-steps, the sample chunk that fits
// the shared memory (the products' region shared by the staged h and the sums), and refusals with reasons.
TEST(RnnPlan, TensorCoreShapeFitsTheSharedMemory) {
  const std::size_t h100 = 227 * 1024;
  const RnnProblem lstm = parse_rnn_problem("rnn fwd lstm bf16 layers2 hidden1024 input1024 seq128 n64 uni bias math=h16");
  const gpu::RnnTcShape a = gpu::rnn_tc_shape(lstm, 2, h100), b = gpu::rnn_tc_shape(lstm, 4, h100);
  EXPECT_EQ(a.refusal, "");
  EXPECT_EQ((std::vector<int>{a.hu, a.blocks, a.ks, a.nb, a.threads}), (std::vector<int>{8, 128, 16, 64, 256}));
  EXPECT_EQ((std::vector<int>{b.hu, b.blocks, b.ks, b.nb, b.threads}), (std::vector<int>{16, 64, 16, 32, 512}));
  // hs [64][1032] bf16 is the larger tenant of the shared region; then bR's and bW's rows, the layer's parameters.
  EXPECT_EQ(a.smem, 64u * 1032 * 2 + 2 * 32 * 4 + gpu::kRnnTcLayerBytes);
  // steps.tc.wave adds P's rows for every sample and W's rows; at 64 samples it still fits an H100's 227 KiB.
  const gpu::RnnTcShape w = gpu::rnn_tc_shape(lstm, 4, h100, true);
  EXPECT_EQ(w.refusal, "");
  EXPECT_EQ((std::vector<int>{w.hu, w.blocks, w.layers, w.nb}), (std::vector<int>{16, 64, 2, 32}));
  EXPECT_EQ(w.smem, 32u * 1032 * 2 + 2 * 64 * 4 + 64 * 64 * 4 + 64 * 1032 * 2 + gpu::kRnnTcLayerBytes);
  EXPECT_NE(gpu::rnn_tc_shape(parse_rnn_problem("rnn fwd lstm bf16 layers2 hidden64 input8 seq2 n3 bidir bias math=h16"), 4, h100, true)
                .refusal.find("unidirectional"),
            std::string::npos);
  EXPECT_LE(a.smem, h100);
  // A smaller shared memory takes smaller chunks; too small refuses, saying how much it needs.
  EXPECT_EQ(gpu::rnn_tc_shape(lstm, 2, 100 * 1024).nb, 32);
  EXPECT_NE(gpu::rnn_tc_shape(lstm, 2, 8 * 1024).refusal.find("bytes of shared memory"), std::string::npos);
  const RnnProblem gru = parse_rnn_problem("rnn fwd gru bf16 layers1 hidden1000 input8 seq2 n3 uni bias math=h16");
  EXPECT_EQ(gpu::rnn_tc_shape(gru, 2, h100).hu, 10);
  EXPECT_EQ(gpu::rnn_tc_shape(gru, 2, h100).blocks, 100);
  EXPECT_EQ(gpu::rnn_tc_shape(gru, 2, h100).ks, 16);
  EXPECT_NE(gpu::rnn_tc_shape(parse_rnn_problem("rnn fwd lstm bf16 layers1 hidden1025 input8 seq2 n3 uni bias math=h16"), 2, h100)
                .refusal.find("hidden 1025 > 1024"),
            std::string::npos);
  EXPECT_NE(gpu::rnn_tc_shape(parse_rnn_problem("rnn fwd lstm bf16 layers1 hidden64 input8 seq2 n3 uni bias"), 2, h100).refusal.find("math=h16"),
            std::string::npos);
  EXPECT_NE(gpu::rnn_tc_shape(parse_rnn_problem("rnn fwd lstm fp16 layers1 hidden64 input8 seq2 n3 uni bias math=h16"), 2, h100)
                .refusal.find("bf16"),
            std::string::npos);
}

TEST(RnnPlan, WorkspaceRegionsAreDisjointAndSized) {
  const RnnProblem p = parse_rnn_problem("rnn bwd-weights gru bf16 layers2 hidden5 input3 seq4 n3 bidir bias");
  const gpu::RnnPlan k = gpu::plan_rnn(p);
  const std::int64_t offs[] = {k.wf, k.xf, k.h0, k.c0, k.out, k.c, k.act, k.q, k.p, k.rh, k.da, k.drec, k.dh, k.dc, k.d0, k.d1, k.dwf};
  for (std::size_t i = 1; i < std::size(offs); ++i) EXPECT_LE(offs[i - 1], offs[i]);
  EXPECT_EQ(k.xf - k.wf, (p.weights() + 63) / 64 * 64);
  EXPECT_EQ(k.floats - k.dwf, (p.weights() + 63) / 64 * 64);
  const gpu::RnnPlan f = gpu::plan_rnn(parse_rnn_problem("rnn fwd gru bf16 layers2 hidden5 input3 seq4 n3 bidir bias"));
  EXPECT_EQ(f.dwf, f.floats);  // no backward regions, no split-K partials at this size
  // A step GEMM with few tiles and a long K runs split: its partial sums have room.
  const RnnProblem big = parse_rnn_problem("rnn bwd-weights lstm fp32 layers1 hidden128 input8 seq2 n2 uni bias");
  EXPECT_GT(gpu::rnn_step_splits(gpu::rnn_dh_shape(big)), 1);
  const gpu::RnnPlan b = gpu::plan_rnn(big);
  EXPECT_GE((b.floats - b.splitk) * 4,
            static_cast<std::int64_t>(gpu::split_k_workspace_bytes(gpu::rnn_dh_shape(big), gpu::rnn_step_splits(gpu::rnn_dh_shape(big)))));
}

}  // namespace
}  // namespace hiprim
