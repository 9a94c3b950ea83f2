// The bench's host-side parts: byte counts, run statistics, rotation and budget rules, sampled
// verification, performance case JSON, best marking, peer attachment and the weighted totals.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/conv.hpp"
#include "tests/report/report_fixture.hpp"
#include "bench/bench.hpp"
#include "bench/bench_check.hpp"
#include "bench/bench_report.hpp"
#include "verify/report.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using hiprim::testutil::kBwdData1x1;
using hiprim::testutil::kFwd1x1;
using hiprim::testutil::kFwd3x3;
using nlohmann::json;

TEST(BenchCounts, MinBytesAreEveryTensorOnce) {
  // x 2*3*5*5 = 150, w 4*3*3*3 = 108, y 2*4*5*5 = 200 elements of 2 bytes; bias 4 more elements.
  auto p = parse_conv_problem("conv fwd fp16 nchw n2 c3 k4 in5x5 f3x3 pad1x1");
  EXPECT_DOUBLE_EQ(conv_min_bytes(p), (150 + 108 + 200) * 2.0);
  p.bias = true;
  EXPECT_DOUBLE_EQ(conv_min_bytes(p), (150 + 108 + 200 + 4) * 2.0);
  p.dir = ConvDir::bwd_weights;
  p.bias = false;
  p.dtype = DType::fp32;
  EXPECT_DOUBLE_EQ(conv_min_bytes(p), (150 + 108 + 200) * 4.0);  // same tensors in every direction
}

