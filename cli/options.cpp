// hiprim repro "<canonical string>" and the run helpers shared by the subcommands (the conv front end
// is cli/cmd_driver.cpp).
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/op_command.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "verify/solvers.hpp"

namespace hiprim::cli {

void RunFlags::add_to(CLI::App& sub) {
  sub.add_option("--seed", seed, "Seed of the data fills")->capture_default_str();
  sub.add_option("--fill", fill, "Data fill tier: exact (integers, zero threshold) or bounded (reals, error bound); default: exact when possible")
      ->check(CLI::IsMember({"exact", "bounded"}));
  sub.add_flag("--no-determinism-check", no_determinism, "Skip the second run that checks a solver's determinism claim");
}

verify::RunOptions RunFlags::options() const {
  verify::RunOptions o;
  o.seed = seed;
  if (!fill.empty()) o.fill = *verify::parse_fill_tier(fill);
  o.check_determinism = !no_determinism;
  return o;
}

DType dtype_from(const std::string& s) {
  if (auto t = parse_dtype(s)) return *t;
  throw InputError("--dtype '" + s + "': expected fp32, fp16 or bf16");
}

ConvDir dir_from(const std::string& s) {
  if (s == "fwd") return ConvDir::fwd;
  if (s == "bwd-data") return ConvDir::bwd_data;
  if (s == "bwd-weights") return ConvDir::bwd_weights;
  throw InputError("--dir '" + s + "': expected fwd, bwd-data or bwd-weights");
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t comma = s.find(',', start);
    std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

verify::SuiteOptions suite_options_from(std::int64_t batch, const std::string& dtypes, const std::string& layouts,
                                        const std::string& dirs) {
  verify::SuiteOptions so;
  so.batch = batch;
  so.dtypes.clear();
  for (auto& d : split_list(dtypes)) so.dtypes.push_back(dtype_from(d));
  so.channels_last.clear();
  for (auto& l : split_list(layouts)) {
    if (l != "nchw" && l != "nhwc") throw InputError("--layout '" + l + "': expected nchw or nhwc");
    so.channels_last.push_back(l == "nhwc");
  }
  so.dirs.clear();
  for (auto& d : split_list(dirs)) so.dirs.push_back(dir_from(d));
  if (so.dtypes.empty() || so.channels_last.empty() || so.dirs.empty())
    throw InputError("--dtype, --layout and --dir each need at least one value");
  return so;
}

void run_problem(const ConvProblem& p, const ConvSolverList& solvers, const verify::RunOptions& o,
                 std::vector<verify::CaseRecord>& out, bool print_passed) {
  verify::PreparedCase c(p, o);
  for (auto& s : solvers) {
    verify::RunOptions so = o;
    if (!o.dump_dir.empty()) so.dump_dir = o.dump_dir + "/" + s->name();
    auto rec = verify::run_case(c, *s, so);
    const bool bad = rec.verdict.status == verify::Status::failed || rec.verdict.status == verify::Status::error ||
                     rec.verdict.status == verify::Status::mistrusted;
    if (print_passed || bad) print_case_line(rec);
    out.push_back(std::move(rec));
  }
}

namespace {

std::string folder_name(const ConvProblem& p) {
  std::string s = to_string(p);
  for (char& ch : s)
    if (ch == ' ') ch = '_';
  return s;
}


}  // namespace

// Shared tail of the conv front end and repro: print-problem, run, report.
int run_conv_problems(const std::vector<ConvProblem>& problems, const std::string& solver_glob, const RunFlags& flags,
                      const std::string& dump, const std::string& report, bool print_problem) {
  if (print_problem) {
    for (auto& p : problems) std::printf("%s\n", to_string(p).c_str());
    return 0;
  }
  auto solvers = verify::select_conv_solvers(solver_glob);
  std::vector<verify::CaseRecord> cases;
  for (auto& p : problems) {
    auto o = flags.options();
    if (!dump.empty()) o.dump_dir = dump + "/" + folder_name(p);
    run_problem(p, solvers, o, cases, /*print_passed=*/true);
  }
  print_summary(cases);
  if (!dump.empty()) std::printf("dump: %s\n", dump.c_str());
  write_report_if_asked(report, cases);
  return exit_code_for(cases);
}

// An integer option >= min; the message names the value and the rule.
CLI::Validator int_at_least(long long min) {
  return CLI::Validator(
      [min](std::string& s) -> std::string {
        long long x = 0;
        std::size_t used = 0;
        try {
          x = std::stoll(s, &used);
        } catch (...) {
          return "'" + s + "' is not an integer";
        }
        if (used != s.size()) return "'" + s + "' is not an integer";
        return x >= min ? std::string() : "must be >= " + std::to_string(min) + " (got " + s + ")";
      },
      "INT>=" + std::to_string(min));
}

Command add_repro(CLI::App& app) {
  auto* sub = app.add_subcommand("repro", "Run exactly one case given by its canonical problem string");
  struct Flags {
    std::string problem, solver = "*", report, dump, special;
    bool print_problem = false;
    RunFlags run;
  };
  auto f = std::make_shared<Flags>();
  sub->add_option("--special", f->special, "Special input values of a fuzz case: nan, inf, signed_zero, subnormal, huge, mixed (conv)");
  sub->add_option("problem", f->problem, "Canonical problem string, e.g. \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3\" or \"activ fwd relu fp32 nchw n1 c3 in8x8\"")->required();
  sub->add_option("--solver", f->solver, "Solver name glob")->capture_default_str();
  sub->add_option("--report", f->report, "Write a JSON conformance report here");
  sub->add_option("--dump", f->dump, "Write inputs, output and reference as .npy files under this folder");
  sub->add_flag("--print-problem", f->print_problem, "Print the canonical problem string and exit");
  f->run.add_to(*sub);
  return [f] {
    if (!f->special.empty() && !f->print_problem) return run_special_repro(f->problem, f->solver, f->run, f->special, f->report);
    // The first token picks the path: conv's, or the ops' (bnorm, activ, softmax, pool, ...).
    if (first_token(f->problem) != "conv") {
      OpCommonFlags o;
      o.solver = f->solver;
      o.report = f->report;
      o.dump = f->dump;
      o.print_problem = f->print_problem;
      o.run = f->run;
      return run_op_problems({parse_op_problem(f->problem)}, o);
    }
    ConvProblem p = parse_conv_problem(f->problem);
    return run_conv_problems({p}, f->solver, f->run, f->dump, f->report, f->print_problem);
  };
}

}  // namespace hiprim::cli
