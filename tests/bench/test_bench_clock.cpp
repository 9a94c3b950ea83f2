// The clock's host-side arithmetic (bench/bench_stats.hpp): graph plans under a budget, per-repeat
// statistics and their combination; the shared exact-tier references and the judge
// (bench/reference_cache.hpp). Every expected value is worked out by hand in the test.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "bench/bench_clocks.hpp"
#include "bench/bench_peer.hpp"
#include "bench/bench_stats.hpp"
#include "bench/reference_cache.hpp"
#include "core/error.hpp"
#include "verify/fill.hpp"
#include "verify/conv_check.hpp"
#include "verify/runner.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

TEST(BenchStats, MedianMinMax) {
  auto t = summarize_runs({3.0, 1.0, 2.0});
  EXPECT_EQ(t.runs, 3);
  EXPECT_DOUBLE_EQ(t.median_ms, 2.0);
  EXPECT_DOUBLE_EQ(t.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.max_ms, 3.0);
  t = summarize_runs({4.0, 1.0, 3.0, 2.0});
  EXPECT_DOUBLE_EQ(t.median_ms, 2.5);
  EXPECT_THROW(summarize_runs({}), InputError);
  EXPECT_THROW(median_of({}), InputError);
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

TEST(BenchStats, RepeatsCombineIntoMedianOfMediansAndSpread) {
  // Repeat medians 1.0, 1.2 and 1.1 -> reported 1.1; spread (1.2 - 1.0) / 1.1; min/max over every sample.
  std::vector<ReplayTiming> r(3);
  r[0].per_call_ms = {0.9, 1.0, 1.3};
  r[1].per_call_ms = {1.2, 1.25, 1.15};
  r[2].per_call_ms = {1.1, 1.05, 1.5};
  for (auto& x : r) {
    x.runs_per_replay = 20;
    x.sets = 4;
    x.warmup = 21;
    x.host_calls = 20;
  }
  r[0].host_ms_per_call = 0.010;
  r[1].host_ms_per_call = 0.030;
  r[2].host_ms_per_call = -1;  // not measured: left out of the host median
  const TimingStats t = combine_repeats(r);
  EXPECT_EQ(t.method, "graph_replay");
  EXPECT_DOUBLE_EQ(t.median_ms, 1.1);
  EXPECT_DOUBLE_EQ(t.min_ms, 0.9);
  EXPECT_DOUBLE_EQ(t.max_ms, 1.5);
  ASSERT_TRUE(t.spread);
  EXPECT_NEAR(*t.spread, 0.2 / 1.1, 1e-12);
  EXPECT_EQ(t.runs, 3 * 3 * 20);  // replays x runs per replay, summed over repeats
  ASSERT_EQ(t.repeats.size(), 3u);
  EXPECT_DOUBLE_EQ(t.repeats[1].median_ms, 1.2);
  EXPECT_EQ(t.repeats[1].replays, 3);
  ASSERT_TRUE(t.host_ms_per_call);
  EXPECT_DOUBLE_EQ(*t.host_ms_per_call, 0.020);  // median of 0.010 and 0.030
  const auto j = timing_json(t);
  EXPECT_EQ(j["repeats"].size(), 3u);
  EXPECT_TRUE(j["repeats"][2]["host_ms_per_call"].is_null());
  EXPECT_EQ(j["runs_per_replay"], 20);

  const TimingStats one = combine_repeats({r[0]});
  EXPECT_DOUBLE_EQ(one.median_ms, 1.0);
  EXPECT_FALSE(one.spread);  // no spread from one repeat
  EXPECT_TRUE(timing_json(one)["spread"].is_null());
  EXPECT_THROW(combine_repeats({}), InputError);
  ReplayTiming empty;
  empty.runs_per_replay = 20;
  EXPECT_THROW(combine_repeats({r[0], empty}), InputError);
}

TEST(BenchStats, RotationSetsCoverThreeL2) {
  const std::size_t mb = 1 << 20;
  EXPECT_EQ(rotation_sets(10 * mb, 50 * mb), 15);  // ceil(150 / 10)
  EXPECT_EQ(rotation_sets(11 * mb, 50 * mb), 14);  // ceil(13.6)
  EXPECT_EQ(rotation_sets(200 * mb, 50 * mb), 1);
  EXPECT_EQ(rotation_sets(1024, 50 * mb), kMaxRotationSets);
  EXPECT_EQ(rotation_sets(0, 50 * mb), 1);
}

TEST(BenchPlan, FastRunsGetEveryReplayAndWholeRotations) {
  GraphTimingOptions o;  // reps 20, replays 5, host_calls 20, budget 200 ms
  GraphPlan g = plan_graph(0.01, o, 1);
  EXPECT_EQ(g.runs_per_replay, 20);
  EXPECT_EQ(g.replays, 5);
  EXPECT_EQ(g.host_calls, 20);
  EXPECT_EQ(plan_graph(0.01, o, 15).runs_per_replay, 30);  // rounded up to 2 whole rotations of 15 sets
  EXPECT_EQ(plan_graph(0.01, o, 64).runs_per_replay, 64);
  EXPECT_EQ(plan_graph(0.0, o, 3).runs_per_replay, 21);   // no estimate: no budget cut
}

TEST(BenchPlan, SlowRunsShrinkToTheBudget) {
  GraphTimingOptions o;
  o.budget_ms = 200;
  // 4 ms a run: 20 x 5 x 4 = 400 > 200 -> L = floor(200 / (4 x 5)) = 10; host calls floor(200 / 16) = 12.
  GraphPlan g = plan_graph(4.0, o, 1);
  EXPECT_EQ(g.runs_per_replay, 10);
  EXPECT_EQ(g.replays, 5);
  EXPECT_EQ(g.host_calls, 12);
  // 100 ms a run: L = 1 and 5 x 100 > 200 -> R = max(3, floor(200 / 100)) = 3; host calls 3.
  g = plan_graph(100.0, o, 2);
  EXPECT_EQ(g.runs_per_replay, 1);
  EXPECT_EQ(g.replays, kMinReplays);
  EXPECT_EQ(g.host_calls, kMinHostCalls);
  o.replays = 2;  // never more replays than asked
  EXPECT_EQ(plan_graph(100.0, o, 2).replays, 2);
}

TEST(BenchPlan, BadOptionsAreInputErrors) {
  GraphTimingOptions o;
  o.reps = 0;
  EXPECT_THROW(plan_graph(1, o, 1), InputError);
  o = GraphTimingOptions{};
  o.budget_ms = 0;
  EXPECT_THROW(plan_graph(1, o, 1), InputError);
  EXPECT_THROW(plan_graph(1, GraphTimingOptions{}, 0), InputError);
}

// ---- Shared references ----

TEST(ReferenceCache, ExactFillIgnoresDtypeAndLayout) {
  // The premise of sharing: the same integer at the same logical index for every dtype.
  for (std::uint64_t i : {0ull, 1ull, 12345ull, 987654321ull})
    for (int r : {1, 2, 3, 4}) {
      const float v = fill_value(FillTier::exact, DType::fp32, 9, kTagX, i, r);
      EXPECT_EQ(fill_value(FillTier::exact, DType::fp16, 9, kTagX, i, r), v);
      EXPECT_EQ(fill_value(FillTier::exact, DType::bf16, 9, kTagX, i, r), v);
      EXPECT_EQ(round_to(DType::bf16, v), v);  // exact in every dtype
      EXPECT_EQ(round_to(DType::fp16, v), v);
    }
  // ...which the bounded tier does not have (its reals are rounded to the dtype).
  bool differs = false;
  for (std::uint64_t i = 0; i < 64 && !differs; ++i)
    differs = fill_value(FillTier::bounded, DType::fp32, 9, kTagX, i, 0) != fill_value(FillTier::bounded, DType::bf16, 9, kTagX, i, 0);
  EXPECT_TRUE(differs);
}

TEST(ReferenceCache, KeyIsFp32ChannelsFirst) {
  const auto p = parse_conv_problem("conv bwd-data bf16 nhwc n2 c8 k4 in6x6 f3x3 pad1x1");
  EXPECT_EQ(reference_key(p), "conv bwd-data fp32 nchw n2 c8 k4 in6x6 f3x3 pad1x1 str1x1 dil1x1 g1");
  const auto k = reference_key_problem(p);
  EXPECT_EQ(k.dtype, DType::fp32);
  EXPECT_FALSE(k.channels_last);
  EXPECT_EQ(k.dir, p.dir);
  EXPECT_EQ(k.in, p.in);
  const auto q = parse_conv_problem("conv fwd fp16 ndhwc n1 c2 k3 in4x4x4 f3x3x3");
  EXPECT_EQ(reference_key_problem(q).layout_name(), "ncdhw");
  EXPECT_EQ(reference_key(parse_conv_problem("conv fwd fp16 nhwc n1 c2 k3 in4x4 f3x3")),
            reference_key(parse_conv_problem("conv fwd bf16 nchw n1 c2 k3 in4x4 f3x3")));
}

// The shared reference judges every dtype x layout variant exactly as that variant's own reference.
TEST(ReferenceCache, SharedReferenceEqualsEachVariantsOwn) {
  for (const char* dir : {"fwd", "bwd-data", "bwd-weights"})
    for (const char* dt : {"fp32", "fp16", "bf16"})
      for (const char* lay : {"nchw", "nhwc"}) {
        const auto p = parse_conv_problem(std::string("conv ") + dir + " " + dt + " " + lay + " n2 c6 k4 in7x5 f3x3 pad1x0 str2x1");
        RunOptions ro;
        ro.seed = 5;
        ro.fill = FillTier::exact;
        const PreparedCase own(p, ro);
        const auto& mine = conv_expected(own, false);
        const auto shared = exact_reference(reference_key_problem(p), 5);
        ASSERT_EQ(shared.desc.dims, mine.desc.dims);
        std::size_t differ = 0;
        for_each_index(mine.desc.dims, [&](const Dims& i) {
          differ += shared.value[static_cast<std::size_t>(shared.desc.offset(i))] !=
                    mine.value[static_cast<std::size_t>(mine.desc.offset(i))];
        });
        EXPECT_EQ(differ, 0u) << to_string(p);
      }
}

TEST(ReferenceCache, ComputesOncePerKeyAndDropsAfterTheLastUse) {
  ReferenceCache cache(3);
  const auto a = parse_conv_problem("conv fwd bf16 nhwc n1 c4 k4 in5x5 f3x3");
  const auto b = parse_conv_problem("conv fwd fp32 nchw n1 c4 k4 in5x5 f3x3");  // same key
  cache.expect(a);
  cache.expect(b);
  const auto ra = cache.get(a);
  const auto rb = cache.get(b);
  EXPECT_EQ(ra.get(), rb.get());  // one computation, shared
  EXPECT_EQ(cache.stats().computed, 1);
  EXPECT_EQ(cache.stats().hits, 1);
  cache.release(a);
  EXPECT_EQ(cache.stats().held, 1);  // b still to come
  cache.release(b);
  EXPECT_EQ(cache.stats().held, 0);  // dropped after the last declared use
  (void)cache.get(a);
  EXPECT_EQ(cache.stats().computed, 2);  // gone, so computed again
  EXPECT_THROW(cache.get(parse_conv_problem("conv bwd-weights fp32 nchw n64 c1 k1 in1024x1024 f1x1")), InputError);  // L too long
}

TEST(ExactJudge, CorrectOutputFastAndEveryOtherThroughCompare) {
  const auto p = parse_conv_problem("conv fwd bf16 nhwc n2 c5 k6 in6x6 f3x3 pad1x1");
  const auto ref = std::make_shared<const ref::ConvOutput>(exact_reference(reference_key_problem(p), 1));
  const TensorDesc out = p.y_desc();
  const ExactJudge judge(ref, out);
  const Tolerance tol = tolerance_for(p, FillTier::exact, 2.0);
  HostTensor got(out);
  for_each_index(out.dims, [&](const Dims& i) {
    got.at(i) = round_to(DType::bf16, ref->value[static_cast<std::size_t>(ref->desc.offset(i))]);
  });
  const Verdict ok = judge.judge(got, tol);
  EXPECT_EQ(ok.status, Status::passed) << ok.reason;
  EXPECT_EQ(judge.fast_verdicts(), 1);
  const Verdict direct = compare(got, ref->value, ref->abs_sum, ref->desc, tol);  // the same verdict compare() gives
  EXPECT_EQ(ok.reason, direct.reason);
  EXPECT_EQ(ok.metrics.checked, direct.metrics.checked);

  HostTensor wrong = got;
  wrong.at({1, 3, 2, 2}) += 1.0f;
  const Verdict bad = judge.judge(wrong, tol);
  EXPECT_EQ(bad.status, Status::failed);
  EXPECT_EQ(bad.metrics.mismatches, 1);
  EXPECT_EQ(judge.fast_verdicts(), 1);  // not the fast path

  HostTensor nan = got;
  nan.at({0, 0, 0, 0}) = std::nanf("");  // an unwritten (poisoned) element
  EXPECT_EQ(judge.judge(nan, tol).status, Status::failed);

  EXPECT_THROW(judge.judge(got, tolerance_for(p, FillTier::bounded)), InputError);
  EXPECT_THROW(ExactJudge(ref, p.x_desc()), InputError);
}

// ---- The peer's autotuner ----

namespace {

PeerCandidate cand(const std::string& engine, bool usable = true, bool transform = false) {
  PeerCandidate c;
  c.engine = engine;
  c.usable = usable;
  c.transform = transform;
  if (!usable) c.reason = "does not finalize";
  return c;
}

Verdict verdict(Status s, std::int64_t nonfinite = 0) {
  Verdict v;
  v.status = s;
  v.reason = std::string(status_name(s));
  v.metrics.nonfinite_mismatches = nonfinite;
  v.metrics.mismatches = s == Status::passed ? 0 : 7;
  return v;
}

}  // namespace

TEST(PeerAutotune, FastestPassedPlanWinsAndAFastWrongOneDoesNot) {
  const std::vector<PeerCandidate> c{cand("e0"), cand("e1"), cand("e2", false), cand("e3", true, true), cand("e4"), cand("e5")};
  const std::vector<Status> checks{Status::passed, Status::failed, Status::passed, Status::failed, Status::passed, Status::passed};
  const std::vector<double> times{2.0, 0.5, 0.1, 0.3, 1.5, 9.0};
  std::vector<int> checked, timed;
  auto check = [&](int i) {
    checked.push_back(i);
    if (i == 5) throw RuntimeError("plan 5 crashed");
    return verdict(checks[static_cast<std::size_t>(i)]);
  };
  auto time = [&](int i) {
    timed.push_back(i);
    return times[static_cast<std::size_t>(i)];
  };
  const AutotuneResult r = autotune(c, AutotuneRules{}, check, time);
  EXPECT_EQ(checked, (std::vector<int>{0, 1, 3, 4, 5}));  // the unusable plan is neither checked nor timed
  EXPECT_EQ(timed, (std::vector<int>{0, 1, 3, 4}));        // every usable plan that ran is timed
  ASSERT_EQ(r.selected, 4);                                 // 1.5 ms: e1 (0.5 ms) failed, e3 is a transform
  EXPECT_EQ(r.plans[1].status, "failed");
  EXPECT_EQ(r.plans[2].status, "not usable");
  EXPECT_EQ(r.plans[3].status, "transform");
  EXPECT_EQ(r.plans[5].status, "error");
  EXPECT_NE(r.plans[5].reason.find("crashed"), std::string::npos);
  const json j = autotune_json(r, AutotuneRules{});
  EXPECT_EQ(j["plans"], 6);
  EXPECT_EQ(j["usable"], 5);
  EXPECT_EQ(j["passed"], 2);
  EXPECT_EQ(j["failed"], 1);
  EXPECT_EQ(j["transform"], 1);
  EXPECT_EQ(j["errors"], 1);
  EXPECT_EQ(j["plans_detail"][4]["median_ms"], 1.5);

  AutotuneRules allow;
  allow.allow_transforms = true;
  EXPECT_EQ(autotune(c, allow, check, time).selected, 3);  // the transform plan, finite output
  auto nonfinite = [&](int i) { return i == 3 ? verdict(Status::failed, 5) : check(i); };
  EXPECT_EQ(autotune(c, allow, nonfinite, time).selected, 4);  // NaN where the reference is finite: never
}

TEST(PeerAutotune, NoPassedPlanSaysWhyAndVerifyOffTakesTheFastest) {
  const std::vector<PeerCandidate> c{cand("e0"), cand("e1")};
  auto fail = [](int) { return verdict(Status::failed); };
  auto time = [](int i) { return i == 0 ? 2.0 : 1.0; };
  const AutotuneResult r = autotune(c, AutotuneRules{}, fail, time);
  EXPECT_EQ(r.selected, -1);
  EXPECT_NE(r.reason.find("2 failed"), std::string::npos) << r.reason;
  AutotuneRules off;
  off.verify = false;
  const AutotuneResult u = autotune(c, off, [](int) -> Verdict { throw RuntimeError("must not check"); }, time);
  EXPECT_EQ(u.selected, 1);
  EXPECT_EQ(u.plans[1].status, "not checked");
  EXPECT_EQ(autotune({}, AutotuneRules{}, fail, time).selected, -1);
}

TEST(PeerKinds, NamesRoundTrip) {
  for (PeerKind k : {PeerKind::none, PeerKind::cudnn, PeerKind::cudnn_legacy}) EXPECT_EQ(parse_peer_kind(peer_kind_name(k)), k);
  EXPECT_EQ(peer_kind_name(PeerKind::cudnn), "cudnn");  // the default --peer is the graph API
  EXPECT_FALSE(parse_peer_kind("miopen"));
}

// ---- The clock log ----

TEST(ClockLog, SummaryIsMinMedianMaxOfEachQuantity) {
  std::vector<ClockReading> rs(3);
  rs[0].sm_mhz = 1980;
  rs[1].sm_mhz = 1755;
  rs[2].sm_mhz = 1980;
  rs[0].mem_mhz = rs[1].mem_mhz = 3201;  // the third reading lacks it
  rs[0].throttle_reasons = 0;
  rs[1].throttle_reasons = 0x4;  // one sample with a reason bit set
  const json s = clock_summary(rs);
  EXPECT_EQ(s["samples"], 3);
  EXPECT_EQ(s["sm_mhz"]["min"], 1755.0);
  EXPECT_EQ(s["sm_mhz"]["median"], 1980.0);
  EXPECT_EQ(s["sm_mhz"]["max"], 1980.0);
  EXPECT_EQ(s["mem_mhz"]["samples"], 2);
  EXPECT_TRUE(s["power_w"].is_null());
  EXPECT_EQ(s["throttled_samples"], 1);
  EXPECT_TRUE(clock_summary({})["sm_mhz"].is_null());
}

TEST(ClockLog, WithoutNvmlItSaysWhy) {
  ClockLog log;
  if (log.available()) GTEST_SKIP() << "NVML is available here";
  log.sample(1, 0);
  EXPECT_TRUE(log.readings().empty());
  const json j = log.report_json();
  EXPECT_FALSE(j["available"].get<bool>());
  EXPECT_FALSE(j["reason"].get<std::string>().empty());
}

TEST(ExactJudge, StoredBytesAreJudgedWithoutConversionWhenCorrect) {
  const auto p = parse_conv_problem("conv bwd-data fp16 nchw n2 c6 k4 in7x7 f3x3 pad1x1");
  const auto ref = std::make_shared<const ref::ConvOutput>(exact_reference(reference_key_problem(p), 2));
  const ExactJudge judge(ref, p.x_desc());
  const Tolerance tol = tolerance_for(p, FillTier::exact, 2.0);
  HostTensor got(p.x_desc());
  for_each_index(got.desc.dims, [&](const Dims& i) {
    got.at(i) = round_to(DType::fp16, ref->value[static_cast<std::size_t>(ref->desc.offset(i))]);
  });
  std::vector<unsigned char> bytes = got.to_bytes();
  const Verdict ok = judge.judge_bytes(bytes, tol);
  EXPECT_EQ(ok.status, Status::passed) << ok.reason;
  EXPECT_EQ(judge.fast_verdicts(), 1);
  bytes[6] ^= 0x40;  // one element's bits changed
  const Verdict bad = judge.judge_bytes(bytes, tol);
  EXPECT_EQ(bad.status, Status::failed);
  EXPECT_EQ(bad.metrics.mismatches, 1);
  bytes.assign(bytes.size(), 0xFF);  // the poison: every element NaN
  EXPECT_EQ(judge.judge_bytes(bytes, tol).metrics.mismatches, got.desc.elements());
  bytes.pop_back();
  EXPECT_THROW(judge.judge_bytes(bytes, tol), InputError);
}