TEST(BenchStats, MedianMinMax) {
  auto t = summarize_runs({3.0, 1.0, 2.0});
  EXPECT_EQ(t.runs, 3);
  EXPECT_DOUBLE_EQ(t.median_ms, 2.0);
  EXPECT_DOUBLE_EQ(t.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.max_ms, 3.0);
  t = summarize_runs({4.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(t.median_ms, 2.5);
  EXPECT_THROW(summarize_runs({}), InputError);
}

RC_GTEST_PROP(BenchStats, MedianSplitsTheRuns, (std::vector<double> raw)) {
  RC_PRE(!raw.empty());
  std::vector<double> runs;
  for (double v : raw) runs.push_back(std::fabs(std::fmod(v, 1e6)));
  const auto t = summarize_runs(runs);
  RC_ASSERT(t.min_ms <= t.median_ms);
  RC_ASSERT(t.median_ms <= t.max_ms);
  const auto at_most = std::count_if(runs.begin(), runs.end(), [&](double v) { return v <= t.median_ms; });
  const auto at_least = std::count_if(runs.begin(), runs.end(), [&](double v) { return v >= t.median_ms; });
  RC_ASSERT(2 * at_most >= static_cast<long>(runs.size()));
  RC_ASSERT(2 * at_least >= static_cast<long>(runs.size()));
}

TEST(BenchRules, RotationSetsCoverThreeL2) {
  const std::size_t mb = 1 << 20;
  EXPECT_EQ(rotation_sets(10 * mb, 50 * mb), 15);     // ceil(150 / 10)
  EXPECT_EQ(rotation_sets(11 * mb, 50 * mb), 14);     // ceil(150 / 11) = 14 (13.6)
  EXPECT_EQ(rotation_sets(200 * mb, 50 * mb), 1);     // one set is already 4 x L2
  EXPECT_EQ(rotation_sets(1024, 50 * mb), kMaxRotationSets);
  EXPECT_EQ(rotation_sets(0, 50 * mb), 1);
}

TEST(BenchRules, RepsShrinkToTheBudgetButNotBelowTheMinimum) {
  EXPECT_EQ(reps_within_budget(20, 1.0, 1000), 20);
  EXPECT_EQ(reps_within_budget(20, 100.0, 1000), 10);
  EXPECT_EQ(reps_within_budget(20, 600.0, 1000), kMinReps);
  EXPECT_EQ(reps_within_budget(20, 0.0, 1000), 20);
}

TEST(BenchCheck, VerifyModeNamesRoundTrip) {
  for (VerifyMode m : {VerifyMode::none, VerifyMode::sampled, VerifyMode::full})
    EXPECT_EQ(parse_verify_mode(verify_mode_name(m)), m);
  EXPECT_FALSE(parse_verify_mode("some"));
}

TEST(BenchCheck, SampleProblemTakesGroupZeroAndTheFirstChannels) {
  auto p = parse_conv_problem("conv fwd fp32 nchw n2 c8 k24 in6x6 f3x3 g2");
  auto q = sample_problem(p, 8);
  EXPECT_EQ(q.groups, 1);
  EXPECT_EQ(q.c, 4);  // C/G
  EXPECT_EQ(q.k, 8);  // min(8, K/G = 12)
  p.dir = ConvDir::bwd_data;
  q = sample_problem(p, 3);
  EXPECT_EQ(q.c, 3);   // min(3, C/G = 4)
  EXPECT_EQ(q.k, 12);  // K/G
  EXPECT_EQ(q.reduction_length(), p.reduction_length());
  p.dir = ConvDir::bwd_weights;
  EXPECT_EQ(sample_problem(p, 8).reduction_length(), p.reduction_length());
  EXPECT_THROW(sample_problem(p, 0), InputError);
}

TEST(BenchCheck, PrefixBoxKeepsLogicalValues) {
  HostTensor t(TensorDesc::packed(DType::fp32, {2, 3, 4}, true));
  for_each_index(t.desc.dims, [&](const Dims& i) { t.at(i) = static_cast<float>(100 * i[0] + 10 * i[1] + i[2]); });
  HostTensor b = prefix_box(t, TensorDesc::packed(DType::fp32, {1, 2, 4}, false));
  EXPECT_EQ(b.at({0, 1, 3}), 13.0f);
  EXPECT_EQ(b.at({0, 0, 2}), 2.0f);
  EXPECT_THROW(prefix_box(t, TensorDesc::packed(DType::fp32, {3, 1, 1}, false)), InputError);
}

namespace {

// The reference's output of the prepared case rounded to the dtype: what a correct solver returns.
HostTensor correct_output(const PreparedCase& c) {
  const auto& e = c.expected(false);
  HostTensor got(output_desc(c.problem()));
  for_each_index(got.desc.dims, [&](const Dims& i) {
    got.at(i) = round_to(c.problem().dtype, e.value[static_cast<std::size_t>(e.desc.offset(i))]);
  });
  return got;
}

}  // namespace

TEST(BenchCheck, SampledCatchesWrongSliceAndUnwrittenElements) {
  // K = 16 > kSampleChannels: channels 8..15 lie outside the sample.
  RunOptions ro;
  ro.fill = FillTier::bounded;
  const PreparedCase c(parse_conv_problem("conv fwd bf16 nhwc n2 c5 k16 in6x6 f3x3 pad1x1"), ro);
  HostTensor got = correct_output(c);
  EXPECT_EQ(check_output(c, got, VerifyMode::sampled).status, Status::passed);
  EXPECT_EQ(check_output(c, got, VerifyMode::full).status, Status::passed);

  HostTensor wrong_in_slice = got;
  wrong_in_slice.at({1, 7, 2, 3}) += 0.5f;
  EXPECT_EQ(check_output(c, wrong_in_slice, VerifyMode::sampled).status, Status::failed);

  HostTensor wrong_outside = got;
  wrong_outside.at({1, 12, 2, 3}) += 0.5f;  // sampled does not look there (documented); full does
  EXPECT_EQ(check_output(c, wrong_outside, VerifyMode::sampled).status, Status::passed);
  EXPECT_EQ(check_output(c, wrong_outside, VerifyMode::full).status, Status::failed);

  HostTensor unwritten = got;
  unwritten.at({0, 15, 5, 5}) = std::nanf("");
  const Verdict v = check_output(c, unwritten, VerifyMode::sampled);
  EXPECT_EQ(v.status, Status::failed);
  EXPECT_NE(v.reason.find("not finite"), std::string::npos) << v.reason;
  EXPECT_THROW(check_output(c, got, VerifyMode::none), InputError);
}

RC_GTEST_PROP(BenchCheck, CorrectOutputsPassSampledAndFull, ()) {
  const auto dir = *rc::gen::element(ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights);
  const auto g = *rc::gen::inRange<std::int64_t>(1, 3);
  ConvProblem p;
  p.dir = dir;
  p.dtype = *rc::gen::element(DType::fp32, DType::fp16, DType::bf16);
  p.channels_last = *rc::gen::arbitrary<bool>();
  p.mode = *rc::gen::element(ConvMode::conv, ConvMode::trans);
  p.groups = g;
  p.n = *rc::gen::inRange<std::int64_t>(1, 3);
  p.c = g * *rc::gen::inRange<std::int64_t>(1, 5);
  p.k = g * *rc::gen::inRange<std::int64_t>(1, 12);
  p.in = {*rc::gen::inRange<std::int64_t>(2, 7), *rc::gen::inRange<std::int64_t>(2, 7)};
  p.filter = {*rc::gen::inRange<std::int64_t>(1, 4), *rc::gen::inRange<std::int64_t>(1, 4)};
  p.stride = {*rc::gen::inRange<std::int64_t>(1, 3), 1};
  p.pad = {0, *rc::gen::inRange<std::int64_t>(0, 2)};
  RC_PRE(p.valid());
  RunOptions ro;
  ro.fill = FillTier::bounded;
  ro.seed = *rc::gen::inRange<std::uint64_t>(1, 1000);
  const PreparedCase c(p, ro);
  const HostTensor got = correct_output(c);
  RC_ASSERT(check_output(c, got, VerifyMode::full).status == Status::passed);
  RC_ASSERT(check_output(c, got, VerifyMode::sampled).status == Status::passed);
}

TEST(BenchReport, PerfCaseRatesAndFractions) {
  // 1.0 ms for kFwd3x3: flops = 2 * 32*64*56*56*64*9 = 7.398752256e9 -> 7.398752256 TFLOP/s.
  json c = testutil::perf_case(kFwd3x3, "conv.gemm.im2col", Status::passed, 1.0, 3);
  EXPECT_NEAR(c["tflops"].get<double>(), 7.398752256, 1e-9);
  EXPECT_NEAR(c["fraction_of_gemm_ceiling"].get<double>(), 7.398752256 / 700, 1e-12);
  // bytes = (x 32*64*56*56 + w 64*64*9 + y 32*64*56*56) * 2 = 25763840 -> 25.76384 GB/s at 1 ms
  EXPECT_NEAR(c["bytes"].get<double>(), 25763840.0, 0.5);
  EXPECT_NEAR(c["gbps"].get<double>(), 25.76384, 1e-9);
  EXPECT_NEAR(c["fraction_of_copy_ceiling"].get<double>(), 25.76384 / 3000, 1e-12);
  EXPECT_EQ(c["time_ms"].get<double>(), 1.0);
  EXPECT_EQ(c["count"], 3);
  json u = testutil::perf_case(kFwd3x3, "conv.naive", Status::unsupported, -1, 3);
  EXPECT_TRUE(u["timing"].is_null());
  EXPECT_TRUE(u["tflops"].is_null());
  EXPECT_TRUE(u["fraction_of_gemm_ceiling"].is_null());
}

TEST(BenchReport, BestIsTheFastestPassedTimedCase) {
  json cases = json::array({testutil::perf_case(kFwd3x3, "a", Status::passed, 2.0, 1),
                            testutil::perf_case(kFwd3x3, "b", Status::failed, 0.5, 1),  // fast but wrong
                            testutil::perf_case(kFwd3x3, "c", Status::passed, 1.5, 1),
                            testutil::perf_case(kFwd3x3, "d", Status::unsupported, -1, 1)});
  mark_best(cases);
  std::vector<std::string> best;
  for (auto& c : cases)
    if (c["best"].get<bool>()) best.push_back(c["solver"]);
  EXPECT_EQ(best, std::vector<std::string>{"c"});
}

TEST(BenchReport, PeerSpeedupAndDisagreements) {
  json cases = json::array({testutil::perf_case(kFwd3x3, "a", Status::passed, 2.0, 1),
                            testutil::perf_case(kFwd3x3, "b", Status::failed, 0.5, 1)});
  attach_peer(cases, testutil::peer(1.0, Status::failed));
  EXPECT_DOUBLE_EQ(cases[0]["speedup_vs_peer"].get<double>(), 0.5);  // peer 1.0 ms / hiprim 2.0 ms
  ASSERT_TRUE(cases[0]["peer_disagreement"].is_string());  // hiprim passed, cuDNN failed
  const std::string msg = cases[0]["peer_disagreement"];
  EXPECT_NE(msg.find("hiprim a: passed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cuDNN IMPLICIT_PRECOMP_GEMM: failed"), std::string::npos) << msg;
  EXPECT_TRUE(cases[1]["peer_disagreement"].is_null());  // both failed: they agree

  attach_peer(cases, testutil::peer(1.0, Status::failed, /*transform=*/true));
  EXPECT_TRUE(cases[0]["peer_disagreement"].is_null());  // the bound does not apply to Winograd
  attach_peer(cases, testutil::peer(1.0, Status::passed));
  EXPECT_TRUE(cases[0]["peer_disagreement"].is_null());
  EXPECT_TRUE(cases[1]["peer_disagreement"].is_string());
}

TEST(BenchReport, TotalsWeightByLayerCount) {
  json cases = json::array();
  json a = json::array({testutil::perf_case(kFwd3x3, "s", Status::passed, 2.0, 3)});
  json b = json::array({testutil::perf_case(kFwd1x1, "s", Status::passed, 5.0, 1)});
  json c = json::array({testutil::perf_case(kBwdData1x1, "s", Status::failed, -1, 2)});
  mark_best(a), mark_best(b), mark_best(c);
  attach_peer(a, testutil::peer(1.0, Status::passed));
  attach_peer(b, testutil::peer(4.0, Status::passed));
  attach_peer(c, testutil::peer(0.5, Status::passed));
  for (json* g : {&a, &b, &c})
    for (auto& x : *g) cases.push_back(x);
  const json totals = performance_totals(cases);
  const json* fwd = nullptr;
  const json* bwd = nullptr;
  const json* all = nullptr;
  for (auto& t : totals) {
    if (t["dir"] == "fwd") fwd = &t;
    if (t["dir"] == "bwd-data") bwd = &t;
    if (t["dir"] == "all") all = &t;
  }
  ASSERT_TRUE(fwd && bwd && all);
  EXPECT_EQ((*fwd)["layers"], 4);
  EXPECT_DOUBLE_EQ((*fwd)["hiprim_ms"].get<double>(), 3 * 2.0 + 1 * 5.0);
  EXPECT_DOUBLE_EQ((*fwd)["peer_ms"].get<double>(), 3 * 1.0 + 1 * 4.0);
  EXPECT_DOUBLE_EQ((*fwd)["speedup_vs_peer"].get<double>(), 7.0 / 11.0);
  EXPECT_EQ((*bwd)["hiprim_missing"], 1);  // its only case failed: no time
  EXPECT_TRUE((*bwd)["speedup_vs_peer"].is_null());
  EXPECT_EQ((*all)["problems"], 3);
  EXPECT_EQ((*all)["layers"], 6);
  EXPECT_DOUBLE_EQ((*all)["peer_ms"].get<double>(), 7.0 + 2 * 0.5);
  EXPECT_TRUE((*all)["speedup_vs_peer"].is_null());  // partial

  const json r = testutil::perf_report(cases);
  const auto errs = check_report_schema(r);
  EXPECT_TRUE(errs.empty()) << (errs.empty() ? "" : errs.front());
  EXPECT_EQ(r["summary"]["passed"], 2);
  EXPECT_EQ(r["summary"]["failed"], 1);
}

TEST(BenchReport, SchemaRejectsBrokenPerformanceCases) {
  json cases = json::array({testutil::perf_case(kFwd3x3, "a", Status::passed, 2.0, 1)});
  json r = testutil::perf_report(cases);
  ASSERT_TRUE(check_report_schema(r).empty());
  json bad = r;
  bad["cases"][0]["verify"] = "mostly";
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["cases"][0]["timing"]["runs"] = -1;
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["cases"][0].erase("count");
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad.erase("totals");
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["cases"][0]["peer"] = json{{"name", "cudnn"}, {"status", "fast"}, {"reason", ""}};
  EXPECT_FALSE(check_report_schema(bad).empty());
}
