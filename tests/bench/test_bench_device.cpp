// The bench on a device: verification before timing, graph-replay timing with repeats, best marking,
// the peers, ceilings, schema; the graph timer itself, including a run that cannot be captured.
// Skipped without a GPU (then only the refusal is checked).
#include <gtest/gtest.h>

#include <set>

#include "bench/bench_timing.hpp"
#include "core/error.hpp"
#include "tests/bench/bench_fixture.hpp"
#include "tests/report/report_fixture.hpp"
#include "bench/bench.hpp"
#include "bench/bench_report.hpp"
#include "verify/runner.hpp"
#ifdef HIPRIM_WITH_GPU
#include "bench/event_series.hpp"
#include "gpu/runtime/device.hpp"
#endif

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

namespace {

#define SKIP_WITHOUT_GPU() \
  if (gpu_json().is_null()) GTEST_SKIP() << "no usable GPU"

BenchOptions quick() {
  BenchOptions o = test_bench::quick_options();
  o.ceilings = false;
  return o;
}

}  // namespace

TEST(BenchDevice, RefusesWithoutAGpu) {
  if (!gpu_json().is_null()) GTEST_SKIP() << "a GPU is present";
  test_bench::expect_refused_without_a_gpu([] { Bench b(quick(), {"conv"}); });
}

TEST(BenchDevice, VerifiesThenTimesEverySolver) {
  SKIP_WITHOUT_GPU();
  for (VerifyMode mode : {VerifyMode::full, VerifyMode::quick, VerifyMode::none})
    for (PeerKind peer : {PeerKind::cudnn, PeerKind::cudnn_legacy}) {
      BenchOptions o = quick();
      o.verify = mode;
      o.peer = peer;
      Bench b(o, {"conv"});
      const auto p = parse_conv_problem("conv fwd fp32 nchw n2 c16 k32 in14x14 f3x3 pad1x1");
      json cases = b.run({make_op_problem(p), 2});
      ASSERT_FALSE(cases.empty());
      int best = 0, timed = 0;
      for (const auto& c : cases) {
        EXPECT_EQ(c["verify"], verify_mode_name(mode));
        EXPECT_EQ(c["count"], 2);
        if (mode == VerifyMode::full && c["status"] == "passed") {
          EXPECT_EQ(c["fill"], "exact");  // integer fills, threshold zero
          EXPECT_EQ(c["exact_fill"]["L"], 16 * 9);
        }
        if (c["timing"].is_object()) {
          ++timed;
          EXPECT_EQ(c["status"], "passed") << c.dump();  // only verified solvers are timed
          EXPECT_EQ(c["timing"]["method"], "graph_replay");
          EXPECT_GE(c["timing"]["runs_per_replay"].get<int>(), 1);
          EXPECT_GE(c["timing"]["repeats"].size(), 1u);
          EXPECT_LE(c["timing"]["min_ms"].get<double>(), c["timing"]["median_ms"].get<double>());
          EXPECT_GT(c["host_ms_per_call"].get<double>(), 0);
          EXPECT_GT(c["tflops"].get<double>(), 0);
        }
        if (c["solver"] == "conv.naive") {
          EXPECT_EQ(c["status"], "passed") << c.dump();
        }
        best += c["best"].get<bool>() ? 1 : 0;
        ASSERT_TRUE(c["peer"].is_object());
        const std::string ps = c["peer"]["status"];
        EXPECT_TRUE(ps == "timed" || ps == "unavailable") << c["peer"].dump();
        if (ps == "timed") {
          EXPECT_EQ(c["peer"]["timing"]["method"], "graph_replay");
          if (mode != VerifyMode::none && !c["peer"]["transform"].get<bool>()) {
            EXPECT_EQ(c["peer"]["check"]["status"], "passed") << c["peer"].dump();
          }
        }
      }
      EXPECT_GE(timed, 1);
      EXPECT_EQ(best, 1);
      const json r = performance_report(machine_json(gpu_json()), b.settings_json(), b.ceilings_json(), b.peer_json(), cases,
                                        "test", b.clocks_json());
      const auto errs = check_report_schema(r);
      EXPECT_TRUE(errs.empty()) << (errs.empty() ? "" : errs.front());
      EXPECT_EQ(b.settings_json()["repeats_run"], 2);
    }
}

