// hiprim activ: activations with MIOpenDriver's flags (-m mode, -A alpha, -B beta, -G gamma, -F).
#include "cli/commands.hpp"
#include "cli/op_command.hpp"
#include "core/activ_problem.hpp"
#include "core/error.hpp"

namespace hiprim::cli {

Command add_activ(CLI::App& app) {
  auto* sub = app.add_subcommand("activ", "Activation (MIOpenDriver activ's flags): run its solvers and verify them");
  struct Flags {
    OpCommonFlags common;
    std::string mode = "3";
    int forw = 0;
    double alpha = 1, beta = 1, gamma = 1;
  };
  auto f = std::make_shared<Flags>();
  f->common.n = 2;
  f->common.c = 4;
  f->common.H = f->common.W = 8;
  f->common.add_to(*sub);
  sub->add_option("-m,--mode", f->mode,
                  "MIOpen's mode number 0-9 (0 passthru 1 logistic 2 tanh 3 relu 4 softrelu 5 abs 6 power 7 clippedrelu "
                  "8 leakyrelu 9 elu) or a name (also gelu, gelu_tanh, silu)")
      ->capture_default_str();
  sub->add_option("-A,--alpha", f->alpha, "alpha (tanh, power, clippedrelu, leakyrelu, elu)");
  sub->add_option("-B,--beta", f->beta, "beta (tanh, power)");
  sub->add_option("-G,--gamma", f->gamma, "gamma (power)");
  sub->add_option("-F,--forw", f->forw, "0 forward and backward, 1 forward only, 2 backward only")
      ->check(CLI::IsMember({0, 1, 2}))->capture_default_str();
  return [f, sub] {
    ActivProblem p;
    p.shape = f->common.shape();
    if (f->mode.size() == 1 && f->mode[0] >= '0' && f->mode[0] <= '9')
      p.mode = static_cast<ActivMode>(f->mode[0] - '0');
    else if (auto m = parse_activ_mode(f->mode))
      p.mode = *m;
    else
      throw InputError("-m/--mode '" + f->mode + "': expected 0-9 or a mode name (passthru, logistic, tanh, relu, softrelu, abs, "
                       "power, clippedrelu, leakyrelu, elu, gelu, gelu_tanh, silu)");
    // Coefficients the mode does not use keep their defaults unless given (then validate() names them).
    if (sub->count("--alpha")) p.alpha = f->alpha;
    if (sub->count("--beta")) p.beta = f->beta;
    if (sub->count("--gamma")) p.gamma = f->gamma;
    std::vector<OpProblemPtr> problems;
    for (ActivDir d : {ActivDir::fwd, ActivDir::bwd}) {
      if ((f->forw == 1 && d == ActivDir::bwd) || (f->forw == 2 && d == ActivDir::fwd)) continue;
      ActivProblem q = p;
      q.dir = d;
      problems.push_back(make_op_problem(q));
    }
    return run_op_problems(problems, f->common);
  };
}

}  // namespace hiprim::cli
