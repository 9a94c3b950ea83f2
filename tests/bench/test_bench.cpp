// The bench's host-side parts: byte counts, quick verification, the tolerance line, performance case
// JSON, best marking, peer attachment and the weighted totals (per repeat and host overhead too).
// The clock's arithmetic is tested in test_bench_clock.cpp.
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
#include "verify/conv_check.hpp"
#include "verify/report.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using hiprim::testutil::kBwdData1x1;
using hiprim::testutil::kFwd1x1;
using hiprim::testutil::kFwd3x3;
using nlohmann::json;

TEST(BenchCheck, VerifyModeNamesRoundTrip) {
  for (VerifyMode m : {VerifyMode::none, VerifyMode::quick, VerifyMode::full})
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
  const auto& e = conv_expected(c, false);
  HostTensor got(output_desc(conv_problem(c)));
  for_each_index(got.desc.dims, [&](const Dims& i) {
    got.at(i) = round_to(conv_problem(c).dtype, e.value[static_cast<std::size_t>(e.desc.offset(i))]);
  });
  return got;
}

}  // namespace

TEST(BenchCheck, QuickCatchesWrongSliceAndUnwrittenElements) {
  // K = 16 > kSampleChannels: channels 8..15 lie outside the sample.
  RunOptions ro;
  ro.fill = FillTier::bounded;
  const PreparedCase c(parse_conv_problem("conv fwd bf16 nhwc n2 c5 k16 in6x6 f3x3 pad1x1"), ro);
  HostTensor got = correct_output(c);
  EXPECT_EQ(check_output(c, got, VerifyMode::quick).status, Status::passed);
  EXPECT_EQ(check_output(c, got, VerifyMode::full).status, Status::passed);

  HostTensor wrong_in_slice = got;
  wrong_in_slice.at({1, 7, 2, 3}) += 0.5f;
  EXPECT_EQ(check_output(c, wrong_in_slice, VerifyMode::quick).status, Status::failed);

  HostTensor wrong_outside = got;
  wrong_outside.at({1, 12, 2, 3}) += 0.5f;  // quick does not look there (documented); full does
  EXPECT_EQ(check_output(c, wrong_outside, VerifyMode::quick).status, Status::passed);
  EXPECT_EQ(check_output(c, wrong_outside, VerifyMode::full).status, Status::failed);

  HostTensor unwritten = got;
  unwritten.at({0, 15, 5, 5}) = std::nanf("");
  const Verdict v = check_output(c, unwritten, VerifyMode::quick);
  EXPECT_EQ(v.status, Status::failed);
  EXPECT_NE(v.reason.find("not finite"), std::string::npos) << v.reason;
  EXPECT_THROW(check_output(c, got, VerifyMode::none), InputError);
}

