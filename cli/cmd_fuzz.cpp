// hiprim fuzz: property-based fuzz campaigns (the work is in fuzz/, library hiprim_fuzz).
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/workers.hpp"
#include "core/error.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/conv_primitive.hpp"
#include "fuzz/gpu_oracle.hpp"
#include "fuzz/op_gen.hpp"
#include "fuzz/op_primitive.hpp"
#include "fuzz/primitive.hpp"
#include "fuzz/solver_target.hpp"
#include "report/report_diff.hpp"
#include "verify/guarded_buffer.hpp"
#include "verify/op_solvers.hpp"
#include "verify/solvers.hpp"


namespace hiprim::cli {
namespace {

struct FuzzFlags {
  std::string op, solver = "*", time, report, corpus, shard, devices, oracle = "auto", size = "auto", specials;  // specials "": all (conv)
  std::int64_t cases = 0, shard_count = 0, max_failures = 3, shrink_runs = 1000, jobs_per_device = 1;
  std::uint64_t seed = 1;
  double cpu_check_rate = 0.05, max_macs = 0;
  bool no_determinism = false, dry_run = false, require_gpu = false;
};

// "90", "90s", "10m", "1.5h" -> seconds; InputError naming --time otherwise.
double parse_duration(const std::string& s) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (...) {
    used = 0;
  }
  const std::string unit = used ? s.substr(used) : "";
  const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
  if (!used || scale < 0 || !std::isfinite(v) || v <= 0)
    throw InputError("--time '" + s + "': expected a positive duration like 90, 90s, 10m or 1h");
  return v * scale;
}

// The shard: --shard, else the scheduler's environment, else 0/1.
fuzz::Shard resolve_shard(const FuzzFlags& f, std::string* source) {
  if (!f.shard.empty() && f.shard != "auto") {
    *source = "--shard";
    return fuzz::parse_shard(f.shard);
  }
  if (auto s = fuzz::shard_from_environment(fuzz::process_environment(), f.shard_count, source)) return *s;
  *source = "default";
  return {};
}

// --size: auto, small or large.
void check_size_flag(const FuzzFlags& f) {
  if (f.size != "auto" && f.size != "small" && f.size != "large") throw InputError("--size '" + f.size + "': expected auto, small or large");
}

// Conv's flags: --oracle auto|cpu|gpu (gpu: conv.naive checks the exact-tier cases of the other
// device solvers), --cpu-check-rate, --specials (the kinds drawn), --size (auto: large with the gpu
// oracle), --max-macs (every MAC budget of the limits).
fuzz::CasesFor conv_cases_for(const FuzzFlags& f, std::string* oracle_used) {
  if (f.oracle != "auto" && f.oracle != "cpu" && f.oracle != "gpu") throw InputError("--oracle '" + f.oracle + "': expected auto, cpu or gpu");
  check_size_flag(f);
  if (!(f.cpu_check_rate >= 0 && f.cpu_check_rate <= 1)) throw InputError("--cpu-check-rate must be in [0, 1]");
  std::vector<fuzz::Special> specials{fuzz::Special::none};
  if (f.specials.empty() || f.specials == "all") {
    specials = fuzz::all_specials();
  } else if (f.specials != "none") {
    for (auto& k : split_list(f.specials)) {
      auto s = fuzz::parse_special(k);
      if (!s || *s == fuzz::Special::none)
        throw InputError("--specials '" + k + "': expected all, none or a list of nan, inf, signed_zero, subnormal, huge, mixed");
      specials.push_back(*s);
    }
  }
  std::shared_ptr<const ConvSolver> naive;
  for (auto& s : verify::conv_solvers())
    if (s->name() == "conv.naive") naive = s;
  std::string why;
  const bool gpu_ok = naive && fuzz::gpu_oracle_available(&why);
  const bool want_gpu = f.oracle == "gpu" || (f.oracle == "auto" && gpu_ok);
  *oracle_used = want_gpu ? "gpu (conv.naive for exact-tier cases, CPU reference for a sampled fraction and the rest)" : "cpu";
  return [&f, specials, naive, gpu_ok, why, want_gpu](const std::shared_ptr<const OpSolver>& s) -> fuzz::CaseSourcePtr {
    // Here, after the solver selection, so that a --solver matching nothing is named first.
    if (f.oracle == "gpu" && !gpu_ok) throw InputError("--oracle gpu: " + (naive ? why : std::string("no conv.naive solver in this build")));
    const ConvSolver& conv = dynamic_cast<const ConvOpSolver&>(*s).conv_solver();
    fuzz::ConvTargetOptions o;
    const bool gpu_oracle = want_gpu && s->backend() == Backend::device && &conv != naive.get();
    if (gpu_oracle) o.gpu_oracle = naive;
    const bool large = f.size == "large" || (f.size == "auto" && gpu_oracle);
    o.limits = large ? fuzz::large_conv_limits() : fuzz::small_conv_limits();
    if (f.max_macs > 0) o.limits.max_macs = o.limits.max_macs_bounded = o.limits.max_macs_special = o.limits.max_tensor_elements = f.max_macs;
    o.cpu_check_rate = f.cpu_check_rate;
    fuzz::ConvDomain d = fuzz::probe_conv_domain(conv);
    d.specials = specials;
    return std::make_shared<fuzz::ConvCases>(conv, o, d);
  };
}

// The other ops' flags: the CPU reference is their only oracle and they have no special-value
// cases, so --oracle gpu and --specials are refused; --size picks the limits (auto: large for device
// solvers), --max-macs caps the largest tensor's elements.
fuzz::CasesFor op_cases_for(const FuzzFlags& f, std::string* oracle_used) {
  if (f.oracle != "auto" && f.oracle != "cpu")
    throw InputError("--oracle '" + f.oracle + "': op " + f.op + " is checked against the CPU reference only (use auto or cpu)");
  check_size_flag(f);
  if (!f.specials.empty())
    throw InputError("--specials: special-value cases are defined for conv only (op " + f.op + " has no special-value contract)");
  *oracle_used = "cpu";
  return [&f](const std::shared_ptr<const OpSolver>& s) -> fuzz::CaseSourcePtr {
    const bool large = f.size == "large" || (f.size == "auto" && s->backend() == Backend::device);
    fuzz::OpGenLimits limits = large ? fuzz::large_op_limits() : fuzz::small_op_limits();
    if (f.max_macs > 0) limits.max_elements = static_cast<std::int64_t>(f.max_macs);
    return fuzz::op_cases(limits)(s);
  };
}

// The targets of --op for --solver, with the options its primitive's flags give.
std::vector<fuzz::FuzzTargetPtr> make_targets(const FuzzFlags& f, std::string* oracle_used) {
  fuzz::fuzzed_primitive(f.op);  // InputError for an op without a generator, naming the fuzzed ones
  const fuzz::CasesFor cases_for = f.op == ConvProblem::kOp ? conv_cases_for(f, oracle_used) : op_cases_for(f, oracle_used);
  return fuzz::make_targets(f.op, f.solver, cases_for, !f.no_determinism);
}

// The not_run_line() of the targets whose solver runs on the GPU when this process cannot use one
// (verify::backend_unavailable); "" when every target could run.
std::string gpu_targets_not_run(const std::vector<fuzz::FuzzTargetPtr>& targets) {
  const auto why = verify::backend_unavailable(Backend::device);
  if (!why) return "";
  std::vector<std::string> device;
  for (auto& t : targets) {
    bool on_device = false;
    for (auto& s : verify::all_solvers()) on_device = on_device || (s->name() == t->solver() && s->backend() == Backend::device);
    if (on_device) device.push_back(t->solver());
  }
  return device.empty() ? "" : not_run_line(device.size(), device.size() == 1 ? "solver" : "solvers", *why, device, "fuzzed");
}

// The live progress line: rewritten in place on a terminal, a line every 10 s otherwise.
fuzz::ProgressFn progress_printer(const fuzz::Shard& shard, const std::string& prefix, bool lines) {
  auto last = std::make_shared<double>(-1e9);
  const bool tty = !lines && isatty(STDERR_FILENO);
  return [=](const fuzz::Progress& p) {
    const std::string line = prefix + fuzz::progress_line(p, shard);
    if (tty) {
      std::fprintf(stderr, "\r\033[K%s%s", line.c_str(), p.final ? "\n" : "");
    } else if (p.final || p.seconds - *last >= 10) {
      std::fprintf(stderr, "%s\n", line.c_str());
      *last = p.seconds;
    }
    std::fflush(stderr);
  };
}

// `unit`: what CaseSpec::size() counts (conv: MACs; ops: tensor elements).
void print_result(const fuzz::CampaignResult& r, const char* unit) {
  std::printf("\n%-24s %9s %9s %9s %9s  %s\n", "solver", "cases", "discards", "failures", "coverage", "uncovered classes");
  for (auto& t : r.targets) {
    std::int64_t covered = 0, failures = 0;
    std::string missing;
    for (auto& [cls, n] : t.coverage) {
      covered += n > 0 ? 1 : 0;
      if (n == 0) missing += (missing.empty() ? "" : ",") + cls;
    }
    for (auto& f : r.failures) failures += f.target == t.solver ? 1 : 0;
    std::printf("%-24s %9lld %9lld %9lld %4lld/%-4zu  %s%s\n", t.solver.c_str(), static_cast<long long>(t.cases), static_cast<long long>(t.discards),
                static_cast<long long>(failures), static_cast<long long>(covered), t.coverage.size(), missing.empty() ? "-" : missing.c_str(),
                t.retired ? (" (retired: " + t.retired_reason + ")").c_str() : "");
  }
  for (auto& f : r.failures) {
    std::printf("\nFAILED %s (case %llu, after %lld cases): %s\n", f.target.c_str(), static_cast<unsigned long long>(f.case_index),
                static_cast<long long>(f.cases_to_catch), f.shrunk.verdict.reason.c_str());
    std::printf("  found:  %s (%.0f %s)\n  shrunk: %s (%.0f %s, %s; %d steps, %d runs)\n", f.found.problem.c_str(), f.found_size, unit,
                f.shrunk.problem.c_str(), f.shrunk_size, unit, f.shrunk_data.c_str(), f.shrink_steps, f.shrink_runs);
    std::printf("  %s\n", f.shrunk.repro.c_str());
    if (!f.corpus_file.empty()) std::printf("  saved: %s\n", f.corpus_file.c_str());
  }
}

// The worker command lines of --devices: this command with --shard and --report of each worker.
std::vector<std::string> worker_args(const FuzzFlags& f, const fuzz::Shard& shard, const std::string& report) {
  std::vector<std::string> a{"hiprim", "fuzz", "--op", f.op, "--solver", f.solver, "--seed", std::to_string(f.seed), "--shard", shard.str(),
                             "--oracle", f.oracle, "--size", f.size, "--cpu-check-rate", std::to_string(f.cpu_check_rate),
                             "--max-failures", std::to_string(f.max_failures), "--shrink-runs", std::to_string(f.shrink_runs)};
  if (!f.specials.empty()) a.insert(a.end(), {"--specials", f.specials});
  if (f.cases > 0) a.insert(a.end(), {"--cases", std::to_string(f.cases)});
  if (!f.time.empty()) a.insert(a.end(), {"--time", f.time});
  if (!report.empty()) a.insert(a.end(), {"--report", report});
  if (!f.corpus.empty()) a.insert(a.end(), {"--corpus", f.corpus});
  if (f.max_macs > 0) a.insert(a.end(), {"--max-macs", std::to_string(f.max_macs)});
  if (f.no_determinism) a.push_back("--no-determinism-check");
  return a;
}

const WorkerEnv kFuzzWorkerEnv{"HIPRIM_FUZZ_WORKER", "HIPRIM_FUZZ_FAULT"};

// --devices: `jobs` worker processes per GPU (cli/workers.hpp), each a sub-shard of this process's
// shard; their reports are merged (verify::merge_reports + merge_fuzz_campaigns). Several workers per
// GPU keep it busy while the others fill inputs and compare on the host's cores. A lost worker's shard
// is re-run on the next device: the same seeds give the same cases, so the counters add up.
int run_device_workers(const FuzzFlags& f, const fuzz::Shard& shard, int devices, int jobs, bool gpus) {
  namespace fs = std::filesystem;
  const fs::path tmp = fs::temp_directory_path() / ("hiprim_fuzz_" + std::to_string(getpid()));
  fs::create_directories(tmp);
  const int count = devices * jobs;
  const WorkersResult r = run_workers(
      count, devices, tmp.string(), !f.report.empty(), kFuzzWorkerEnv,
      [&](int d, int w) { return (gpus ? "gpu" + std::to_string(d) + "." : std::string("worker")) + std::to_string(w); },
      [&](int w, const std::string& report) { return worker_args(f, shard.split(w, count), report); });
  if (!f.report.empty()) {
    std::vector<nlohmann::json> parts, campaigns;
    for (auto& path : r.reports) {
      parts.push_back(verify::read_json(path));
      campaigns.push_back(parts.back().at("campaign"));
    }
    if (parts.empty()) throw RuntimeError("no fuzz worker wrote its report");
    auto merged = verify::merge_reports(parts, r.reports, command_line());
    merged["campaign"] = fuzz::merge_fuzz_campaigns(campaigns);
    merged["lost_workers"] = r.lost;
    merged["workers"] = r.finished;
    verify::write_json(f.report, merged);
    std::printf("report: %s (%zu workers merged%s)\n", f.report.c_str(), parts.size(),
                r.lost.empty() ? "" : (", " + std::to_string(r.lost.size()) + " lost and re-run").c_str());
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return r.worst;
}

// "conv, activ, bnorm, ... or tensorop": conv and the ops with a generator.
std::string fuzz_op_choices() {
  std::vector<std::string> ops = fuzz::fuzzed_ops();
  ops.insert(ops.begin(), "conv");
  std::string s;
  for (std::size_t i = 0; i < ops.size(); ++i) s += (i == 0 ? "" : i + 1 == ops.size() ? " or " : ", ") + ops[i];
  return s;
}

}  // namespace

Command add_fuzz(CLI::App& app) {
  auto* sub = app.add_subcommand("fuzz", "Property-based fuzzing: random valid problems in each solver's domain, failures shrunk to one repro line");
  auto f = std::make_shared<FuzzFlags>();
  sub->add_option("--op", f->op, "Primitive to fuzz: " + fuzz_op_choices())->required();
  sub->add_option("--solver", f->solver, "Solver name glob")->capture_default_str();
  sub->add_option("--cases", f->cases, "Cases to run in total over all shards")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 50));
  sub->add_option("--time", f->time, "Time limit of this process: 90, 90s, 10m, 1h");
  sub->add_option("--seed", f->seed, "Campaign seed (the same seed and shard give the same cases)")->capture_default_str();
  sub->add_option("--report", f->report, "Write the JSON fuzz report here");
  sub->add_option("--corpus", f->corpus, "Save each shrunk failure as a one-line .repro file in this folder");
  sub->add_option("--shard", f->shard, "Shard I/N (default: from SLURM_ARRAY_TASK_ID/COUNT, JOB_COMPLETION_INDEX, OMPI_COMM_WORLD_RANK/SIZE or PMI_RANK/SIZE)");
  sub->add_option("--shard-count", f->shard_count, "Shard count for a Kubernetes indexed Job (its completions)")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  sub->add_option("--devices", f->devices, "all or N: one worker process per GPU of the host (without GPUs: N CPU worker processes); default: this process only");
  sub->add_option("--jobs-per-device", f->jobs_per_device, "With --devices: worker processes per GPU (they share it; the host's cores fill and compare)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{256}))->capture_default_str();
  sub->add_option("--oracle", f->oracle, "auto, cpu or gpu (conv.naive checks the exact-tier cases of GPU solvers; ops: auto or cpu)")->capture_default_str();
  sub->add_option("--cpu-check-rate", f->cpu_check_rate, "With the gpu oracle: fraction of its cases checked on the CPU instead")->capture_default_str();
  sub->add_option("--size", f->size, "Problem sizes: small, large, or auto (conv: large with the gpu oracle; ops: large for device solvers)")->capture_default_str();
  sub->add_option("--max-macs", f->max_macs, "Upper bound of a case's multiply-accumulates (ops: of its largest tensor's elements; overrides --size's)")->check(CLI::PositiveNumber);
  sub->add_option("--max-failures", f->max_failures, "Failures per solver before it is retired")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30))->capture_default_str();
  sub->add_option("--shrink-runs", f->shrink_runs, "Case runs allowed per shrink")->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30))->capture_default_str();
  sub->add_option("--specials", f->specials, "conv only: special-value kinds to draw: all (default), none, or a list of nan,inf,signed_zero,subnormal,huge,mixed");
  sub->add_flag("--no-determinism-check", f->no_determinism, "Skip the second run that checks a solver's determinism claim");
  sub->add_flag("--dry-run", f->dry_run, "Print the targets, their domains and the shard, and exit");
  sub->add_flag("--require-gpu", f->require_gpu, "Exit 1 when a GPU solver could not be fuzzed for want of a GPU device or GPU backend");
  return [f] {
    if (f->cases <= 0 && f->time.empty() && !f->dry_run) throw InputError("fuzz: give --cases N or --time T (e.g. --time 10m)");
    fuzz::CampaignOptions o;
    o.seed = f->seed;
    o.max_cases = f->cases;
    o.max_seconds = f->time.empty() ? 0 : parse_duration(f->time);
    std::string shard_source;
    o.shard = resolve_shard(*f, &shard_source);
    o.corpus_dir = f->corpus;
    o.max_failures_per_target = static_cast<int>(f->max_failures);
    o.max_shrink_runs = static_cast<int>(f->shrink_runs);
    const int devices = parse_devices(f->devices, fuzz::gpu_device_count());
    if (f->jobs_per_device > 1 && devices == 0) throw InputError("--jobs-per-device needs --devices (all or N)");
    std::string oracle;
    auto targets = make_targets(*f, &oracle);
    std::printf("fuzz %s: %zu solvers, seed %llu, shard %s (%s), oracle %s%s\n", f->op.c_str(), targets.size(),
                static_cast<unsigned long long>(o.seed), o.shard.str().c_str(), shard_source.c_str(), oracle.c_str(),
                devices * f->jobs_per_device > 1 ? (", " + std::to_string(devices * f->jobs_per_device) + " worker processes").c_str() : "");
    for (auto& t : targets) std::printf("  %-22s %s\n", t->solver().c_str(), t->domain().c_str());
    std::fflush(stdout);
    if (f->dry_run) return 0;
    const std::string not_run = gpu_targets_not_run(targets);
    // The campaign's exit code, then the GPU solvers that could not run said plainly (and, with
    // --require-gpu, exit 1).
    auto finish = [&](int code) {
      if (!not_run.empty()) std::printf("\n%s (--require-gpu makes this exit 1)\n", not_run.c_str());
      return std::max(code, require_gpu_exit(f->require_gpu, not_run));
    };
    if (devices * f->jobs_per_device > 1)
      return finish(run_device_workers(*f, o.shard, devices, static_cast<int>(f->jobs_per_device), fuzz::gpu_device_count() > 0));
    abort_if_faulted(kFuzzWorkerEnv);
    const char* worker = std::getenv("HIPRIM_FUZZ_WORKER");
    auto result = fuzz::run_campaign(targets, o, progress_printer(o.shard, worker ? "[" + std::string(worker) + "] " : "", worker != nullptr));
    print_result(result, fuzz::fuzz_primitive(f->op).size_unit());
    if (result.cases == 0)
      std::fprintf(stderr, "hiprim fuzz: warning: no case ran (%lld refused); see the solvers' reasons with 'hiprim list solvers --problem ...'\n",
                   static_cast<long long>(result.discards));
    if (!f->report.empty()) {
      nlohmann::json extra = {{"oracle", oracle}, {"cpu_check_rate", f->cpu_check_rate}, {"shard_source", shard_source}};
      verify::write_json(f->report, fuzz::fuzz_report(result, o, f->op, command_line(), extra));
      std::printf("report: %s\n", f->report.c_str());
    }
    return finish(result.failures.empty() ? 0 : 1);
  };
}

}  // namespace hiprim::cli
