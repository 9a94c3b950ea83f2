// The op framework's core pieces (token reader, shape, registry) and the bnorm, activ, softmax and
// dropout problems: canonical strings (parse(print(p)) == p, property-tested), token errors naming
// the token, validation messages naming the quantity.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/activ_problem.hpp"
#include "core/bnorm_problem.hpp"
#include "core/dropout_problem.hpp"
#include "core/error.hpp"
#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"
#include "core/softmax_problem.hpp"
#include "tests/core/op_problem_checks.hpp"

using namespace hiprim;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError>";
}

bool has(const std::string& s, const std::string& needle) { return s.find(needle) != std::string::npos; }

rc::Gen<OpShape> gen_shape() {
  return rc::gen::apply(
      [](int dt, bool cl, int n, int c, bool three, int d, int h, int w) {
        OpShape s;
        s.dtype = static_cast<DType>(dt);
        s.channels_last = cl;
        s.n = n;
        s.c = c;
        s.in = three ? Dims{d, h, w} : Dims{h, w};
        return s;
      },
      rc::gen::inRange(0, 3), rc::gen::arbitrary<bool>(), rc::gen::inRange(1, 9), rc::gen::inRange(1, 17),
      rc::gen::arbitrary<bool>(), rc::gen::inRange(1, 5), rc::gen::inRange(1, 9), rc::gen::inRange(1, 9));
}

// Reals that print and parse back: a few decimals and arbitrary doubles in a range.
rc::Gen<double> gen_real(double lo, double hi) {
  return rc::gen::oneOf(rc::gen::element(lo, hi, 0.5 * (lo + hi), 1e-5, 0.1),
                        rc::gen::map(rc::gen::inRange(0, 1 << 30), [lo, hi](int k) { return lo + (hi - lo) * (k / double(1 << 30)); }));
}

using test_op::check_round_trip;

}  // namespace

TEST(OpGrammar, FormatRealRoundTrips) {
  EXPECT_EQ(format_real(1e-5), "1e-05");
  EXPECT_EQ(format_real(0.5), "0.5");
  EXPECT_EQ(format_real(-2.0), "-2");
  EXPECT_EQ(format_real(0.1), "0.1");
}

TEST(OpGrammar, TokenErrorsNameTheToken) {
  EXPECT_TRUE(has(error_of([] { parse_bnorm_problem("bnorm fwd-train spatial fp32 nchw n2 c3 in4x4 eps1e-5 q7"); }),
                  "token 10 'q7': unknown token"));
  EXPECT_TRUE(has(error_of([] { parse_bnorm_problem("bnorm fwd-train spatial fp32 nchw n2 n3 c3 in4x4"); }), "token 7 'n3': given twice"));
  EXPECT_TRUE(has(error_of([] { parse_activ_problem("activ fwd relu fp32 nchw n2 c3 in4x4 alphax"); }), "unknown token"));
  EXPECT_TRUE(has(error_of([] { parse_activ_problem("activ fwd relu fp32 nchw n2 c3 in4x4 alpha1e"); }), "'1e' is not a real number"));
  EXPECT_TRUE(has(error_of([] { parse_softmax_problem("softmax fwd log fp32 nchw n2 c3 in4x4"); }), "missing mode instance|channel"));
  EXPECT_TRUE(has(error_of([] { parse_dropout_problem("dropout fwd fp32 ncdhw n2 c3 in4x4 rate0.5 seed1"); }),
                  "token 4 'ncdhw': layout is for 3D but in<..> has 2 sizes"));
  EXPECT_TRUE(has(error_of([] { parse_softmax_problem("softmax fwd fast fast channel fp32 nchw n1 c3 in1x1"); }), "algorithm given twice"));
  EXPECT_TRUE(has(error_of([] { parse_activ_problem("activ fwd relu fp32 nchw n-2 c3 in4x4"); }), "'-2' is negative"));
  EXPECT_TRUE(has(error_of([] { parse_activ_problem("bnorm fwd relu"); }), "token 1 'bnorm': expected the primitive 'activ' first"));
}

TEST(OpRegistry, DispatchesOnTheFirstToken) {
  EXPECT_EQ(parse_op_problem("softmax fwd accurate channel fp32 nchw n2 c10 in1x1")->op(), "softmax");
  EXPECT_TRUE(has(error_of([] { parse_op_problem("frob fwd"); }), "token 1 'frob': unknown primitive"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("frob fwd"); }), "; known: activ, bnorm, conv, ctc, dropout, "));
  EXPECT_EQ(parse_op_problem("conv fwd fp32 nchw n1 c1 k1 in3x3 f1x1")->op(), "conv");  // tests/core/test_conv_problem.cpp has more
  EXPECT_TRUE(has(error_of([] { parse_op_problem(""); }), "problem string is empty"));
  const auto names = op_names();
  for (const char* op : {"bnorm", "activ", "softmax", "dropout", "conv"}) EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << op;
}

