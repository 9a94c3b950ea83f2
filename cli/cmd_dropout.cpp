// hiprim dropout: dropout with a Philox mask (-r rate, -s mask seed, -F).
#include "cli/commands.hpp"
#include "cli/op_command.hpp"
#include "core/dropout_problem.hpp"

namespace hiprim::cli {

Command add_dropout(CLI::App& app) {
  auto* sub = app.add_subcommand("dropout", "Dropout (Philox4x32-10 mask keyed by seed and element): run its solvers and verify them");
  struct Flags {
    OpCommonFlags common;
    double rate = 0.5;
    std::uint64_t mask_seed = 0;
    int forw = 0;
  };
  auto f = std::make_shared<Flags>();
  f->common.n = 2;
  f->common.c = 4;
  f->common.H = f->common.W = 8;
  f->common.add_to(*sub);
  sub->add_option("-r,--rate", f->rate, "Probability of dropping an element, in [0, 1)")->check(real_in(0.0, 1.0, false))->capture_default_str();
  sub->add_option("-s,--mask_seed", f->mask_seed, "Seed of the mask (part of the problem; --seed is the data fill's)")->capture_default_str();
  sub->add_option("-F,--forw", f->forw, "0 forward and backward, 1 forward only, 2 backward only")
      ->check(CLI::IsMember({0, 1, 2}))->capture_default_str();
  return [f] {
    DropoutProblem p;
    p.shape = f->common.shape();
    p.rate = f->rate;
    p.seed = f->mask_seed;
    std::vector<OpProblemPtr> problems;
    for (DropoutDir d : {DropoutDir::fwd, DropoutDir::bwd}) {
      if ((f->forw == 1 && d == DropoutDir::bwd) || (f->forw == 2 && d == DropoutDir::fwd)) continue;
      DropoutProblem q = p;
      q.dir = d;
      problems.push_back(make_op_problem(q));
    }
    return run_op_problems(problems, f->common);
  };
}

}  // namespace hiprim::cli
