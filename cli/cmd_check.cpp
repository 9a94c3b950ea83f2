// hiprim check (a suite x solvers -> report) and hiprim list solvers|suites.
#include <cstdio>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "verify/solvers.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {

Command add_check(CLI::App& app) {
  auto* sub = app.add_subcommand("check", "Run a suite of problems through the solvers and write a conformance report");
  struct Flags {
    std::string suite = "smoke", solver = "*", report, dtypes = "fp32", layouts = "nchw", dirs = "fwd,bwd-data,bwd-weights";
    std::int64_t batch = 1;
    bool verbose = false;
    RunFlags run;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("--suite", f->suite, "Built-in suite names (see 'hiprim list suites') or suite files, comma-separated")->capture_default_str();
  sub->add_option("--solver", f->solver, "Solver name glob")->capture_default_str();
  sub->add_option("--report", f->report, "JSON report path (default: hiprim_check_<suite>.json)");
  sub->add_option("--batch", f->batch, "Batch size for generated suites (resnet50)")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20))->capture_default_str();
  sub->add_option("--dtype", f->dtypes, "Generated suites: comma-separated dtypes")->capture_default_str();
  sub->add_option("--layout", f->layouts, "Generated suites: comma-separated layouts (nchw, nhwc)")->capture_default_str();
  sub->add_option("--dir", f->dirs, "Generated suites: comma-separated directions")->capture_default_str();
  sub->add_flag("--verbose", f->verbose, "Print passed cases too");
  f->run.add_to(*sub);
  return [f] {
    verify::SuiteOptions so;
    so.batch = f->batch;
    so.dtypes.clear();
    for (auto& d : split_list(f->dtypes)) so.dtypes.push_back(dtype_from(d));
    so.channels_last.clear();
    for (auto& l : split_list(f->layouts)) {
      if (l != "nchw" && l != "nhwc") throw InputError("--layout '" + l + "': expected nchw or nhwc");
      so.channels_last.push_back(l == "nhwc");
    }
    so.dirs.clear();
    for (auto& d : split_list(f->dirs)) so.dirs.push_back(dir_from(d));
    if (so.dtypes.empty() || so.channels_last.empty() || so.dirs.empty())
      throw InputError("--dtype, --layout and --dir each need at least one value");
    std::vector<ConvProblem> problems;
    for (auto& name : split_list(f->suite)) {
      auto more = verify::load_suite(name, so);
      problems.insert(problems.end(), more.begin(), more.end());
    }
    auto solvers = verify::select_conv_solvers(f->solver);
    std::printf("suite %s: %zu problems x %zu solvers\n", f->suite.c_str(), problems.size(), solvers.size());
    std::fflush(stdout);
    std::vector<verify::CaseRecord> cases;
    std::size_t done = 0;
    for (auto& p : problems) {
      run_problem(p, solvers, f->run.options(), cases, f->verbose);
      if (++done % 25 == 0) std::fprintf(stderr, "  %zu/%zu problems\n", done, problems.size());
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
      std::optional<ConvProblem> p;
      if (!problem->empty()) p = parse_conv_problem(*problem);
      for (auto& s : verify::conv_solvers()) {
        std::printf("%-22s %-6s %-5s %s\n", s->name().c_str(), s->backend() == Backend::device ? "device" : "host",
                    s->deterministic() ? "det" : "nondet", s->summary().c_str());
        if (p) {
          auto a = s->applicable(*p);
          std::printf("    %s%s\n", a ? "applicable" : "not applicable: ", a ? "" : a.reason.c_str());
        }
      }
    } else if (suites->parsed()) {
      for (auto& n : verify::builtin_suite_names()) std::printf("%s\n", n.c_str());
    }
    return 0;
  };
}

}  // namespace hiprim::cli
