// The op bench's host-side parts: the resnet50_ops suite (every line parses, is canonical, and counts
// ResNet-50's layers), batch/dtype/layout rewrites, --op selection, byte and GB/s arithmetic, op
// groups in the totals, and op entries through the report tools (schema, round trip, render, diff).
#include <gtest/gtest.h>

#include <numeric>

#include "core/error.hpp"
#include "tests/report/report_fixture.hpp"
#include "bench/bench_ops.hpp"
#include "bench/bench_ops_select.hpp"
#include "bench/bench_report.hpp"
#include "verify/report.hpp"
#include "report/report_diff.hpp"
#include "report/report_render.hpp"
#include "verify/suite.hpp"
#include "verify/suite_data.hpp"
#include "verify/suite_rewrite.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

namespace {

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Sum of the counts of the suite's lines whose problem string starts with `prefix`.
std::int64_t counted(const std::string& prefix) {
  std::int64_t n = 0;
  for (const auto& l : counted_lines(embedded_suite_file("resnet50_ops.txt"), "resnet50_ops.txt"))
    if (l.problem.rfind(prefix, 0) == 0) n += l.count;
  return n;
}

// A timed op case of `problem`: median_ms < 0 means not timed; copy ceiling 3000 GB/s.
json op_case(const std::string& problem, const std::string& solver, Status st, double median_ms, std::int64_t count) {
  const OpProblemPtr p = parse_op_problem(problem);
  PerfCaseInput in;
  in.count = count;
  in.flops = p->flops();
  in.bytes = p->bytes();
  in.copy_ceiling_gbps = 3000;
  if (median_ms >= 0) in.timing = testutil::timing_around(median_ms);
  return perf_case_json(testutil::record(problem, solver, st), in);
}

const std::string kBnorm = "bnorm fwd-train spatial bf16 nhwc n32 c256 in56x56 eps1e-05 momentum0.1";
const std::string kRelu = "activ fwd relu bf16 nhwc n32 c256 in56x56";

// One problem's cases, best marked, the "unavailable" peer attached (as the op bench does).
json problem_cases(std::vector<json> cs) {
  json cases = json::array();
  for (auto& c : cs) cases.push_back(std::move(c));
  mark_best(cases);
  PeerResult peer;
  peer.status = "unavailable";
  peer.reason = "no op peer";
  attach_peer(cases, peer_result_json(peer, 0, 0));
  return cases;
}

json op_report() {
  json cases = json::array();
  for (json part : {problem_cases({op_case(kBnorm, "bnorm.block_group", Status::passed, 0.05, 4),
                                   op_case(kBnorm, "bnorm.thread_group", Status::passed, 0.08, 4)}),
                    problem_cases({op_case(kRelu, "activ.elementwise", Status::passed, 0.04, 3)})})
    for (auto& c : part) cases.push_back(c);
  json r = testutil::perf_report(cases);
  r["ceilings"]["gemm"] = json::object();
  return r;
}

}  // namespace

TEST(Resnet50Ops, EveryLineIsACanonicalValidProblem) {
  const auto lines = counted_lines(embedded_suite_file("resnet50_ops.txt"), "resnet50_ops.txt");
  ASSERT_GE(lines.size(), 70u);
  for (const auto& l : lines) {
    SCOPED_TRACE("resnet50_ops.txt:" + std::to_string(l.line));
    OpProblemPtr p;
    ASSERT_NO_THROW(p = parse_op_problem(l.problem)) << l.problem;
    EXPECT_EQ(p->str(), l.problem);  // written canonically: the line is the report key
    EXPECT_TRUE(p->valid());
    EXPECT_GE(l.count, 0);
    EXPECT_EQ(op_problem_batch(*p), kResnet50OpsBatch);
  }
}

TEST(Resnet50Ops, CountsAreResNet50Layers) {
  // 53 batch norms (1 stem + 3 per bottleneck x 16 + 4 downsample), 49 ReLUs (1 + 3 x 16), 16 adds.
  EXPECT_EQ(counted("bnorm fwd-train"), 53);
  EXPECT_EQ(counted("bnorm fwd-infer"), 53);
  EXPECT_EQ(counted("bnorm bwd"), 53);
  EXPECT_EQ(counted("activ fwd relu"), 49);
  EXPECT_EQ(counted("activ bwd relu"), 49);
  EXPECT_EQ(counted("tensorop add"), 16);
  EXPECT_EQ(counted("pool fwd max"), 1);
  EXPECT_EQ(counted("lrn"), 0);  // extras
}