RC_GTEST_PROP(BenchCheck, CorrectOutputsPassQuickAndFull, ()) {
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
  RC_ASSERT(check_output(c, got, VerifyMode::quick).status == Status::passed);
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

TEST(BenchReport, ToleranceLineNamesTheFactorThatApplies) {
  const auto p = parse_conv_problem("conv fwd bf16 nhwc n2 c8 k8 in6x6 f3x3 pad1x1");
  const std::string exact2 = bench_tolerance_string(tolerance_for(p, FillTier::exact, 2.0));
  EXPECT_NE(exact2.find("exact:"), std::string::npos) << exact2;
  EXPECT_NE(exact2.find("algorithm factor 2 "), std::string::npos) << exact2;  // an .mma solver: 2, not 1
  const std::string exact1 = bench_tolerance_string(tolerance_for(p, FillTier::exact, 1.0));
  EXPECT_NE(exact1.find("algorithm factor 1 "), std::string::npos) << exact1;
  const std::string bounded2 = bench_tolerance_string(tolerance_for(p, FillTier::bounded, 2.0));
  EXPECT_NE(bounded2.find("(2*gamma("), std::string::npos) << bounded2;  // describe() has it in the formula
  EXPECT_EQ(bounded2.find("algorithm factor"), std::string::npos) << bounded2;
}

TEST(BenchReport, PerfCaseStatesTheExactFillAndTheHostOverhead) {
  const ConvProblem p = parse_conv_problem(kFwd3x3);
  PerfCaseInput in;
  in.flops = p.flops();
  in.bytes = p.bytes();
  in.fill_range = 4;
  in.reduction_length = p.reduction_length();  // 64 x 3 x 3 = 576
  std::vector<ReplayTiming> reps(2);
  for (auto& r : reps) {
    r.runs_per_replay = 20;
    r.host_ms_per_call = 0.004;
  }
  reps[0].per_call_ms = {1.0, 1.1, 0.9};
  reps[1].per_call_ms = {1.2, 1.3, 1.25};
  in.timing = combine_repeats(reps);
  const json c = perf_case_json(testutil::record(kFwd3x3, "s", Status::passed), in);
  EXPECT_EQ(c["exact_fill"]["r"], 4);
  EXPECT_EQ(c["exact_fill"]["L"], 576);
  EXPECT_DOUBLE_EQ(c["exact_fill"]["max_partial_sum"].get<double>(), 576 * 16 + 4);
  EXPECT_DOUBLE_EQ(c["host_ms_per_call"].get<double>(), 0.004);
  EXPECT_DOUBLE_EQ(c["time_ms"].get<double>(), 0.5 * (1.0 + 1.25));  // median of the two repeat medians
  EXPECT_EQ(c["timing"]["method"], "graph_replay");
  EXPECT_EQ(c["timing"]["repeats"].size(), 2u);
  EXPECT_TRUE(c["timing_error"].is_null());
  in.fill_range = 0;
  EXPECT_TRUE(perf_case_json(testutil::record(kFwd3x3, "s", Status::passed), in)["exact_fill"].is_null());
}

namespace {

// A case (and its peer) timed over the given per-repeat medians.
json repeated_case(const std::string& problem, const std::string& solver, std::vector<double> medians, std::int64_t count,
                   double host_ms) {
  const ConvProblem p = parse_conv_problem(problem);
  PerfCaseInput in;
  in.count = count;
  in.flops = p.flops();
  in.bytes = p.bytes();
  std::vector<ReplayTiming> reps;
  for (double m : medians) {
    ReplayTiming r;
    r.runs_per_replay = 10;
    r.per_call_ms = {m};
    r.host_ms_per_call = host_ms;
    reps.push_back(r);
  }
  in.timing = combine_repeats(reps);
  return perf_case_json(testutil::record(problem, solver, Status::passed), in);
}

json repeated_peer(std::vector<double> medians, double host_ms) {
  PeerResult r;
  r.status = "timed";
  r.algo = "engine7";
  r.math = "SPLIT_K=1";
  std::vector<ReplayTiming> reps;
  for (double m : medians) {
    ReplayTiming t;
    t.runs_per_replay = 10;
    t.per_call_ms = {m};
    t.host_ms_per_call = host_ms;
    reps.push_back(t);
  }
  r.timing = combine_repeats(reps);
  return peer_result_json(r, 1e9, 1e8);
}

}  // namespace

TEST(BenchReport, TotalsPerRepeatAndHostOverhead) {
  // Problem A (count 3): hiprim 2, 3, 2.5 ms over the repeats, peer 1, 1, 1; B (count 1): hiprim 5, 4, 6, peer 4, 5, 4.
  json a = json::array({repeated_case(kFwd3x3, "s", {2.0, 3.0, 2.5}, 3, 0.010)});
  json b = json::array({repeated_case(kFwd1x1, "s", {5.0, 4.0, 6.0}, 1, 0.020)});
  mark_best(a), mark_best(b);
  attach_peer(a, repeated_peer({1.0, 1.0, 1.0}, 0.050));
  attach_peer(b, repeated_peer({4.0, 5.0, 4.0}, 0.060));
  json cases = json::array({a[0], b[0]});
  const json totals = performance_totals(cases);
  const json* fwd = nullptr;
  for (const json& t : totals)
    if (t["dir"] == "fwd") fwd = &t;
  ASSERT_TRUE(fwd);
  EXPECT_EQ((*fwd)["repeats"], 3);
  // hiprim per repeat: 3 x 2 + 5 = 11, 3 x 3 + 4 = 13, 3 x 2.5 + 6 = 13.5; peer: 3 + 4, 3 + 5, 3 + 4.
  EXPECT_EQ((*fwd)["hiprim_ms_repeats"], json::array({11.0, 13.0, 13.5}));
  EXPECT_EQ((*fwd)["peer_ms_repeats"], json::array({7.0, 8.0, 7.0}));
  EXPECT_DOUBLE_EQ((*fwd)["speedup_vs_peer_repeats"][1].get<double>(), 8.0 / 13.0);
  // The figure: medians of repeats, 2.5 and 5, weighted: 3 x 2.5 + 5 = 12.5.
  EXPECT_DOUBLE_EQ((*fwd)["hiprim_ms"].get<double>(), 12.5);
  EXPECT_DOUBLE_EQ((*fwd)["hiprim_host_ms"].get<double>(), 3 * 0.010 + 0.020);
  EXPECT_DOUBLE_EQ((*fwd)["peer_host_ms"].get<double>(), 3 * 0.050 + 0.060);

  json c = json::array({repeated_case(kBwdData1x1, "s", {1.0}, 2, 0.010)});  // only one repeat
  mark_best(c);
  attach_peer(c, repeated_peer({1.0, 1.0, 1.0}, 0.05));
  cases.push_back(c[0]);
  for (const json& t : performance_totals(cases))
    if (t["dir"] == "all") {
      EXPECT_FALSE(t["hiprim_ms_repeats"][0].is_null());
      EXPECT_TRUE(t["hiprim_ms_repeats"][1].is_null());  // the bwd-data problem has no repeat 2
      EXPECT_TRUE(t["speedup_vs_peer_repeats"][2].is_null());
    }
  const json r = testutil::perf_report(cases);
  const auto errs = check_report_schema(r);
  EXPECT_TRUE(errs.empty()) << (errs.empty() ? "" : errs.front());
  EXPECT_NE(totals_text(r["totals"]).find("11.000"), std::string::npos) << totals_text(r["totals"]);
}

TEST(BenchReport, SchemaVersion2ChecksTheClock) {
  json a = json::array({repeated_case(kFwd3x3, "s", {2.0, 3.0}, 1, 0.01)});
  mark_best(a);
  attach_peer(a, repeated_peer({1.0, 1.0}, 0.05));
  const json r = testutil::perf_report(a);
  ASSERT_TRUE(check_report_schema(r).empty()) << check_report_schema(r).front();
  json bad = r;
  bad["cases"][0]["timing"]["method"] = "stopwatch";
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["cases"][0]["timing"]["repeats"] = json::array();
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["cases"][0]["timing"]["repeats"][0].erase("median_ms");
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["cases"][0]["verify"] = "sampled";  // version 1's name: not in version 2
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad["schema_version"] = 1;  // ...but a version 1 report may say it (v1 machine keys suffice)
  EXPECT_TRUE(check_report_schema(bad).empty()) << check_report_schema(bad).front();
  bad = r;
  bad["clocks"] = "fast";
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["cases"][0]["peer"]["status"] = "failed";  // no plan passed: a version 2 status
  EXPECT_TRUE(check_report_schema(bad).empty());
  bad = r;
  bad["cases"][0].erase("exact_fill");
  EXPECT_FALSE(check_report_schema(bad).empty());
}