TEST(OpProblems, DropoutSeedsRoundTripOverTheWhole64BitRange) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{1} << 40, (std::uint64_t{1} << 40) + 1, ~std::uint64_t{0}}) {
    DropoutProblem p = parse_dropout_problem("dropout fwd fp32 nchw n1 c1 in1x1 rate0.5 seed0");
    p.seed = seed;
    EXPECT_EQ(parse_dropout_problem(to_string(p)), p) << to_string(p);
  }
  EXPECT_TRUE(has(error_of([] { parse_dropout_problem("dropout fwd fp32 nchw n1 c1 in1x1 rate0.5 seed18446744073709551616"); }),
                  "larger than 2^64 - 1"));
  EXPECT_TRUE(has(error_of([] { parse_dropout_problem("dropout fwd fp32 nchw n1 c1 in1x1 rate0.5 seed-1"); }), "negative"));
}

TEST(OpProblems, InvalidParametersAreNamed) {
  EXPECT_TRUE(has(error_of([] { parse_op_problem("bnorm fwd-train spatial fp32 nchw n2 c3 in4x4 eps-1e-05"); }),
                  "epsilon = -1e-05 must be a finite number > 0"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("bnorm fwd-infer spatial fp32 nchw n2 c3 in4x4 momentum0.5"); }),
                  "momentum = 0.5 is only used by fwd-train"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("bnorm fwd-train per-act fp32 nchw n1 c3 in4x4"); }), "at least 2 values per normalized group"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("bnorm fwd-train spatial fp32 nchw n2 c3 in4x4 momentum1.5"); }),
                  "momentum = 1.5 must be in [0, 1]"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("dropout fwd fp32 nchw n2 c3 in4x4 rate1 seed1"); }), "dropout rate = 1 must be in [0, 1)"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("dropout fwd fp32 nchw n2 c3 in4x4 rate-0.1 seed1"); }), "dropout rate = -0.1"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("activ fwd relu fp32 nchw n2 c3 in4x4 alpha2"); }), "alpha = 2 is not used by mode relu"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("activ fwd clippedrelu fp32 nchw n2 c3 in4x4 alpha-1"); }), "clipping ceiling"));
  EXPECT_TRUE(has(error_of([] { parse_op_problem("softmax fwd log channel fp32 nchw n2 c0 in4x4"); }), "channels c = 0 must be >= 1"));
}

TEST(OpProblems, TensorsFollowTheDocumentedOrder) {
  const BnormProblem train = parse_bnorm_problem("bnorm fwd-train per-act bf16 nhwc n2 c3 in4x5");
  const auto t = train.tensors();
  ASSERT_EQ(t.size(), 8u);
  EXPECT_EQ(t[3].name, "running_mean");
  EXPECT_EQ(t[3].role, OpTensor::Role::in_out);
  EXPECT_EQ(t[7].name, "saved_inv_std");
  EXPECT_EQ(t[1].desc.dtype, DType::fp32);  // parameters are fp32 for bf16 data
  EXPECT_EQ(t[1].desc.dims, (Dims{1, 3, 4, 5}));
  EXPECT_EQ(t[1].desc.strides, (Dims{60, 1, 15, 3}));  // x's channels-last layout with N = 1
  EXPECT_EQ(train.group_size(), 2);
  EXPECT_EQ(parse_bnorm_problem("bnorm bwd spatial fp16 nchw n2 c3 in4x5").tensors()[6].desc.dims, (Dims{3}));
  const SoftmaxProblem s = parse_softmax_problem("softmax bwd fast instance fp32 ncdhw n2 c3 in2x4x5");
  EXPECT_EQ(s.rows(), 2);
  EXPECT_EQ(s.row_length(), 120);
  EXPECT_EQ(s.tensors()[0].name, "y");
  EXPECT_EQ(parse_dropout_problem("dropout fwd fp32 nchw n1 c1 in1x1 rate0.25 seed3").threshold(), 1u << 30);
}

RC_GTEST_PROP(OpProblems, BnormRoundTrip, ()) {
  BnormProblem p;
  p.dir = *rc::gen::element(BnormDir::fwd_train, BnormDir::fwd_infer, BnormDir::bwd);
  p.mode = *rc::gen::element(BnormMode::spatial, BnormMode::per_activation);
  p.shape = *gen_shape();
  p.epsilon = *gen_real(1e-7, 1.0);
  p.momentum = p.dir == BnormDir::fwd_train ? std::optional<double>(*gen_real(0.0, 1.0)) : std::nullopt;
  p.scale_dtype = static_cast<DType>(*rc::gen::inRange(0, 3));
  p.stats_dtype = static_cast<DType>(*rc::gen::inRange(0, 3));
  RC_PRE(p.validate().empty());
  check_round_trip(p, parse_bnorm_problem);
}

