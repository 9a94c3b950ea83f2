// hiprim check: a suite (or the fuzz corpus) x solvers -> report.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "cli/run_command.hpp"
#include "cli/workers.hpp"
#include "core/error.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/gpu_oracle.hpp"
#include "fuzz/shard.hpp"
#include "report/report_diff.hpp"
#include "fuzz/primitive.hpp"
#include "verify/op_solvers.hpp"
#include "verify/solvers.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {
namespace {

// --suite corpus [--corpus DIR]: each repro line of the fuzz corpus (the embedded fuzz/corpus without
// DIR) over the solvers its solver glob and --solver both select.
int run_corpus_check(const std::string& corpus_dir, const std::string& solver_glob, const std::string& report, bool verbose,
                     bool require_gpu) {
  const auto entries = corpus_dir.empty() ? fuzz::embedded_corpus() : fuzz::load_corpus_dir(corpus_dir);
  std::printf("suite corpus (%s): %zu entries\n", corpus_dir.empty() ? "fuzz/corpus, embedded" : corpus_dir.c_str(), entries.size());
  std::vector<verify::CaseRecord> cases;
  for (auto& e : entries) {
    std::vector<verify::CaseRecord> recs;
    auto selected = [&](const std::string& name) { return verify::glob_list_match(solver_glob, name) && verify::glob_match(e.repro.solver, name); };
    // The entry's case (a bad line's InputError names the corpus file) on every selected solver of
    // its primitive.
    const fuzz::FuzzPrimitive& primitive = fuzz::fuzz_primitive(e.repro.op());
    fuzz::CaseSpecPtr c;
    try {
      c = primitive.case_from_repro(e.repro);
    } catch (const InputError& err) {
      throw InputError(e.source + ": " + err.what());
    }
    for (auto& s : verify::all_solvers())
      if (s->op() == e.repro.op() && selected(s->name())) recs.push_back(primitive.run(*c, *s));
    if (recs.empty()) {
      verify::CaseRecord r;
      r.problem = c->problem();
      r.solver = e.repro.solver;
      r.verdict.status = verify::Status::unsupported;
      r.verdict.reason = e.source + ": no solver of this build matches '" + e.repro.solver + "' and --solver '" + solver_glob + "'";
      r.repro = e.repro.str();
      recs.push_back(std::move(r));
    }
    for (auto& r : recs) {
      if (verbose || r.verdict.status != verify::Status::passed) print_case_line(r);
      cases.push_back(std::move(r));
    }
  }
  return finish_run(cases, report, "", require_gpu);
}

}  // namespace

// The report path: --report, else hiprim_check_<suite>.json.
std::string report_path(const std::string& report, const std::string& suite) {
  if (!report.empty()) return report;
  std::string base = suite;
  for (char& c : base)
    if (c == '/' || c == '.') c = '_';
  return "hiprim_check_" + base + ".json";
}

const WorkerEnv kCheckWorkerEnv{"HIPRIM_CHECK_WORKER", "HIPRIM_CHECK_FAULT"};

// check --devices: this command line once per device (cli/workers.hpp) with --shard w/N and its own
// report instead of --devices and --report; the reports merged into `path` (lost_workers: the shares
// re-run on another device). Exit: the workers' worst (1: a failure or, with --require-gpu, a case not
// run, applied by each worker to its share; 3: a share lost twice).
int run_check_workers(int devices, const std::string& path) {
  namespace fs = std::filesystem;
  std::vector<std::string> base;  // this command line without --devices, --report and --shard (and their values)
  const std::vector<std::string>& argv = command_args();
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    bool dropped = false;
    for (const char* flag : {"--devices", "--report", "--shard"}) {
      if (a == flag) dropped = true, ++i;  // the value follows
      else if (a.rfind(std::string(flag) + "=", 0) == 0) dropped = true;
    }
    if (!dropped) base.push_back(a);
  }
  const fs::path tmp = fs::temp_directory_path() / ("hiprim_check_" + std::to_string(getpid()));
  fs::create_directories(tmp);
  const bool gpus = fuzz::gpu_device_count() > 0;
  const WorkersResult r = run_workers(
      devices, devices, tmp.string(), true, kCheckWorkerEnv,
      [&](int d, int w) { return (gpus ? "gpu" + std::to_string(d) : "worker" + std::to_string(w)); },
      [&](int w, const std::string& report) {
        std::vector<std::string> a = base;
        a.insert(a.end(), {"--shard", std::to_string(w) + "/" + std::to_string(devices), "--report", report});
        return a;
      });
  std::vector<nlohmann::json> parts;
  for (const auto& p : r.reports) parts.push_back(verify::read_json(p));
  if (parts.empty()) throw RuntimeError("no check worker wrote its report");
  nlohmann::json merged = verify::merge_reports(parts, r.reports, command_line());
  merged["lost_workers"] = r.lost;
  merged["workers"] = r.finished;
  verify::write_json(path, merged);
  std::printf("report: %s (%zu workers merged%s): %s\n", path.c_str(), parts.size(),
              r.lost.empty() ? "" : (", " + std::to_string(r.lost.size()) + " lost and re-run").c_str(), merged.at("summary").dump().c_str());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return r.worst;
}

