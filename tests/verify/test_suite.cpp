#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.hpp"
#include "reference/conv.hpp"
#include "verify/compare.hpp"
#include "verify/fill.hpp"
#include "verify/suite.hpp"
#include "verify/suite_data.hpp"

using namespace hiprim;
using namespace hiprim::verify;

namespace {
std::string error_of(auto&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}
}  // namespace

TEST(Suite, EntriesSkipCommentsAndBlankLines) {
  const std::string text =
      "# header\n"
      "\n"
      "conv fwd fp32 nchw n1 c1 k1 in3x3 f1x1   # trailing comment\r\n"
      "   \t\n"
      "  conv bwd-data fp16 nhwc n1 c2 k2 in4x4 f3x3 pad1x1\n"
      "#conv fwd fp32 nchw n1 c1 k1 in3x3 f1x1\n"
      "conv bwd-weights bf16 nchw n2 c1 k1 in3x3 f1x1";  // no final newline
  auto e = suite_entries(text);
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].problem, "conv fwd fp32 nchw n1 c1 k1 in3x3 f1x1");
  EXPECT_EQ(e[0].line, 3);
  EXPECT_EQ(e[1].problem, "conv bwd-data fp16 nhwc n1 c2 k2 in4x4 f3x3 pad1x1");
  EXPECT_EQ(e[1].line, 5);
  EXPECT_EQ(e[2].line, 7);
  auto probs = conv_problems(parse_suite(text, "t.txt"));
  ASSERT_EQ(probs.size(), 3u);
  EXPECT_EQ(probs[1].dir, ConvDir::bwd_data);
  EXPECT_EQ(probs[2].n, 2);
  EXPECT_TRUE(suite_entries("").empty());
  EXPECT_TRUE(suite_entries("\n\n# only comments\n").empty());
}