// scale=/stats= (MIOpenDriver's bnormfp16 keeps the parameters in fp16): printed only when not
// fp32, so every existing string keeps its form; each tensor gets its role's dtype.
TEST(OpProblems, BnormParameterDtypes) {
  const BnormProblem fp32 = parse_bnorm_problem("bnorm bwd spatial fp16 nchw n2 c3 in4x5");
  EXPECT_EQ(to_string(fp32), "bnorm bwd spatial fp16 nchw n2 c3 in4x5 eps1e-05");
  EXPECT_TRUE(fp32.fp32_parameters());
  const BnormProblem h = parse_bnorm_problem("bnorm bwd spatial fp16 nchw n2 c3 in4x5 stats=fp16 scale=bf16");
  EXPECT_EQ(to_string(h), "bnorm bwd spatial fp16 nchw n2 c3 in4x5 eps1e-05 scale=bf16 stats=fp16");
  EXPECT_FALSE(h.fp32_parameters());
  for (const auto& t : h.tensors()) {
    const DType want = t.name == "x" || t.name == "dy" || t.name == "dx" ? DType::fp16 : t.name == "scale" ? DType::bf16 : DType::fp16;
    EXPECT_EQ(t.desc.dtype, want) << t.name;
  }
  const BnormProblem train = parse_bnorm_problem("bnorm fwd-train per-act fp32 nchw n2 c3 in4x5 scale=fp16");
  for (const auto& t : train.tensors()) {
    const DType want = t.name == "scale" || t.name == "bias" ? DType::fp16 : DType::fp32;
    EXPECT_EQ(t.desc.dtype, want) << t.name;
  }
  EXPECT_TRUE(has(error_of([] { parse_bnorm_problem("bnorm bwd spatial fp16 nchw n2 c3 in4x5 stats=fp64"); }),
                  "token 9 'stats=fp64': expected fp32, fp16 or bf16 after 'stats='"));
  EXPECT_TRUE(has(error_of([] { parse_bnorm_problem("bnorm bwd spatial fp16 nchw n2 c3 in4x5 scale=fp16 scale=fp32"); }), "given twice"));
}

RC_GTEST_PROP(OpProblems, ActivRoundTrip, ()) {
  ActivProblem p;
  p.dir = *rc::gen::element(ActivDir::fwd, ActivDir::bwd);
  p.mode = static_cast<ActivMode>(*rc::gen::inRange(0, kActivModeCount));
  p.shape = *gen_shape();
  if (activ_uses_alpha(p.mode)) p.alpha = *gen_real(0.0, 4.0);
  if (activ_uses_beta(p.mode)) p.beta = *gen_real(-2.0, 2.0);
  if (activ_uses_gamma(p.mode)) p.gamma = *gen_real(-3.0, 3.0);
  check_round_trip(p, parse_activ_problem);
}

RC_GTEST_PROP(OpProblems, SoftmaxRoundTrip, ()) {
  SoftmaxProblem p;
  p.dir = *rc::gen::element(SoftmaxDir::fwd, SoftmaxDir::bwd);
  p.algo = *rc::gen::element(SoftmaxAlgo::fast, SoftmaxAlgo::accurate, SoftmaxAlgo::log);
  p.mode = *rc::gen::element(SoftmaxMode::instance, SoftmaxMode::channel);
  p.shape = *gen_shape();
  check_round_trip(p, parse_softmax_problem);
}

RC_GTEST_PROP(OpProblems, DropoutRoundTrip, ()) {
  DropoutProblem p;
  p.dir = *rc::gen::element(DropoutDir::fwd, DropoutDir::bwd);
  p.shape = *gen_shape();
  p.rate = *gen_real(0.0, 0.999);
  p.seed = *rc::gen::arbitrary<std::uint32_t>();
  check_round_trip(p, parse_dropout_problem);
}

RC_GTEST_PROP(OpProblems, ShuffledTokensParseToTheSameProblem, ()) {
  const std::string s = "bnorm fwd-train spatial fp16 nhwc n3 c5 in6x7 eps0.001 momentum0.25";
  std::vector<std::string> toks;
  for (std::size_t start = 0, sp; start < s.size(); start = sp + 1) {
    sp = s.find(' ', start);
    if (sp == std::string::npos) sp = s.size();
    toks.push_back(s.substr(start, sp - start));
  }
  std::vector<std::string> rest(toks.begin() + 1, toks.end());
  const auto perm = *rc::gen::unique<std::vector<int>>(rest.size(), rc::gen::inRange(0, int(rest.size())));
  std::string shuffled = "bnorm";
  for (int i : perm) shuffled += " " + rest[static_cast<std::size_t>(i)];
  RC_ASSERT(parse_bnorm_problem(shuffled) == parse_bnorm_problem(s));
}