Command add_check(CLI::App& app) {
  auto* sub = app.add_subcommand("check", "Run a suite of problems through the solvers and write a conformance report");
  struct Flags {
    std::string suite = "smoke", solver = "*", report, dtypes = "fp32", layouts = "nchw", dirs = "fwd,bwd-data,bwd-weights", corpus;
    std::string math = "exact", shard, devices;
    std::int64_t batch = 1;
    bool verbose = false, require_gpu = false;
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
  sub->add_option("--math", f->math, kMathHelp)->capture_default_str();
  sub->add_flag("--verbose", f->verbose, "Print passed cases too");
  sub->add_option("--shard", f->shard, "Shard I/N: only the problems whose index in the suite is I mod N");
  sub->add_option("--devices", f->devices,
                  "all or N: one worker process per GPU (without GPUs: N CPU processes), each a shard, their reports merged; a lost "
                  "worker's shard re-run on the next device");
  sub->add_flag("--require-gpu", f->require_gpu, "Exit 1 when a GPU solver's cases did not run for want of a GPU device or GPU backend");
  f->run.add_to(*sub);
  return [f, sub] {
    if (f->suite == "corpus" && f->math != "exact") throw InputError("--math applies to suites, not to --suite corpus (its lines carry their own tokens)");
    std::vector<std::string> given;  // options some selected suite must read
    for (const char* flag : {"--batch", "--dtype", "--layout", "--dir"})
      if (sub->count(flag) > 0) given.push_back(flag);
    verify::check_suite_options_apply(split_list(f->suite), given);
    if (f->suite == "corpus") return run_corpus_check(f->corpus, f->solver, f->report.empty() ? "hiprim_check_corpus.json" : f->report, f->verbose,
                                                        f->require_gpu);
    const verify::SuiteOptions so = suite_options_from(f->batch, f->dtypes, f->layouts, f->dirs, f->math);
    const fuzz::Shard shard = f->shard.empty() ? fuzz::Shard{} : fuzz::parse_shard(f->shard);
    const int devices = parse_devices(f->devices, fuzz::gpu_device_count());
    if (devices > 0 && !f->shard.empty()) throw InputError("--devices and --shard: the workers of --devices take the shards themselves");
    const std::string path = report_path(f->report, f->suite);
    if (devices > 0) return run_check_workers(devices, path);  // each worker applies --require-gpu to its share
    abort_if_faulted(kCheckWorkerEnv);
    // Every problem (conv's first) through the selected solvers of its primitive.
    std::vector<OpProblemPtr> problems;
    for (auto& name : split_list(f->suite))
      for (auto& sp : verify::load_suite(name, so)) problems.push_back(sp.problem);
    std::stable_partition(problems.begin(), problems.end(), [](const OpProblemPtr& p) { return p->op() == ConvProblem::kOp; });
    std::vector<OpProblemPtr> mine;  // the shard's problems, by their index in the partitioned suite
    for (std::size_t i = 0; i < problems.size(); ++i)
      if (shard.owns(i)) mine.push_back(problems[i]);
    problems.swap(mine);
    const auto conv_problems = static_cast<std::size_t>(
        std::count_if(problems.begin(), problems.end(), [](const OpProblemPtr& p) { return p->op() == ConvProblem::kOp; }));
    const OpSolverList solvers = verify::match_solvers(verify::all_solvers(), f->solver);
    if (solvers.empty()) verify::select_conv_solvers(f->solver);  // throws, naming the solvers
    const auto conv_solvers = std::count_if(solvers.begin(), solvers.end(), [](auto& s) { return s->op() == ConvProblem::kOp; });
    std::printf("suite %s: %zu conv problems x %zu conv solvers, %zu op problems x %zu op solvers\n", f->suite.c_str(), conv_problems,
                static_cast<std::size_t>(conv_solvers), problems.size() - conv_problems, solvers.size() - static_cast<std::size_t>(conv_solvers));
    std::fflush(stdout);
    std::vector<verify::CaseRecord> cases;
    for (std::size_t i = 0; i < problems.size(); ++i) {
      run_problem(problems[i], solvers, f->run.options(), cases, f->verbose);
      if ((i + 1) % 25 == 0) std::fprintf(stderr, "  %zu/%zu problems\n", i + 1, problems.size());
    }
    return finish_run(cases, path, "", f->require_gpu);
  };
}

}  // namespace hiprim::cli