TEST(Resnet50Ops, BatchDtypeAndLayoutComeFromTheOptions) {
  SuiteOptions so;
  so.batch = 8;
  so.dtypes = {DType::bf16, DType::fp16};
  so.channels_last = {true};
  const auto all = load_suite("resnet50_ops", so, SuitePart::ops);
  const auto lines = counted_lines(embedded_suite_file("resnet50_ops.txt"), "resnet50_ops.txt");
  ASSERT_EQ(all.size(), 2 * lines.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const OpProblem& p = *all[i].problem;
    SCOPED_TRACE(p.str());
    EXPECT_TRUE(p.valid());
    EXPECT_EQ(op_problem_batch(p), 8);
    EXPECT_EQ(all[i].count, lines[i % lines.size()].count);
    EXPECT_EQ(p.tensors().front().desc.dtype, i < lines.size() ? DType::bf16 : DType::fp16);  // x (or a)
    EXPECT_TRUE(has(p.str(), " nhwc "));
  }
  so.batch = 0;
  EXPECT_THROW(load_suite("resnet50_ops", so, SuitePart::ops), InputError);
  // For the op bench only: check does not load it.
  EXPECT_THROW(load_suite("resnet50_ops", {}, SuitePart::all), InputError);
}

TEST(Resnet50Ops, RewritesTouchOnlyTheBatchDtypeAndLayout) {
  EXPECT_EQ(rebatch_problem("tensorop add fp32 nchw a32x256x56x56 b1x256x1x1 alpha1=1 alpha2=1 beta=0", 32, 4),
            "tensorop add fp32 nchw a4x256x56x56 b1x256x1x1 alpha1=1 alpha2=1 beta=0");
  EXPECT_EQ(rebatch_problem("reduce add fp32 nchw dims32x32x7x7 over0x2x3 nan_ignore", 32, 2),
            "reduce add fp32 nchw dims2x32x7x7 over0x2x3 nan_ignore");
  EXPECT_EQ(rebatch_problem("bnorm bwd spatial fp32 nchw n32 c32 in32x32 eps1e-05", 32, 64),
            "bnorm bwd spatial fp32 nchw n64 c32 in32x32 eps1e-05");
  EXPECT_EQ(with_dtype_layout("pool fwd max fp32 nchw n2 c3 in9x9 win3x3 pad1x1 str2x2", DType::fp16, true),
            "pool fwd max fp16 nhwc n2 c3 in9x9 win3x3 pad1x1 str2x2");
  EXPECT_EQ(with_dtype_layout("tensorop min fp32 a3x17 b1x17 alpha1=1 alpha2=-1 beta=0", DType::bf16, true),
            "tensorop min bf16 a3x17 b1x17 alpha1=1 alpha2=-1 beta=0");  // rank 2: no layout token
  const auto p = parse_op_problem("softmax fwd log channel fp32 nchw n32 c1000 in1x1");
  EXPECT_EQ(op_problem_at_batch(*p, 2)->str(), "softmax fwd log channel fp32 nchw n2 c1000 in1x1");
  const auto one = parse_op_problem("softmax fwd log channel fp32 nchw n1 c1000 in1x1");
  EXPECT_TRUE(op_problem_at_batch(*one, 2)->equals(*one));
}

TEST(Resnet50Ops, BadCountLinesNameTheLine) {
  try {
    counted_lines("# c\n3 activ fwd relu fp32 nchw n1 c2 in4x4\nrelu fwd\n", "x.txt");
    FAIL() << "accepted a line without a count";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "x.txt:3")) << e.what();
  }
  EXPECT_THROW(counted_lines("-1 activ fwd relu fp32 nchw n1 c2 in4x4\n", "x.txt"), InputError);
}

TEST(OpBenchSelect, OpNamesAndModeTokens) {
  const auto relu = parse_op_problem(kRelu);
  const auto pool = parse_op_problem("pool bwd max fp32 nchw n2 c3 in9x9 win3x3 pad1x1 str2x2");
  EXPECT_TRUE(op_selected_by(*relu, "activ"));
  EXPECT_TRUE(op_selected_by(*relu, "relu"));
  EXPECT_TRUE(op_selected_by(*relu, "all"));
  EXPECT_FALSE(op_selected_by(*relu, "pool"));
  EXPECT_FALSE(op_selected_by(*relu, "bf16"));  // the dtype and later tokens do not select
  EXPECT_TRUE(op_selected_by(*pool, "max"));
  EXPECT_TRUE(op_selected_by(*pool, "bwd"));
  EXPECT_FALSE(op_selected_by(*pool, "fwd"));
}

