// hiprim repro "<canonical string>": exactly one case (conv or an op; with --special, a fuzz case
// with special input values). hiprim fusion <chain...>: the same for a fusion chain written as words
// after "fusion" (quoted or not: the words are joined with spaces).
#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/run_command.hpp"
#include "fuzz/conv_primitive.hpp"
#include "fuzz/corpus.hpp"
#include "verify/solvers.hpp"

namespace hiprim::cli {
namespace {

// --special KIND: the fuzz case with special input values of the problem (fuzz/conv_special.hpp).
int run_special_repro(const std::string& problem, const std::string& solver_glob, const RunFlags& flags, const std::string& special,
                      const std::string& report) {
  fuzz::ReproLine line;
  line.problem = problem;
  line.solver = solver_glob;
  line.seed = flags.seed;
  line.fill = flags.fill;
  line.special = special;
  const fuzz::ConvCase c = fuzz::conv_case_from_repro(line);
  std::vector<verify::CaseRecord> cases;
  for (auto& s : verify::select_conv_solvers(solver_glob)) {
    cases.push_back(fuzz::run_conv_case(c, *s, !flags.no_determinism));
    print_case_line(cases.back());
  }
  return finish_run(cases, report);
}

// The flags of a one-case command (repro, fusion): solver glob, report, dump, print-problem, run options.
void add_case_flags(CLI::App& sub, RunCommandFlags& run) {
  sub.add_option("--solver", run.solver, "Solver name glob")->capture_default_str();
  sub.add_option("--report", run.report, "Write a JSON conformance report here");
  sub.add_option("--dump", run.dump, "Write inputs, output and reference as .npy files under this folder");
  sub.add_flag("--print-problem", run.print_problem, "Print the canonical problem string and exit");
  run.run.add_to(sub);
}

}  // namespace

Command add_repro(CLI::App& app) {
  auto* sub = app.add_subcommand("repro", "Run exactly one case given by its canonical problem string");
  struct Flags {
    std::string problem, special;
    RunCommandFlags run;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("--special", f->special, "Special input values of a fuzz case: nan, inf, signed_zero, subnormal, huge, mixed (conv)");
  sub->add_option("problem", f->problem, "Canonical problem string, e.g. \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3\" or \"activ fwd relu fp32 nchw n1 c3 in8x8\"")->required();
  add_case_flags(*sub, f->run);
  return [f] {
    if (!f->special.empty() && !f->run.print_problem)
      return run_special_repro(f->problem, f->run.solver, f->run.run, f->special, f->run.report);
    return run_problems({parse_op_problem(f->problem)}, f->run);
  };
}

Command add_fusion(CLI::App& app) {
  auto* sub = app.add_subcommand("fusion", "Run one fusion chain (core/fusion_problem.hpp), its words after 'fusion', verified");
  struct Flags {
    std::vector<std::string> words;
    RunCommandFlags run;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("chain", f->words, "The chain, e.g. fwd bf16 nhwc \"conv(n2 c8 k16 in9x9 f3x3 pad1x1)\" bias activ(relu)")
      ->required()
      ->expected(1, 1 << 20);
  add_case_flags(*sub, f->run);
  return [f] {
    std::string text = "fusion";
    for (const std::string& w : f->words) text += " " + w;
    return run_problems({parse_op_problem(text)}, f->run);
  };
}

}  // namespace hiprim::cli
