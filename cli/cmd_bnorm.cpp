// hiprim bnorm: batch normalization with MIOpenDriver's flags (-m mode, -F forward, -b backward).
#include "cli/commands.hpp"
#include "cli/op_command.hpp"
#include "core/bnorm_problem.hpp"
#include "core/error.hpp"

namespace hiprim::cli {

Command add_bnorm(CLI::App& app) {
  auto* sub = app.add_subcommand("bnorm", "Batch normalization (MIOpenDriver bnorm's flags): run its solvers and verify them");
  struct Flags {
    OpCommonFlags common;
    int mode = 1, forw = 1, back = 0;
    double epsilon = kBnormDefaultEpsilon, momentum = kBnormDefaultMomentum;
  };
  auto f = std::make_shared<Flags>();
  f->common.n = 2;
  f->common.c = 4;
  f->common.H = f->common.W = 8;
  f->common.add_to(*sub);
  sub->add_option("-m,--mode", f->mode, "0 per-activation, 1 spatial")->check(CLI::IsMember({0, 1}))->capture_default_str();
  sub->add_option("-F,--forw", f->forw, "Forward: 0 none, 1 training, 2 inference")->check(CLI::IsMember({0, 1, 2}))->capture_default_str();
  sub->add_option("-b,--back", f->back, "Backward (dx, dscale, dbias): 0 no, 1 yes")->check(CLI::IsMember({0, 1}))->capture_default_str();
  sub->add_option("-e,--epsilon", f->epsilon, "Epsilon added to the variance (> 0)")->check(real_in(1e-300, 1e300, true))->capture_default_str();
  sub->add_option("--momentum", f->momentum, "Running statistics' update factor (training), in [0, 1]")
      ->check(real_in(0.0, 1.0, true))->capture_default_str();
  return [f] {
    if (f->forw == 0 && f->back == 0) throw InputError("-F 0 and -b 0 select nothing: give -F 1|2 or -b 1");
    std::vector<OpProblemPtr> problems;
    BnormProblem p;
    p.shape = f->common.shape();
    p.mode = f->mode == 0 ? BnormMode::per_activation : BnormMode::spatial;
    p.epsilon = f->epsilon;
    if (f->forw != 0) {
      BnormProblem q = p;
      q.dir = f->forw == 1 ? BnormDir::fwd_train : BnormDir::fwd_infer;
      q.momentum = f->forw == 1 ? std::optional<double>(f->momentum) : std::nullopt;
      problems.push_back(make_op_problem(q));
    }
    if (f->back) {
      BnormProblem q = p;
      q.dir = BnormDir::bwd;
      q.momentum = std::nullopt;
      problems.push_back(make_op_problem(q));
    }
    return run_op_problems(problems, f->common);
  };
}

}  // namespace hiprim::cli