TEST(Suite, BadLinesNameSourceAndLine) {
  const std::string bad_token = "conv fwd fp32 nchw n1 c1 k1 in3x3 f1x1\n\nconv fwd fp32 nchw n1 c1 k1 in3x3 f1x1 zz9\n";
  std::string msg = error_of([&] { parse_suite(bad_token, "my.txt"); });
  EXPECT_EQ(msg.rfind("my.txt:3: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("zz9"), std::string::npos) << msg;
  // Parses but does not validate: groups do not divide the channels.
  msg = error_of([] { parse_suite("# x\nconv fwd fp32 nchw n1 c3 k4 in3x3 f1x1 g2\n", "v.txt"); });
  EXPECT_EQ(msg.rfind("v.txt:2: ", 0), 0u) << msg;
  EXPECT_NE(msg.find("divisible"), std::string::npos) << msg;
}

// Every smoke line is a valid problem written in canonical form.
TEST(Suite, SmokeLinesAreCanonicalAndValid) {
  auto entries = suite_entries(embedded_suite_file("smoke.txt"));
  EXPECT_GE(entries.size(), 40u);
  EXPECT_LE(entries.size(), 60u);
  std::set<std::string> unique;
  for (const SuiteEntry& e : entries) {
    ConvProblem p;
    ASSERT_NO_THROW(p = parse_conv_problem(e.problem)) << "smoke.txt:" << e.line << ": " << error_of([&] { parse_conv_problem(e.problem); });
    EXPECT_EQ(to_string(p), e.problem) << "smoke.txt:" << e.line << " is not canonical";
    EXPECT_LT(p.macs(), 1e6) << "smoke.txt:" << e.line << " is not tiny";
    EXPECT_TRUE(unique.insert(e.problem).second) << "smoke.txt:" << e.line << " is a duplicate";
  }
  EXPECT_EQ(conv_problems(load_suite("smoke", {})).size(), entries.size());
}

TEST(Suite, SmokeCoversEveryFeature) {
  std::set<std::string> seen;
  for (const ConvProblem& p : conv_problems(load_suite("smoke", {}))) {
    seen.insert(std::string(conv_dir_name(p.dir)));
    seen.insert(std::string(dtype_name(p.dtype)));
    seen.insert(p.layout_name());
    if (p.groups > 1 && p.groups < p.c) seen.insert("groups");
    if (p.groups > 1 && p.groups == p.c) seen.insert("depthwise");
    for (int i = 0; i < p.rank(); ++i) {
      if (p.dilation[i] > 1) seen.insert("dilation");
      if (p.stride[i] > p.filter[i]) seen.insert("stride>filter");
      if (p.pad[i] >= p.filter[i]) seen.insert("pad>=filter");
      if (p.in[i] % 2 == 1) seen.insert("odd");
      if (p.out_pad[i] > 0) seen.insert("opad");
    }
    if (p.mode == ConvMode::trans) seen.insert(p.dir == ConvDir::fwd ? "trans fwd" : "trans bwd");
    if (p.bias) seen.insert("bias");
    if (p.n == 1) seen.insert("n1");
    bool one_by_one = true;
    for (auto f : p.filter) one_by_one = one_by_one && f == 1;
    if (one_by_one) seen.insert("1x1");
  }
  for (const char* want : {"fwd", "bwd-data", "bwd-weights", "fp32", "fp16", "bf16", "nchw", "nhwc", "ncdhw", "ndhwc",
                           "groups", "depthwise", "dilation", "stride>filter", "pad>=filter", "odd", "opad", "trans fwd",
                           "trans bwd", "bias", "n1", "1x1"})
    EXPECT_TRUE(seen.count(want)) << "smoke suite lacks " << want;
}

// No smoke problem is mistrusted by construction: the reference output of either fill tier is
// not mostly zero.
// Every problem's reference output, in both fill tiers, is at most kMistrustZeroFraction zeros.
static void expect_not_mostly_zero(const std::vector<ConvProblem>& problems) {
  for (const ConvProblem& p : problems) {
    for (FillTier tier : {FillTier::exact, FillTier::bounded}) {
      const int r = exact_fill_range(p);
      HostTensor x(p.x_desc()), w(p.w_desc()), y(p.y_desc()), b(p.bias_desc());
      fill(x, tier, 1, kTagX, r);
      fill(w, tier, 1, kTagW, r);
      fill(y, tier, 1, kTagY, r);
      fill(b, tier, 1, kTagBias, r);
      ref::ConvOutput out = ref::conv_naive(p, {&x, &w, &y, p.bias ? &b : nullptr}, false);
      std::int64_t zeros = 0;
      for_each_index(out.desc.dims, [&](const Dims& i) { zeros += out.value[static_cast<std::size_t>(out.desc.offset(i))] == 0.0; });
      EXPECT_LE(double(zeros) / double(out.desc.elements()), kMistrustZeroFraction)
          << to_string(p) << " (" << fill_tier_name(tier) << ")";
    }
  }
}

// Which options each built-in suite reads (the CLI refuses a flag no selected suite reads).
TEST(Suite, OptionUseFollowsTheGenerators) {
  auto use = [](const char* n) {
    const SuiteOptionUse u = suite_option_use(n);
    return std::string(u.batch ? "b" : "") + (u.dtypes ? "d" : "") + (u.layouts ? "l" : "") + (u.dirs ? "r" : "");
  };
  EXPECT_EQ(use("smoke"), "");
  EXPECT_EQ(use("smoke_ops"), "");
  EXPECT_EQ(use("fusion"), "");  // every dtype and layout already
  EXPECT_EQ(use("edge"), "dlr");
  EXPECT_EQ(use("resnet50"), "bdlr");
  EXPECT_EQ(use("resnet50_ops"), "bdl");
  EXPECT_EQ(use("/some/suite.txt"), "");
  EXPECT_NO_THROW(check_suite_options_apply({"smoke", "resnet50"}, {"--batch", "--dtype", "--layout", "--dir"}));
  EXPECT_THROW(check_suite_options_apply({"smoke", "edge"}, {"--batch"}), InputError);
  EXPECT_NO_THROW(check_suite_options_apply({"smoke"}, {}));
}

TEST(Suite, SmokeOutputsAreNotMostlyZero) { expect_not_mostly_zero(conv_problems(load_suite("smoke", {}))); }

TEST(Suite, EdgeLinesAreCanonicalAndExpandOverTheOptions) {
  auto entries = suite_entries(embedded_suite_file("edge.txt"));
  ASSERT_GE(entries.size(), 12u);
  for (const SuiteEntry& e : entries) EXPECT_EQ(to_string(parse_conv_problem(e.problem)), e.problem) << "edge.txt:" << e.line;
  SuiteOptions o;
  o.dtypes = {DType::fp32, DType::bf16};
  o.channels_last = {false, true};
  auto probs = conv_problems(load_suite("edge", o));
  ASSERT_EQ(probs.size(), entries.size() * 2 * 2 * 3);
  std::set<std::string> unique;
  for (const auto& p : probs) {
    EXPECT_TRUE(p.valid()) << to_string(p);
    EXPECT_TRUE(!p.bias || p.dir == ConvDir::fwd) << to_string(p);
    EXPECT_TRUE(unique.insert(to_string(p)).second) << "duplicate " << to_string(p);
  }
  SuiteOptions all;
  all.dtypes = {DType::fp32, DType::fp16, DType::bf16};
  all.channels_last = {false, true};
  expect_not_mostly_zero(conv_problems(load_suite("edge", all)));
}

TEST(Suite, Resnet50Layers) {
  auto layers = resnet50_layers();
  ASSERT_EQ(layers.size(), 23u);
  const Resnet50Layer& first = layers.front();
  EXPECT_EQ(std::vector<std::int64_t>({first.c, first.k, first.h, first.w, first.r, first.s, first.stride, first.pad, first.count}),
            std::vector<std::int64_t>({3, 64, 224, 224, 7, 7, 2, 3, 1}));
  const Resnet50Layer& last = layers.back();
  EXPECT_EQ(std::vector<std::int64_t>({last.c, last.k, last.h, last.w, last.r, last.s, last.stride, last.pad, last.count}),
            std::vector<std::int64_t>({512, 512, 7, 7, 3, 3, 1, 1, 2}));
  std::int64_t convs = 0;
  for (const auto& l : layers) convs += l.count;
  EXPECT_EQ(convs, 53);  // stem + 16 bottlenecks * 3 + 4 projection shortcuts
}

TEST(Suite, Resnet50SuiteCrossesTheOptions) {
  SuiteOptions o;
  o.batch = 2;
  o.dtypes = {DType::fp16, DType::bf16};
  o.channels_last = {false, true};
  auto probs = conv_problems(load_suite("resnet50", o));
  ASSERT_EQ(probs.size(), 23u * 2 * 2 * 3);
  EXPECT_EQ(to_string(probs[0]), "conv fwd fp16 nchw n2 c3 k64 in224x224 f7x7 pad3x3 str2x2 dil1x1 g1");
  EXPECT_EQ(probs[0].out(), (Dims{112, 112}));
  EXPECT_EQ(to_string(probs[23]), "conv bwd-data fp16 nchw n2 c3 k64 in224x224 f7x7 pad3x3 str2x2 dil1x1 g1");
  EXPECT_EQ(to_string(probs.back()), "conv bwd-weights bf16 nhwc n2 c512 k512 in7x7 f3x3 pad1x1 str1x1 dil1x1 g1");
  for (const auto& p : probs) EXPECT_TRUE(p.valid()) << to_string(p);
  EXPECT_EQ(conv_problems(load_suite("resnet50", {})).size(), 23u * 3);
  SuiteOptions bad;
  bad.batch = 0;
  EXPECT_NE(error_of([&] { conv_problems(load_suite("resnet50", bad)); }).find("batch"), std::string::npos);
  bad = {};
  bad.dirs.clear();
  EXPECT_THROW(conv_problems(load_suite("resnet50", bad)), InputError);
}

// SuiteOptions::math (hiprim check/bench --math tf32): every fp32 conv problem gets math=tf32, in
// generated and as-written suites alike; other dtypes and the other primitives' problems do not.
TEST(Suite, MathTf32MarksTheFp32ConvProblemsOnly) {
  SuiteOptions o;
  o.dtypes = {DType::fp32, DType::bf16};
  o.channels_last = {true};
  o.math = ConvMath::tf32;
  const auto probs = conv_problems(load_suite("resnet50", o));
  ASSERT_EQ(probs.size(), 23u * 2 * 3);
  for (const auto& p : probs) EXPECT_EQ(p.math == ConvMath::tf32, p.dtype == DType::fp32) << to_string(p);
  EXPECT_EQ(to_string(probs[0]), "conv fwd fp32 nhwc n1 c3 k64 in224x224 f7x7 pad3x3 str2x2 dil1x1 g1 math=tf32");
  std::size_t ops = 0, tf32 = 0, fp32 = 0;
  for (const SuiteProblem& sp : load_suite("smoke", o)) {
    const ConvProblem* c = op_problem_cast<ConvProblem>(*sp.problem);
    if (c == nullptr) {
      ++ops;
      EXPECT_EQ(sp.problem->str().find("math="), std::string::npos) << sp.problem->str();
      continue;
    }
    fp32 += c->dtype == DType::fp32;
    tf32 += c->math == ConvMath::tf32;
    EXPECT_EQ(c->math == ConvMath::tf32, c->dtype == DType::fp32) << to_string(*c);
  }
  EXPECT_GT(ops, 0u);
  EXPECT_GT(tf32, 0u);
  EXPECT_EQ(tf32, fp32);
  for (const auto& p : conv_problems(load_suite("smoke", {}))) EXPECT_EQ(p.math, ConvMath::exact) << to_string(p);
}

TEST(Suite, LoadByNameOrPath) {
  EXPECT_EQ(suite_names(SuitePart::conv), (std::vector<std::string>{"smoke", "resnet50", "edge"}));
  EXPECT_EQ(suite_names(SuitePart::all), (std::vector<std::string>{"smoke", "resnet50", "edge", "smoke_ops", "ops", "fusion"}));
  EXPECT_EQ(suite_names(SuitePart::ops), (std::vector<std::string>{"smoke", "resnet50", "edge", "smoke_ops", "ops", "fusion", "resnet50_ops"}));
  EXPECT_EQ(conv_problems(load_suite("smoke", {}, SuitePart::conv)), conv_problems(parse_suite(embedded_suite_file("smoke.txt"), "smoke.txt")));
  const auto path = std::filesystem::temp_directory_path() / ("hiprim_suite_test_" + std::to_string(::getpid()) + ".txt");
  {
    std::ofstream f(path);
    f << "# two problems\nconv fwd fp32 nchw n1 c2 k2 in4x4 f3x3\nconv bwd-data fp32 nhwc n1 c2 k2 in4x4 f3x3 pad1x1\n";
  }
  auto probs = conv_problems(load_suite(path.string(), {}));
  std::filesystem::remove(path);
  ASSERT_EQ(probs.size(), 2u);
  EXPECT_TRUE(probs[1].channels_last);
  const std::string missing = "/nonexistent/suite.txt";
  std::string msg = error_of([&] { load_suite(missing, {}); });
  EXPECT_NE(msg.find(missing), std::string::npos) << msg;
  EXPECT_NE(msg.find("smoke"), std::string::npos) << msg;
  EXPECT_NE(msg.find("resnet50"), std::string::npos) << msg;
  msg = error_of([] { conv_problems(load_suite("resnet", {})); });
  EXPECT_NE(msg.find("resnet50"), std::string::npos) << msg;
  // A directory is not a suite file.
  EXPECT_THROW(load_suite(std::filesystem::temp_directory_path().string(), {}), InputError);
}

// One loader for every part: check takes a mixed file whole, the conv bench refuses its op lines,
// the op bench drops its conv lines; resnet50 carries each layer's count into every variant.
TEST(Suite, PartsOfAMixedSuite) {
  const std::string text = "conv fwd fp32 nchw n1 c2 k2 in4x4 f3x3\nactiv fwd relu fp32 nchw n1 c2 in4x4\n";
  const auto all = parse_suite(text, "m.txt");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].problem->str(), "activ fwd relu fp32 nchw n1 c2 in4x4");
  const auto ops = parse_suite(text, "m.txt", SuitePart::ops);
  ASSERT_EQ(ops.size(), 1u);
  EXPECT_EQ(ops[0].problem->op(), "activ");
  const std::string msg = error_of([&] { parse_suite(text, "m.txt", SuitePart::conv); });
  EXPECT_EQ(msg.rfind("m.txt:2: ", 0), 0u) << msg;
  EXPECT_EQ(conv_problems(load_suite("smoke_ops", {})).size(), 0u);
  EXPECT_NE(error_of([] { load_suite("smoke_ops", {}, SuitePart::conv); }).find("(smoke, resnet50, edge)"), std::string::npos);
  SuiteOptions o;
  o.dtypes = {DType::fp16, DType::fp32};
  const auto layers = resnet50_layers();
  const auto r50 = load_suite("resnet50", o, SuitePart::conv);
  ASSERT_EQ(r50.size(), layers.size() * 2 * 3);
  for (std::size_t i = 0; i < r50.size(); ++i) EXPECT_EQ(r50[i].count, layers[i % layers.size()].count) << i;
  for (const auto& p : load_suite("edge", o)) EXPECT_EQ(p.count, 1);
}

// The examples in reports/README.md are canonical strings of valid problems.
TEST(Suite, ReadmeExamplesAreCanonical) {
  for (const char* s : {"conv fwd fp32 nchw n32 c256 k256 in14x14 f3x3 pad1x1 str1x1 dil1x1 g1",
                        "conv bwd-weights bf16 nhwc n2 c8 k8 in7x7 f3x3 pad1x1 str1x1 dil1x1 g8",
                        "conv fwd fp16 nhwc n2 c4 k6 in4x5 f2x3 pad0x1 str2x3 dil1x1 g2 trans opad1x2",
                        "conv fwd fp32 ncdhw n1 c2 k3 in4x5x6 f3x3x3 pad1x1x1 str1x1x1 dil1x1x1 g1",
                        "conv fwd bf16 nchw n1 c3 k5 in6x6 f1x1 pad0x0 str1x1 dil1x1 g1 bias"})
    EXPECT_EQ(to_string(parse_conv_problem(s)), s);
  EXPECT_EQ(to_string(parse_conv_problem("conv n1 c3 k8 in8x8 f3x3")),
            "conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3 pad0x0 str1x1 dil1x1 g1");
}