TEST(BenchDevice, CeilingsAreMeasured) {
  SKIP_WITHOUT_GPU();
  BenchOptions o = quick();
  o.ceilings = true;
  o.peer = PeerKind::none;
  Bench b(o, {"conv"});
  b.measure_ceilings({DType::bf16});
  const json c = b.ceilings_json();
  EXPECT_GT(c["copy"]["gbps"].get<double>(), 100);  // any GPU copies faster than 100 GB/s
  EXPECT_GT(c["gemm"]["bf16"]["tflops"].get<double>(), 0);
}

TEST(BenchDevice, UnknownSolverGlobIsAnInputError) {
  SKIP_WITHOUT_GPU();
  BenchOptions o = quick();
  o.solver_glob = "no.such.solver*";
  EXPECT_THROW(Bench b(o, {"conv"}), InputError);
  EXPECT_THROW(Bench b(quick(), {"conv", "activ"}), InputError);  // one primitive family a run
}

TEST(BenchDevice, RunAllPrefetchesAndStops) {
  SKIP_WITHOUT_GPU();
  BenchOptions o = quick();
  o.peer = PeerKind::none;
  o.verify = VerifyMode::quick;
  Bench b(o, {"conv"});
  const std::vector<SuiteProblem> problems{{parse_op_problem("conv fwd fp16 nhwc n2 c16 k32 in14x14 f1x1"), 1},
                                           {parse_op_problem("conv bwd-data fp16 nhwc n2 c16 k32 in14x14 f3x3 pad1x1"), 2},
                                           {parse_op_problem("conv bwd-weights bf16 nchw n2 c16 k32 in14x14 f3x3"), 3}};
  std::vector<std::string> lines;
  json cases = b.run_all(problems, [&](const std::string& l) { lines.push_back(l); });
  ASSERT_EQ(lines.size(), 6u);  // 3 problems x 2 repeats
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(lines[i].rfind(problems[i].problem->str(), 0), 0u) << lines[i];  // in order
  EXPECT_EQ(lines[3].rfind("repeat 2: ", 0), 0u) << lines[3];
  lines.clear();
  cases = b.run_all(problems, [&](const std::string& l) { lines.push_back(l); }, [&] { return lines.size() == 2; });
  EXPECT_EQ(lines.size(), 2u);
  std::set<std::string> seen;
  for (const auto& c : cases) seen.insert(c["problem"].get<std::string>());
  EXPECT_EQ(seen.size(), 2u);
}

#ifdef HIPRIM_WITH_GPU
TEST(GraphTimerDevice, TimesCopiesByReplay) {
  SKIP_WITHOUT_GPU();
  gpu::Stream s;
  gpu::DeviceBuffer a(32 << 20, "a"), b(32 << 20, "b");
  GraphTimerOptions o;
  o.graph = GraphTimingOptions{6, 4, 5, 1000};
  const ReplayTiming t = time_graph([&](int) { gpu::copy_device_to_device_async(b.data(), a.data(), a.bytes(), s.handle()); },
                                    3, o, s.handle(), "a copy");
  EXPECT_EQ(t.runs_per_replay, 6);  // two whole rotations of 3 sets
  ASSERT_EQ(t.per_call_ms.size(), 4u);
  for (double v : t.per_call_ms) EXPECT_GT(v, 0.0);
  EXPECT_GT(t.host_ms_per_call, 0.0);
  EXPECT_EQ(t.host_calls, 5);
}

TEST(GraphTimerDevice, AHostSynchronisationCannotBeCaptured) {
  SKIP_WITHOUT_GPU();
  gpu::Stream s;
  gpu::DeviceBuffer a(1 << 20, "a"), b(1 << 20, "b");
  GraphTimerOptions o;
  o.graph = GraphTimingOptions{2, 2, 2, 100};
  auto bad = [&](int) {  // what a defective solver's run() might do
    gpu::copy_device_to_device_async(b.data(), a.data(), a.bytes(), s.handle());
    s.synchronize();
  };
  try {
    (void)time_graph(bad, 1, o, s.handle(), "a run with a host sync");
    FAIL() << "a host synchronisation was captured";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be captured into a graph"), std::string::npos) << e.what();
  }
  // The stream is usable afterwards.
  gpu::copy_device_to_device_async(b.data(), a.data(), a.bytes(), s.handle());
  s.synchronize();
  EXPECT_THROW(gpu::CapturedGraph::capture(nullptr, [] {}, "x"), InputError);
}
#endif
