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