TEST(OpBenchCounts, BytesAndBandwidthByHand) {
  // activ fwd: x read, y written: 2 x 2*3*4*5 = 240 bf16 elements = 480 bytes.
  const auto a = parse_op_problem("activ fwd relu bf16 nhwc n2 c3 in4x5");
  EXPECT_DOUBLE_EQ(a->bytes(), 480.0);
  // bnorm fwd-train fp16 n2 c3 4x4: x, y 96 halves each (384 bytes); scale, bias, saved mean and
  // inv_std fp32 [3] once (48 bytes); running mean and var read and written (2 x 2 x 12 = 48 bytes).
  const auto b = parse_op_problem("bnorm fwd-train spatial fp16 nchw n2 c3 in4x4 eps1e-05 momentum0.1");
  EXPECT_DOUBLE_EQ(b->bytes(), 384.0 + 48.0 + 48.0);
  // 480 bytes in 0.001 ms: 0.48 GB/s, of a 3000 GB/s copy 1.6e-4.
  const json c = op_case("activ fwd relu bf16 nhwc n2 c3 in4x5", "activ.elementwise", Status::passed, 0.001, 1);
  EXPECT_DOUBLE_EQ(c["bytes"].get<double>(), 480.0);
  EXPECT_NEAR(c["gbps"].get<double>(), 0.48, 1e-12);
  EXPECT_NEAR(c["fraction_of_copy_ceiling"].get<double>(), 0.48 / 3000, 1e-15);
  EXPECT_TRUE(c["fraction_of_gemm_ceiling"].is_null());  // no GEMM ceiling for ops
}

