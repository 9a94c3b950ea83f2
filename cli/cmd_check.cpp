// hiprim check (a suite x solvers -> report) and hiprim list solvers|suites.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/op_command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "bench/bench_ops_suite.hpp"
#include "verify/op_solvers.hpp"
#include "verify/op_suite.hpp"
#include "verify/solvers.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {

Command add_check(CLI::App& app) {
  auto* sub = app.add_subcommand("check", "Run a suite of problems through the solvers and write a conformance report");
  struct Flags {
    std::string suite = "smoke", solver = "*", report, dtypes = "fp32", layouts = "nchw", dirs = "fwd,bwd-data,bwd-weights", corpus;
    std::int64_t batch = 1;
    bool verbose = false;
    RunFlags run;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("--suite", f->suite, "Built-in suite names (see 'hiprim list suites') or suite files, comma-separated")->capture_default_str();
  sub->add_option("--solver", f->solver, "Solver name glob; comma-separated globs select their union")->capture_default_str();
  sub->add_option("--report", f->report, "JSON report path (default: hiprim_check_<suite>.json)");
  sub->add_option("--corpus", f->corpus, "--suite corpus: replay this corpus folder instead of the committed fuzz/corpus");
  sub->add_option("--batch", f->batch, "Batch size for generated suites (resnet50)")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20))->capture_default_str();
  sub->add_option("--dtype", f->dtypes, "Generated suites: comma-separated dtypes")->capture_default_str();
  sub->add_option("--layout", f->layouts, "Generated suites: comma-separated layouts (nchw, nhwc)")->capture_default_str();
  sub->add_option("--dir", f->dirs, "Generated suites: comma-separated directions")->capture_default_str();
  sub->add_flag("--verbose", f->verbose, "Print passed cases too");
  f->run.add_to(*sub);
  return [f] {
    if (f->suite == "corpus") return run_corpus_check(f->corpus, f->solver, f->report.empty() ? "hiprim_check_corpus.json" : f->report, f->verbose);
    const verify::SuiteOptions so = suite_options_from(f->batch, f->dtypes, f->layouts, f->dirs);
    // Conv lines go through the conv solvers, op lines through the op solvers of their op.
    verify::SuiteProblems problems;
    for (auto& name : split_list(f->suite)) {
      auto more = verify::load_any_suite(name, so);
      problems.conv.insert(problems.conv.end(), more.conv.begin(), more.conv.end());
      problems.ops.insert(problems.ops.end(), more.ops.begin(), more.ops.end());
    }
    ConvSolverList conv_solvers;
    for (auto& s : verify::conv_solvers())
      if (verify::glob_list_match(f->solver, s->name())) conv_solvers.push_back(s);
    const OpSolverList op_solvers = verify::match_op_solvers(f->solver);
    if (conv_solvers.empty() && op_solvers.empty()) verify::select_conv_solvers(f->solver);  // throws, naming the solvers
    std::printf("suite %s: %zu conv problems x %zu conv solvers, %zu op problems x %zu op solvers\n", f->suite.c_str(),
                problems.conv.size(), conv_solvers.size(), problems.ops.size(), op_solvers.size());
    std::fflush(stdout);
    std::vector<verify::CaseRecord> cases;
    std::size_t done = 0;
    const std::size_t total = problems.size();
    auto progress = [&] {
      if (++done % 25 == 0) std::fprintf(stderr, "  %zu/%zu problems\n", done, total);
    };
    if (!conv_solvers.empty())
      for (auto& p : problems.conv) {
        run_problem(p, conv_solvers, f->run.options(), cases, f->verbose);
        progress();
      }
    for (auto& p : problems.ops) {
      run_op_problem(p, op_solvers, f->run.options(), cases, f->verbose);
      progress();
    }
    print_summary(cases);
    std::string path = f->report;
    if (path.empty()) {
      std::string base = f->suite;
      for (char& c : base)
        if (c == '/' || c == '.') c = '_';
      path = "hiprim_check_" + base + ".json";
    }
    write_report_if_asked(path, cases);
    return exit_code_for(cases);
  };
}

Command add_list(CLI::App& app) {
  auto* sub = app.add_subcommand("list", "List solvers (optionally with their applicability to a problem) or suites");
  sub->require_subcommand(1);
  auto* solvers = sub->add_subcommand("solvers", "List solvers: name, backend, coverage; with --problem, whether each applies and why not");
  auto problem = std::make_shared<std::string>();
  solvers->add_option("--problem", *problem, "Canonical problem string");
  auto* suites = sub->add_subcommand("suites", "List the built-in suites");
  return [solvers, suites, problem] {
    if (solvers->parsed()) {
      // With --problem, the solvers of its primitive (conv or an op) and whether each applies.
      std::optional<ConvProblem> conv;
      OpProblemPtr op;
      if (!problem->empty()) {
        if (first_token(*problem) == "conv")
          conv = parse_conv_problem(*problem);
        else
          op = parse_op_problem(*problem);
      }
      auto line = [](const auto& s) {
        std::printf("%-26s %-6s %-6s %s\n", s->name().c_str(), s->backend() == Backend::device ? "device" : "host",
                    s->deterministic() ? "det" : "nondet", s->summary().c_str());
      };
      auto verdict = [](const Applicability& a) {
        std::printf("    %s%s\n", a ? "applicable" : "not applicable: ", a ? "" : a.reason.c_str());
      };
      if (!op)
        for (auto& s : verify::conv_solvers()) {
          line(s);
          if (conv) verdict(s->applicable(*conv));
        }
      if (!conv)
        for (auto& s : verify::op_solvers()) {
          if (op && s->op() != op->op()) continue;
          line(s);
          if (op) verdict(s->applicable(*op));
        }
    } else if (suites->parsed()) {
      for (auto& n : verify::all_suite_names()) std::printf("%s\n", n.c_str());
      for (auto& n : verify::op_bench_suite_names()) std::printf("%s (hiprim bench --op ...)\n", n.c_str());
    }
    return 0;
  };
}

}  // namespace hiprim::cli
