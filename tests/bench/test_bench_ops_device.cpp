// The op bench on a device: verification before timing, bandwidth against the copy ceiling, the
// schema. Skipped without a GPU (then only the refusal is checked).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "bench/bench.hpp"
#include "bench/bench_report.hpp"
#include "tests/bench/bench_fixture.hpp"
#include "verify/report.hpp"
#include "verify/runner.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

namespace {

BenchOptions quick(VerifyMode mode) {
  BenchOptions o = test_bench::quick_options();
  o.verify = mode;
  return o;
}

}  // namespace

TEST(OpBenchDevice, RefusesWithoutAGpu) {
  if (!gpu_json().is_null()) GTEST_SKIP() << "a GPU is present";
  test_bench::expect_refused_without_a_gpu([] { Bench b(quick(VerifyMode::full), {"activ"}); });
}

TEST(OpBenchDevice, VerifiesThenTimesAgainstTheCopyCeiling) {
  if (gpu_json().is_null()) GTEST_SKIP() << "no usable GPU";
  for (VerifyMode mode : {VerifyMode::full, VerifyMode::quick, VerifyMode::none}) {
    Bench b(quick(mode), {"activ", "bnorm"});
    b.measure_ceilings();
    const double copy = b.ceilings_json()["copy"]["gbps"].get<double>();
    EXPECT_GT(copy, 100.0);
    json all = json::array();
    for (const char* s : {"activ fwd relu bf16 nhwc n8 c64 in56x56", "bnorm fwd-train spatial fp32 nchw n8 c64 in28x28 eps1e-05 momentum0.1"}) {
      const json cases = b.run({parse_op_problem(s), 3});
      ASSERT_FALSE(cases.empty()) << s;
      int best = 0;
      for (const json& c : cases) {
        all.push_back(c);
        EXPECT_EQ(c["verify"], verify_mode_name(mode));
        EXPECT_EQ(c["count"], 3);
        EXPECT_EQ(c["peer"]["status"], "unavailable");
        if (!c["timing"].is_object()) continue;
        EXPECT_EQ(c["status"], "passed") << c.dump();  // only verified solvers are timed
        EXPECT_EQ(c["timing"]["method"], "graph_replay");
        EXPECT_EQ(c["timing"]["repeats"].size(), 2u);
        const double gbps = c["gbps"].get<double>();
        EXPECT_NEAR(gbps, c["bytes"].get<double>() * 1e-9 / (c["timing"]["median_ms"].get<double>() * 1e-3), 1e-6 * gbps);
        EXPECT_NEAR(c["fraction_of_copy_ceiling"].get<double>(), gbps / copy, 1e-9);
        best += c["best"].get<bool>();
      }
      EXPECT_EQ(best, 1) << cases.dump(1);
    }
    const json r = performance_report(machine_json(gpu_json()), b.settings_json(), b.ceilings_json(), b.peer_json(), all, "test",
                                      b.clocks_json());
    EXPECT_TRUE(check_report_schema(r).empty());
  }
}

// Fusion chains against cuDNN's fused graph (bench/fusion_peer.hpp): a chain the graph computes has
// its plans verified by the op check (the fusion reference's per-element bounds) and the fastest
// that passed timed beside the solvers; a chain it cannot compute is refused with the rule.
// DISABLED: on the H200 (s16, calls 1, 3, 5, 6) this in-process run got 0 engine configs from both of
// cuDNN 9.19's heuristics for every fused chain, while `hiprim bench --op fusion` timed the same chains
// in the same calls, fused-first too (reports/h200/s16-2026-12-04/call6_peer/); the cause is not found
// (not the ceilings, not the plain-graph order). The CLI path is what device_fusion.sh checks. Run it
// with --gtest_also_run_disabled_tests when investigating.
TEST(OpBenchDevice, DISABLED_FusionChainsAreTimedAgainstCudnnsFusedGraph) {
  if (gpu_json().is_null()) GTEST_SKIP() << "no usable GPU";
  BenchOptions o = quick(VerifyMode::full);
  o.peer = PeerKind::cudnn;
  o.peer_max_plans = 4;
  Bench b(o, {"fusion"});
  const json peer = b.peer_json();
  if (!peer["available"].get<bool>()) GTEST_SKIP() << "cuDNN not loadable here: " << peer.dump();
  // A ResNet-50 layer the fused-graph bench timed on the H200 (s16 call 1); at n4 c64 k64 14x14 the
  // peer had no plan at all there (0 configs; the peer now says unsupported with the heuristics' lines).
  const std::string conv = "fusion fwd bf16 nhwc conv(n32 c128 k128 in28x28 f3x3 pad1x1 str1x1 dil1x1 g1)";
  for (const std::string& tail : {std::string(" bias activ(relu)"), std::string(" bias add(alpha1 beta0.5) activ(relu)")}) {
    const json cases = b.run({parse_op_problem(conv + tail), 1});
    ASSERT_FALSE(cases.empty()) << tail;
    for (const json& c : cases) {
      EXPECT_EQ(c["peer"]["status"], "timed") << c["peer"].dump();
      EXPECT_EQ(c["peer"]["check"]["status"], "passed") << c["peer"].dump();
      EXPECT_GT(c["peer"]["timing"]["median_ms"].get<double>(), 0) << c["peer"].dump();
    }
  }
  const json refused = b.run({parse_op_problem(conv + " bias bnorm-infer activ(relu)"), 1});
  ASSERT_FALSE(refused.empty());
  EXPECT_EQ(refused[0]["peer"]["status"], "unsupported");
  EXPECT_NE(refused[0]["peer"]["reason"].get<std::string>().find("bnorm-infer"), std::string::npos) << refused[0]["peer"].dump();
}