TEST(OpBenchCounts, PoisonCount) {
  const std::vector<unsigned char> bytes{0xFF, 0xFF, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  EXPECT_EQ(count_poisoned(bytes, 2), 3);  // halves 0, 2, 3
  EXPECT_EQ(count_poisoned(bytes, 4), 1);  // the second word
  EXPECT_EQ(count_poisoned({0xFF, 0xFF, 0xFF, 0x7F}, 4), 0);  // a quiet NaN is not the poison
  EXPECT_THROW(count_poisoned(bytes, 0), InputError);
}

TEST(OpBenchReport, GroupsOfOpsAndConv) {
  const BenchGroup b = bench_group(kBnorm);
  EXPECT_EQ(b.dtype, "bf16");
  EXPECT_EQ(b.layout, "nhwc");
  EXPECT_EQ(b.dir, "bnorm fwd-train");
  EXPECT_TRUE(b.op);
  const BenchGroup t = bench_group("tensorop min fp16 a3x17 b1x17 alpha1=1 alpha2=-1 beta=0");
  EXPECT_EQ(t.layout, "-");
  EXPECT_EQ(t.dir, "tensorop min");
  const BenchGroup c = bench_group(testutil::kFwd3x3);
  EXPECT_EQ(c.dir, "fwd");
  EXPECT_FALSE(c.op);
  EXPECT_THROW(bench_group("bnorm sideways"), InputError);
}

TEST(OpBenchReport, TotalsWeightBytesAndTimeByCount) {
  const json r = op_report();
  const double bn_bytes = parse_op_problem(kBnorm)->bytes(), relu_bytes = parse_op_problem(kRelu)->bytes();
  bool saw_bnorm = false, saw_all = false;
  for (const json& t : r["totals"]) {
    if (t["dir"] == "bnorm fwd-train") {
      saw_bnorm = true;
      EXPECT_EQ(t["layers"], 4);
      EXPECT_NEAR(t["hiprim_ms"].get<double>(), 4 * 0.05, 1e-12);  // the best solver's median
      EXPECT_DOUBLE_EQ(t["bytes"].get<double>(), 4 * bn_bytes);
      EXPECT_NEAR(t["gbps"].get<double>(), bn_bytes * 1e-9 / 0.05e-3, 1e-6);
      EXPECT_TRUE(t["speedup_vs_peer"].is_null());  // no op peer
    }
    if (t["dir"] == "all") {
      saw_all = true;
      EXPECT_EQ(t["layers"], 7);
      EXPECT_NEAR(t["hiprim_ms"].get<double>(), 4 * 0.05 + 3 * 0.04, 1e-12);
      EXPECT_NEAR(t["gbps"].get<double>(), (4 * bn_bytes + 3 * relu_bytes) * 1e-9 / ((4 * 0.05 + 3 * 0.04) * 1e-3), 1e-6);
    }
  }
  EXPECT_TRUE(saw_bnorm);
  EXPECT_TRUE(saw_all);
}

TEST(OpBenchReport, CountZeroExtrasNeverMakeATotalPartial) {
  json r = op_report();
  const std::string lrn = "lrn fwd across bf16 nhwc n32 c96 in55x55 size5 alpha1e-04 beta0.75 k2";
  for (auto& c : problem_cases({op_case(lrn, "lrn.direct", Status::unsupported, -1, 0)})) r["cases"].push_back(c);
  const json totals = performance_totals(r["cases"]);
  for (const json& t : totals) {
    if (t["dir"] == "all") {
      EXPECT_EQ(t["problems"], 3);
      EXPECT_EQ(t["hiprim_missing"], 0);  // the untimed extra weighs nothing
      EXPECT_TRUE(t["gbps"].is_number());
    }
    if (t["dir"] == "lrn fwd") {
      EXPECT_EQ(t["layers"], 0);
      EXPECT_TRUE(t["gbps"].is_null());  // nothing weighed: no rate
    }
  }
  // a count-1 problem without a time does make it partial
  for (auto& c : problem_cases({op_case(lrn, "lrn.direct", Status::unsupported, -1, 1)})) r["cases"].push_back(c);
  r["cases"].back()["problem"] = "lrn fwd within bf16 nhwc n32 c96 in55x55 size5 alpha1e-04 beta0.75 k2";
  for (const json& t : performance_totals(r["cases"]))
    if (t["dir"] == "all") {
      EXPECT_EQ(t["hiprim_missing"], 1);
      EXPECT_TRUE(t["gbps"].is_null());
    }
}

TEST(OpBenchReport, ValidatesRoundTripsAndRenders) {
  const json r = op_report();
  EXPECT_TRUE(check_report_schema(r).empty()) << check_report_schema(r).front();
  const std::string path = ::testing::TempDir() + "/op_bench_report.json";
  write_json(path, r);
  const json back = read_json(path);
  EXPECT_EQ(back, r);
  EXPECT_TRUE(check_report_schema(back).empty());
  EXPECT_EQ(back["cases"][0]["peer"]["status"], "unavailable");

  const std::string md = render_markdown(r, {"a.svg", "b.svg", "c.svg"});
  EXPECT_TRUE(has(md, "## bf16 nhwc bnorm fwd-train")) << md;
  EXPECT_TRUE(has(md, "| GB/s | % of copy |")) << md;
  EXPECT_TRUE(has(md, "| spatial c256 in56x56 eps1e-05 momentum0.1 n32 | 4 | bnorm.block_group | 0.0500 |")) << md;
  const auto charts = report_charts(r);
  ASSERT_EQ(charts.size(), 2u);  // one bandwidth chart per op group, no roofline of ops
  EXPECT_EQ(charts[1].name, "bandwidth_bf16_nhwc_bnorm_fwd-train");
  EXPECT_TRUE(has(charts[1].svg, "device copy (ceiling)"));
  EXPECT_TRUE(has(render_html(r), "Achieved bandwidth"));
}

TEST(OpBenchReport, DiffGatesOpCasesLikeConv) {
  const json old_r = op_report();
  json slower = old_r, failed = old_r;
  slower["cases"][2]["timing"]["median_ms"] = 0.05;  // activ 0.04 -> 0.05 ms: +25%
  EXPECT_EQ(diff_reports(old_r, old_r, 0.05).regressions.size(), 0u);
  const DiffResult d = diff_reports(old_r, slower, 0.05);
  ASSERT_EQ(d.regressions.size(), 1u);
  EXPECT_TRUE(has(d.regressions[0], "slower +25.0%")) << d.regressions[0];
  EXPECT_TRUE(has(d.regressions[0], kRelu)) << d.regressions[0];
  failed["cases"][0]["status"] = "failed";
  failed["cases"][0]["timing"] = nullptr;
  failed["summary"] = summary_from_cases(failed["cases"]);
  const DiffResult f = diff_reports(old_r, failed, 0.05);
  ASSERT_EQ(f.regressions.size(), 1u);
  EXPECT_TRUE(has(f.regressions[0], "passed -> failed")) << f.regressions[0];
  // merge recomputes the op totals
  const json m = merge_reports({old_r, old_r}, {"a.json", "b.json"}, "merge");
  EXPECT_TRUE(check_report_schema(m).empty());
  EXPECT_EQ(m["summary"]["total"], 6);
}
