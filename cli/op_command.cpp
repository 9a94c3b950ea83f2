#include "cli/op_command.hpp"

#include <cstdio>

#include "cli/output.hpp"
#include "core/error.hpp"
#include "verify/op_runner.hpp"
#include "verify/op_solvers.hpp"

namespace hiprim::cli {

void OpCommonFlags::add_to(CLI::App& sub) {
  const auto positive = int_at_least(1);
  sub.add_option("-n,--batchsize", n, "Mini-batch size")->check(positive)->capture_default_str();
  sub.add_option("-c,--in_channels", c, "Channels")->check(positive)->capture_default_str();
  sub.add_option("-H,--in_h", H, "Height")->check(positive)->capture_default_str();
  sub.add_option("-W,--in_w", W, "Width")->check(positive)->capture_default_str();
  sub.add_option("-D,--in_d", D, "Depth (3D; omit for 2D)")->check(positive);
  sub.add_option("--dtype", dtype, "fp32, fp16 or bf16")->check(CLI::IsMember({"fp32", "fp16", "bf16"}))->capture_default_str();
  sub.add_option("--layout", layout, "nchw or nhwc (ncdhw or ndhwc for 3D); default channels first")
      ->check(CLI::IsMember({"nchw", "nhwc", "ncdhw", "ndhwc"}));
  sub.add_option("--solver", solver, "Solver name glob (comma-separated globs: their union)")->capture_default_str();
  sub.add_option("--report", report, "Write a JSON conformance report here");
  sub.add_option("--dump", dump, "Write inputs, outputs and references as .npy files under this folder");
  sub.add_flag("--print-problem", print_problem, "Print the canonical problem string(s) and exit");
  run.add_to(sub);
}

OpShape OpCommonFlags::shape() const {
  OpShape s;
  s.dtype = dtype_from(dtype);
  s.n = n;
  s.c = c;
  const bool three_layout = layout == "ncdhw" || layout == "ndhwc";
  if (D > 0 && !layout.empty() && !three_layout) throw InputError("--layout " + layout + " is 2D but -D/--in_d gives a depth");
  s.in = (D > 0 || three_layout) ? Dims{D > 0 ? D : 1, H, W} : Dims{H, W};
  s.channels_last = layout == "nhwc" || layout == "ndhwc";
  return s;
}

void run_op_problem(const OpProblemPtr& p, const OpSolverList& solvers, const verify::RunOptions& o,
                    std::vector<verify::CaseRecord>& out, bool print_passed) {
  verify::PreparedOpCase c(p, o);
  for (auto& s : solvers) {
    if (s->op() != p->op()) continue;
    verify::RunOptions so = o;
    if (!o.dump_dir.empty()) so.dump_dir = o.dump_dir + "/" + s->name();
    auto rec = verify::run_op_case(c, *s, so);
    if (print_passed || rec.verdict.status != verify::Status::passed) print_case_line(rec);
    out.push_back(std::move(rec));
  }
}

int run_op_problems(const std::vector<OpProblemPtr>& problems, const OpCommonFlags& flags) {
  for (auto& p : problems) {
    auto errs = p->validate();
    if (!errs.empty()) throw_invalid_problem(p->op(), p->str(), errs);
  }
  if (flags.print_problem) {
    for (auto& p : problems) std::printf("%s\n", p->str().c_str());
    return 0;
  }
  std::vector<verify::CaseRecord> cases;
  for (auto& p : problems) {
    auto solvers = verify::match_op_solvers(flags.solver, p->op());
    if (solvers.empty()) {
      std::string names;
      for (auto& s : verify::match_op_solvers("*", p->op())) names += (names.empty() ? "" : ", ") + s->name();
      throw InputError("--solver '" + flags.solver + "' matches no " + p->op() + " solver; known: " + names);
    }
    auto o = flags.run.options();
    if (!flags.dump.empty()) {
      std::string folder = p->str();
      for (char& ch : folder)
        if (ch == ' ') ch = '_';
      o.dump_dir = flags.dump + "/" + folder;
    }
    run_op_problem(p, solvers, o, cases, /*print_passed=*/true);
  }
  print_summary(cases);
  if (!flags.dump.empty()) std::printf("dump: %s\n", flags.dump.c_str());
  write_report_if_asked(flags.report, cases);
  return exit_code_for(cases);
}

CLI::Validator real_in(double lo, double hi, bool hi_inclusive) {
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        double x = 0;
        std::size_t used = 0;
        try {
          x = std::stod(s, &used);
        } catch (...) {
          return "'" + s + "' is not a number";
        }
        if (used != s.size()) return "'" + s + "' is not a number";
        const bool ok = x >= lo && (hi_inclusive ? x <= hi : x < hi);
        return ok ? std::string() : "must be in [" + format_real(lo) + ", " + format_real(hi) + (hi_inclusive ? "]" : ")") + " (got " + s + ")";
      },
      "REAL");
}

}  // namespace hiprim::cli
