// The bench on a device: verification before timing, best marking, the peer, ceilings, schema.
// Skipped without a GPU (then only the refusal is checked).
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "tests/report/report_fixture.hpp"
#include "bench/bench.hpp"
#include "bench/bench_report.hpp"
#include "verify/runner.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

namespace {

#define SKIP_WITHOUT_GPU() \
  if (gpu_json().is_null()) GTEST_SKIP() << "no usable GPU"

BenchOptions quick() {
  BenchOptions o;
  o.warmup = 2;
  o.reps = 5;
  o.budget_ms = 200;
  o.ceilings = false;
  return o;
}

}  // namespace

TEST(BenchDevice, RefusesWithoutAGpu) {
  if (!gpu_json().is_null()) GTEST_SKIP() << "a GPU is present";
  try {
    Bench b(quick());
    FAIL() << "Bench constructed without a GPU";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("hiprim bench needs a GPU"), std::string::npos) << e.what();
  }
}

TEST(BenchDevice, VerifiesThenTimesEverySolver) {
  SKIP_WITHOUT_GPU();
  for (VerifyMode mode : {VerifyMode::full, VerifyMode::sampled, VerifyMode::none}) {
    BenchOptions o = quick();
    o.verify = mode;
    Bench b(o);
    const auto p = parse_conv_problem("conv fwd fp32 nchw n2 c16 k32 in14x14 f3x3 pad1x1");
    json cases = b.run({p, 2});
    ASSERT_FALSE(cases.empty());
    int best = 0, timed = 0;
    for (const auto& c : cases) {
      EXPECT_EQ(c["verify"], verify_mode_name(mode));
      EXPECT_EQ(c["count"], 2);
      if (c["timing"].is_object()) {
        ++timed;
        EXPECT_EQ(c["status"], "passed") << c.dump();  // only verified solvers are timed
        EXPECT_GE(c["timing"]["runs"].get<int>(), kMinReps);
        EXPECT_LE(c["timing"]["min_ms"].get<double>(), c["timing"]["median_ms"].get<double>());
        EXPECT_GT(c["tflops"].get<double>(), 0);
      }
      if (c["solver"] == "conv.naive") {
        EXPECT_EQ(c["status"], "passed") << c.dump();
      }
      best += c["best"].get<bool>() ? 1 : 0;
      ASSERT_TRUE(c["peer"].is_object());
      const std::string ps = c["peer"]["status"];
      EXPECT_TRUE(ps == "timed" || ps == "unavailable") << c["peer"].dump();
      if (ps == "timed" && mode != VerifyMode::none && !c["peer"]["transform"].get<bool>()) {  // FFT/Winograd: not judged
        EXPECT_EQ(c["peer"]["check"]["status"], "passed") << c["peer"].dump();
      }
    }
    EXPECT_GE(timed, 1);
    EXPECT_EQ(best, 1);
    const json r = performance_report(machine_json(gpu_json()), b.settings_json(), b.ceilings_json(), b.peer_json(), cases, "test");
    const auto errs = check_report_schema(r);
    EXPECT_TRUE(errs.empty()) << (errs.empty() ? "" : errs.front());
  }
}

TEST(BenchDevice, CeilingsAreMeasured) {
  SKIP_WITHOUT_GPU();
  BenchOptions o = quick();
  o.ceilings = true;
  o.peer_cudnn = false;
  Bench b(o);
  b.measure_ceilings({DType::bf16});
  const json c = b.ceilings_json();
  EXPECT_GT(c["copy"]["gbps"].get<double>(), 100);  // any GPU copies faster than 100 GB/s
  EXPECT_GT(c["gemm"]["bf16"]["tflops"].get<double>(), 0);
}

TEST(BenchDevice, UnknownSolverGlobIsAnInputError) {
  SKIP_WITHOUT_GPU();
  BenchOptions o = quick();
  o.solver_glob = "no.such.solver*";
  EXPECT_THROW(Bench b(o), InputError);
}

TEST(BenchDevice, RunAllPrefetchesAndStops) {
  SKIP_WITHOUT_GPU();
  BenchOptions o = quick();
  o.peer_cudnn = false;
  o.verify = VerifyMode::sampled;
  Bench b(o);
  const std::vector<BenchProblem> problems{{parse_conv_problem("conv fwd fp16 nhwc n2 c16 k32 in14x14 f1x1"), 1},
                                           {parse_conv_problem("conv bwd-data fp16 nhwc n2 c16 k32 in14x14 f3x3 pad1x1"), 2},
                                           {parse_conv_problem("conv bwd-weights bf16 nchw n2 c16 k32 in14x14 f3x3"), 3}};
  std::vector<std::string> seen;
  b.run_all(problems, [&](const json& cases) { seen.push_back(cases.at(0)["problem"]); });
  ASSERT_EQ(seen.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(seen[i], to_string(problems[i].problem));  // in order
  seen.clear();
  b.run_all(problems, [&](const json& cases) { seen.push_back(cases.at(0)["problem"]); }, [&] { return seen.size() == 2; });
  EXPECT_EQ(seen.size(), 2u);
}
