// The op generators (fuzz/op_gen.hpp) and target (fuzz/op_primitive.hpp): every generated problem is
// valid, inside the solver's probed domain and accepted by the solver; the same seed gives the same
// cases in every shard layout; shrink trees reach small fp32 channels-first problems.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "core/pool_problem.hpp"
#include "fuzz/campaign.hpp"
#include "core/error.hpp"
#include "fuzz/op_primitive.hpp"
#include "verify/op_solvers.hpp"

namespace hiprim::fuzz_test {
namespace {

constexpr int kDraws = 150;

std::shared_ptr<fuzz::SolverFuzzTarget> target_of(std::shared_ptr<const OpSolver> s) { return fuzz::op_fuzz_target(s); }
const fuzz::OpDomain& op_domain(const fuzz::SolverFuzzTarget& t) { return static_cast<const fuzz::OpCases&>(t.cases()).op_domain(); }

const fuzz::OpCaseSpec& op_spec(const fuzz::CaseSpecPtr& c) { return static_cast<const fuzz::OpCaseSpec&>(*c); }

// Draws case i of seed 7 as the campaign does.
rc::Shrinkable<fuzz::CaseSpecPtr> draw(const fuzz::FuzzTarget& t, std::uint64_t i) {
  const std::uint64_t key = fuzz::case_key(7, i);
  return t.generate(rc::Random(key), 10 + static_cast<int>(key % 91));
}

// Checks kDraws cases of every solver of every op (GPU solvers included: applicable() runs on the
// host), with the small and the large limits: valid, round-trips through its string, axis values
// in the domain, classes reachable, accepted by the solver.
TEST(OpGenerators, ProblemsAreValidInsideTheDomainAndAccepted) {
  for (const std::string& op : fuzz::fuzzed_ops()) {
    const auto solvers = verify::match_op_solvers("*", op);
    ASSERT_FALSE(solvers.empty()) << op;
    for (const auto& s : solvers)
      for (const bool large : {false, true}) {
        SCOPED_TRACE(s->name() + (large ? " (large)" : " (small)"));
        const auto t = fuzz::op_fuzz_target(s, large ? fuzz::large_op_limits() : fuzz::small_op_limits());
        EXPECT_TRUE(op_domain(*t).found_anchor);
        const auto reachable = t->reachable_classes();
        const std::set<std::string> reach(reachable.begin(), reachable.end());
        int refused = 0;
        for (int i = 0; i < kDraws; ++i) {
          const auto spec = draw(*t, static_cast<std::uint64_t>(i)).value();
          const OpProblemPtr& p = op_spec(spec).op_problem();
          ASSERT_TRUE(p->valid()) << p->str() << ": " << p->validate().front();
          EXPECT_TRUE(parse_op_problem(p->str())->equals(*p)) << p->str();
          for (const auto& [axis, value] : fuzz::op_generator(op)->choice_of(*p))
            EXPECT_TRUE(op_domain(*t).allows(axis, value)) << p->str() << " has " << axis << " " << value << " outside " << t->domain();
          for (const auto& c : spec->classes()) EXPECT_TRUE(reach.count(c)) << c << " of " << p->str() << " is not a reachable class";
          refused += s->applicable(*p) ? 0 : 1;
        }
        EXPECT_EQ(refused, 0) << "of " << kDraws << " drawn problems";
      }
  }
}

// The reachable classes are honest: drawing (not running) cases of every solver of the build hits
// each of them.
TEST(OpGenerators, EveryReachableClassIsGenerated) {
  for (const std::string& op : fuzz::fuzzed_ops())
    for (const auto& s : verify::match_op_solvers("*", op)) {
      const auto t = target_of(s);
      std::map<std::string, int> hits;
      for (const auto& c : t->reachable_classes()) hits[c] = 0;
      for (int i = 0; i < 600; ++i)
        for (const auto& c : draw(*t, static_cast<std::uint64_t>(i)).value()->classes()) ++hits[c];
      for (const auto& [c, n] : hits) EXPECT_GT(n, 0) << s->name() << " never generated " << c;
    }
}

// A solver with limits of both kinds: refusals the anchor probes see (fp16, channels first) and
// one only the per-case repair handles (c % 4 != 0, as vector solvers refuse).
class PickyPool final : public OpSolver {
 public:
  std::string name() const override { return "test.picky_pool"; }
  std::string op() const override { return "pool"; }
  Backend backend() const override { return Backend::host; }
  std::string summary() const override { return "test"; }
  Applicability applicable(const OpProblem& op) const override {
    const auto* p = op_problem_cast<PoolProblem>(op);
    if (!p || !op.valid()) return Applicability::no("not a valid pool problem");
    if (p->shape.dtype == DType::fp16) return Applicability::no("fp16");
    if (!p->shape.channels_last) return Applicability::no("channels first");
    if (p->shape.c % 4 != 0) return Applicability::no("c % 4");
    return Applicability::yes();
  }
  void run(const OpProblem&, const std::vector<void*>&, void*, std::size_t, void*) const override {}
};

TEST(OpGenerators, ProbedDomainAndRepairKeepCasesInsideAPickySolver) {
  const auto s = std::make_shared<PickyPool>();
  const auto t = target_of(s);
  EXPECT_EQ(op_domain(*t).values("dtype"), (std::vector<std::string>{"fp32", "bf16"}));
  EXPECT_EQ(op_domain(*t).values("layout"), (std::vector<std::string>{"nhwc", "ndhwc"}));
  const auto skipped = t->skipped_classes();
  for (const char* cls : {"dtype:fp16", "layout:nchw", "layout:ncdhw", "non_packed_strides"})
    EXPECT_TRUE(std::any_of(skipped.begin(), skipped.end(), [&](const fuzz::SkippedClass& k) { return k.name == cls; })) << cls;
  std::set<std::int64_t> channels;
  for (int i = 0; i < kDraws; ++i) {
    const auto spec = draw(*t, static_cast<std::uint64_t>(i)).value();
    const auto& p = *op_problem_cast<PoolProblem>(*op_spec(spec).op_problem());
    EXPECT_TRUE(s->applicable(*op_spec(spec).op_problem())) << spec->problem();
    channels.insert(p.shape.c);
  }
  EXPECT_GE(channels.size(), 4u) << "the repair should keep the channel counts varied";
}

// The same seed gives the same cases; a campaign split in two shards runs exactly the cases of the
// unsplit one (coverage and statuses summed over the shards equal the whole's).
TEST(OpGenerators, SameSeedSameCasesInEveryShardLayout) {
  for (const std::string op : {"activ", "tensorop"}) {
    const auto t = target_of(verify::make_op_reference_solver(op));
    for (std::uint64_t i = 0; i < 40; ++i) {
      const auto a = draw(*t, i).value(), b = draw(*t, i).value();
      EXPECT_EQ(a->problem(), b->problem());
      EXPECT_EQ(a->data(), b->data());
    }
    fuzz::CampaignOptions o;
    o.seed = 11;
    o.max_cases = 60;
    const auto whole = fuzz::run_campaign({t}, o);
    std::map<std::string, std::int64_t> cov;
    std::int64_t cases = 0;
    for (int shard = 0; shard < 2; ++shard) {
      o.shard = {shard, 2};
      const auto part = fuzz::run_campaign({t}, o);
      cases += part.cases + part.discards;
      for (auto& [cls, n] : part.targets.at(0).coverage) cov[cls] += n;
    }
    EXPECT_EQ(cases, 60);
    EXPECT_EQ(cov, whole.targets.at(0).coverage) << op;
  }
}

// Following the first shrink of every shrink tree to its end (what shrinking does when every
// simpler case still fails) ends at a small fp32 channels-first (or plain-rank) 2D problem.
TEST(OpGenerators, ShrinkingReachesSmallSimpleProblems) {
  for (const std::string& op : fuzz::fuzzed_ops()) {
    const auto gen = fuzz::op_generator(op);
    const auto t = target_of(verify::make_op_reference_solver(op));
    int shrunk = 0;
    for (std::uint64_t i = 0; i < 30; ++i) {
      auto sh = t->generate(rc::Random(fuzz::case_key(3, i)), 100);
      const double start = sh.value()->size();
      for (int step = 0; step < 10000; ++step) {
        auto next = sh.shrinks().next();
        if (!next) break;
        sh = *next;
      }
      const auto end = sh.value();
      SCOPED_TRACE(end->problem());
      EXPECT_LE(end->size(), start);
      EXPECT_LE(end->size(), 16) << op << ": the simplest problem should have a few elements";
      const auto choice = gen->choice_of(*op_spec(end).op_problem());
      EXPECT_EQ(choice.at("dtype"), "fp32");
      if (choice.count("layout")) EXPECT_EQ(choice.at("layout"), "nchw");  // ctc has no layout axis
      EXPECT_EQ(end->data(), "seed 1");
      shrunk += end->size() < start ? 1 : 0;
    }
    EXPECT_GT(shrunk, 20) << op << ": most size-100 cases are bigger than the simplest one";
  }
}

TEST(OpGenerators, UnknownOpAndUnmatchedSolverAreInputErrors) {
  EXPECT_EQ(fuzz::op_generator("conv"), nullptr);
  try {
    fuzz::make_targets("nosuch", "*", fuzz::op_cases());
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("known: conv, activ, bnorm, ctc, dropout, fusion, lrn, pool, reduce, rnn, softmax, tensorop"), std::string::npos) << e.what();
  }
  EXPECT_THROW(fuzz::make_targets("pool", "conv.*", fuzz::op_cases()), InputError);
}

}  // namespace
}  // namespace hiprim::fuzz_test
