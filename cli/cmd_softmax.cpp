// hiprim softmax: softmax / log-softmax with MIOpenDriver's flags (-a algorithm, -m mode, -F).
#include "cli/commands.hpp"
#include "cli/op_command.hpp"
#include "core/softmax_problem.hpp"

namespace hiprim::cli {

Command add_softmax(CLI::App& app) {
  auto* sub = app.add_subcommand("softmax", "Softmax (MIOpenDriver softmax's flags): run its solvers and verify them");
  struct Flags {
    OpCommonFlags common;
    int algo = 1, mode = 1, forw = 0;
  };
  auto f = std::make_shared<Flags>();
  f->common.n = 2;
  f->common.c = 16;
  f->common.H = f->common.W = 4;
  f->common.add_to(*sub);
  sub->add_option("-a,--algorithm", f->algo, "0 fast, 1 accurate, 2 log")->check(CLI::IsMember({0, 1, 2}))->capture_default_str();
  sub->add_option("-m,--mode", f->mode, "0 instance (over C*H*W), 1 channel (over C)")->check(CLI::IsMember({0, 1}))->capture_default_str();
  sub->add_option("-F,--forw", f->forw, "0 forward and backward, 1 forward only, 2 backward only")
      ->check(CLI::IsMember({0, 1, 2}))->capture_default_str();
  return [f] {
    SoftmaxProblem p;
    p.shape = f->common.shape();
    p.algo = static_cast<SoftmaxAlgo>(f->algo);
    p.mode = f->mode == 0 ? SoftmaxMode::instance : SoftmaxMode::channel;
    std::vector<OpProblemPtr> problems;
    for (SoftmaxDir d : {SoftmaxDir::fwd, SoftmaxDir::bwd}) {
      if ((f->forw == 1 && d == SoftmaxDir::bwd) || (f->forw == 2 && d == SoftmaxDir::fwd)) continue;
      SoftmaxProblem q = p;
      q.dir = d;
      problems.push_back(make_op_problem(q));
    }
    return run_op_problems(problems, f->common);
  };
}

}  // namespace hiprim::cli
