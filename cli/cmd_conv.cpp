// hiprim conv (MIOpenDriver's flags) and hiprim repro "<canonical string>".
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

// Shared tail of conv and repro: print-problem, run, report.
int run_problems(const std::vector<ConvProblem>& problems, const std::string& solver_glob, const RunFlags& flags,
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

}  // namespace

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

Command add_conv(CLI::App& app) {
  auto* sub = app.add_subcommand("conv", "Run convolution solvers on one problem given by MIOpenDriver's flags and verify them");
  struct Flags {
    std::int64_t n = 1, c = 3, H = 32, W = 32, k = 32, y = 3, x = 3, p = 0, q = 0, u = 1, v = 1, l = 1, j = 1, g = 1;
    std::int64_t in_d = 1, fil_d = 1, pad_d = 0, stride_d = 1, dil_d = 1, opad_h = 0, opad_w = 0, opad_d = 0;
    int spatial = 2, forw = 0, verify = 1, iter = 1, time = 0, bias = 0;
    std::string mode = "conv", dtype = "fp32", layout = "", solver = "*", report, dump;
    bool print_problem = false;
    RunFlags run;
  };
  auto f = std::make_shared<Flags>();
  const auto nonneg = int_at_least(0);
  const auto positive = int_at_least(1);
  sub->add_option("-n,--batchsize", f->n, "Mini-batch size")->check(positive)->capture_default_str();
  sub->add_option("-c,--in_channels", f->c, "Input channels")->check(positive)->capture_default_str();
  sub->add_option("-H,--in_h", f->H, "Input height")->check(positive)->capture_default_str();
  sub->add_option("-W,--in_w", f->W, "Input width")->check(positive)->capture_default_str();
  sub->add_option("-k,--out_channels", f->k, "Output channels")->check(positive)->capture_default_str();
  sub->add_option("-y,--fil_h", f->y, "Filter height")->check(positive)->capture_default_str();
  sub->add_option("-x,--fil_w", f->x, "Filter width")->check(positive)->capture_default_str();
  sub->add_option("-p,--pad_h", f->p, "Zero padding height")->check(nonneg)->capture_default_str();
  sub->add_option("-q,--pad_w", f->q, "Zero padding width")->check(nonneg)->capture_default_str();
  sub->add_option("-u,--conv_stride_h", f->u, "Stride height")->check(positive)->capture_default_str();
  sub->add_option("-v,--conv_stride_w", f->v, "Stride width")->check(positive)->capture_default_str();
  sub->add_option("-l,--dilation_h", f->l, "Dilation height")->check(positive)->capture_default_str();
  sub->add_option("-j,--dilation_w", f->j, "Dilation width")->check(positive)->capture_default_str();
  sub->add_option("-g,--group_count", f->g, "Groups (depthwise: g = c)")->check(positive)->capture_default_str();
  sub->add_option("-m,--mode", f->mode, "conv or trans (transposed)")->check(CLI::IsMember({"conv", "trans"}))->capture_default_str();
  sub->add_option("-F,--forw", f->forw, "Directions: 0 all, 1 fwd, 2 bwd-data, 4 bwd-weights (sums combine)")
      ->check(CLI::Range(0, 7))->capture_default_str();
  sub->add_option("-V,--verify", f->verify, "Verify against the CPU reference (hiprim always does: 1)")->check(CLI::IsMember({1}))->capture_default_str();
  sub->add_option("-i,--iter", f->iter, "Accepted for MIOpenDriver compatibility; timing runs belong to hiprim bench")->check(positive);
  sub->add_option("-t,--time", f->time, "Print the solver time (always printed)")->check(CLI::Range(0, 1));
  sub->add_option("-b,--bias", f->bias, "Add a bias (fwd only)")->check(CLI::Range(0, 1));
  sub->add_option("-_,--spatial_dim", f->spatial, "Spatial dims: 2 or 3")->check(CLI::IsMember({2, 3}))->capture_default_str();
  sub->add_option("--in_d", f->in_d, "Input depth (3D)")->check(positive);
  sub->add_option("--fil_d", f->fil_d, "Filter depth (3D)")->check(positive);
  sub->add_option("--pad_d", f->pad_d, "Zero padding depth (3D)")->check(nonneg);
  sub->add_option("--conv_stride_d", f->stride_d, "Stride depth (3D)")->check(positive);
  sub->add_option("--dilation_d", f->dil_d, "Dilation depth (3D)")->check(positive);
  sub->add_option("-Y,--trans_output_pad_h", f->opad_h, "Output padding height (trans)")->check(nonneg);
  sub->add_option("-X,--trans_output_pad_w", f->opad_w, "Output padding width (trans)")->check(nonneg);
  sub->add_option("--trans_output_pad_d", f->opad_d, "Output padding depth (trans, 3D)")->check(nonneg);
  sub->add_option("--dtype", f->dtype, "fp32, fp16 or bf16")->check(CLI::IsMember({"fp32", "fp16", "bf16"}))->capture_default_str();
  sub->add_option("--layout", f->layout, "nchw or nhwc (ncdhw or ndhwc for 3D); default channels first")
      ->check(CLI::IsMember({"nchw", "nhwc", "ncdhw", "ndhwc"}));
  sub->add_option("--solver", f->solver, "Solver name glob")->capture_default_str();
  sub->add_option("--report", f->report, "Write a JSON conformance report here");
  sub->add_option("--dump", f->dump, "Write inputs, output and reference as .npy files under this folder");
  sub->add_flag("--print-problem", f->print_problem, "Print the canonical problem string(s) and exit");
  f->run.add_to(*sub);
  return [f, sub] {
    ConvProblem p;
    p.n = f->n;
    p.c = f->c;
    p.k = f->k;
    p.groups = f->g;
    p.dtype = dtype_from(f->dtype);
    p.mode = f->mode == "trans" ? ConvMode::trans : ConvMode::conv;
    p.bias = f->bias == 1;
    if (f->spatial == 3) {
      p.in = {f->in_d, f->H, f->W};
      p.filter = {f->fil_d, f->y, f->x};
      p.pad = {f->pad_d, f->p, f->q};
      p.stride = {f->stride_d, f->u, f->v};
      p.dilation = {f->dil_d, f->l, f->j};
      p.out_pad = {f->opad_d, f->opad_h, f->opad_w};
    } else {
      for (auto* o : {"--in_d", "--fil_d", "--pad_d", "--conv_stride_d", "--dilation_d", "--trans_output_pad_d"})
        if (sub->count(o)) throw InputError(std::string(o) + " needs --spatial_dim 3");
      p.in = {f->H, f->W};
      p.filter = {f->y, f->x};
      p.pad = {f->p, f->q};
      p.stride = {f->u, f->v};
      p.dilation = {f->l, f->j};
      p.out_pad = {f->opad_h, f->opad_w};
    }
    if (!f->layout.empty()) {
      bool three = f->layout == "ncdhw" || f->layout == "ndhwc";
      if (three != (f->spatial == 3))
        throw InputError("--layout " + f->layout + " does not fit --spatial_dim " + std::to_string(f->spatial));
      p.channels_last = f->layout == "nhwc" || f->layout == "ndhwc";
    }
    const int mask = f->forw == 0 ? 7 : f->forw;
    std::vector<ConvProblem> problems;
    for (auto [bit, d] : {std::pair{1, ConvDir::fwd}, std::pair{2, ConvDir::bwd_data}, std::pair{4, ConvDir::bwd_weights}}) {
      if (!(mask & bit)) continue;
      ConvProblem q = p;
      q.dir = d;
      if (d != ConvDir::fwd && q.bias) {
        if (f->forw != 0) throw InputError("-b 1 (bias) is only defined for the fwd direction (-F 1)");
        q.bias = false;
      }
      auto errs = q.validate();
      if (!errs.empty()) {
        std::string msg = "invalid convolution:";
        for (auto& e : errs) msg += "\n  - " + e;
        throw InputError(msg);
      }
      problems.push_back(q);
    }
    return run_problems(problems, f->solver, f->run, f->dump, f->report, f->print_problem);
  };
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
    return run_problems({p}, f->solver, f->run, f->dump, f->report, f->print_problem);
  };
}

}  // namespace hiprim::cli
