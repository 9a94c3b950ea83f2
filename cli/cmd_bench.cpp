// hiprim bench: verify, then time, GPU solvers (conv, or with --op the other primitives) and the cuDNN peer
// on a suite -> performance report.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/conv_problem.hpp"
#include "core/error.hpp"
#include "core/op_problem.hpp"
#include "core/primitives.hpp"
#include "bench/bench.hpp"
#include "bench/bench_ops_select.hpp"
#include "bench/bench_report.hpp"
#include "verify/runner.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {

namespace {

// The problems of the suite (resnet50 carries each layer's count in the network; others count 1),
// or the --problem strings.
std::vector<verify::SuiteProblem> conv_bench_problems(const std::string& suite, const std::vector<std::string>& given,
                                                      const verify::SuiteOptions& so) {
  std::vector<verify::SuiteProblem> out;
  if (!given.empty()) {
    for (const auto& s : given) out.push_back({make_op_problem(parse_conv_problem(s)), 1});
    return out;
  }
  for (const auto& name : split_list(suite))
    for (auto& sp : verify::load_suite(name, so, verify::SuitePart::conv)) out.push_back(std::move(sp));
  return out;
}

// The op problems of the suite (resnet50_ops carries counts; other suites and files count 1) or of
// the --problem strings, keeping those that a token of --op selects (verify::op_selected_by). A conv
// --problem (timed with --op conv) or a token that selects nothing -> InputError naming it.
std::vector<verify::SuiteProblem> op_bench_problems(const std::string& suite, const std::vector<std::string>& given,
                                                    const verify::SuiteOptions& so, const std::string& op_flag) {
  std::vector<verify::SuiteProblem> all;
  for (const auto& s : given) {
    if (first_token(s) == ConvProblem::kOp) throw InputError("--problem '" + s + "' is a convolution: time it with --op conv");
    all.push_back({parse_op_problem(s), 1});
  }
  std::string own;  // the bench-only suites, named when a suite of check's cannot be loaded
  for (const auto& b : verify::builtin_suites())
    if (b.bench_only) own += (own.empty() ? "" : ", ") + b.name;
  if (given.empty())
    for (const auto& name : split_list(suite)) {
      const auto& builtins = verify::builtin_suites();
      const bool bench_only = std::any_of(builtins.begin(), builtins.end(), [&](const auto& b) { return b.bench_only && b.name == name; });
      try {
        for (auto& sp : verify::load_suite(name, so, verify::SuitePart::ops)) all.push_back(sp);
      } catch (const InputError& e) {
        if (bench_only) throw;
        throw InputError(std::string(e.what()) + "; the op bench's own suite: " + own);
      }
    }
  const auto tokens = split_list(op_flag);
  std::vector<verify::SuiteProblem> out;
  for (const auto& bp : all)
    if (std::any_of(tokens.begin(), tokens.end(), [&](const std::string& t) { return verify::op_selected_by(*bp.problem, t); }))
      out.push_back(bp);
  for (const auto& t : tokens) {
    if (std::any_of(all.begin(), all.end(), [&](const auto& bp) { return verify::op_selected_by(*bp.problem, t); })) continue;
    std::string names;
    for (const auto& k : op_names())
      if (k != ConvProblem::kOp) names += k + ", ";
    throw InputError("--op '" + t + "' selects no problem of " + (given.empty() ? "--suite '" + suite + "'" : std::string("--problem")) +
                     ": give an op (" + names + "all), a mode token of one (relu, max, ...) or conv alone");
  }
  return out;
}

// Flags of `hiprim bench`.
struct BenchFlags {
  std::string suite = "resnet50", solver, report, dtypes = "fp32", layouts = "nchw", dirs = "fwd,bwd-data,bwd-weights";
  std::string op = "conv", peer = "cudnn", cudnn_lib, verify = "full", fill = "auto", combos;
  std::string math = "exact";
  std::vector<std::string> problems;
  std::int64_t batch = 32;
  std::uint64_t seed = 1;
  int warmup = 1, reps = 20, replays = 5, repeats = 3, host_calls = 20, peer_max_plans = 24;
  double budget_ms = 200, time_limit = 0, retime_factor = 3;
  bool best = false, no_ceilings = false, peer_transforms = false;
};

// Prints the peer and ceilings, runs every problem (printing one line each), writes the report;
// the exit code (1 when a case failed, was mistrusted or errored).
int run_bench(verify::Bench& bench, const std::vector<verify::SuiteProblem>& problems, const std::vector<DType>& dtypes,
              const BenchFlags& f) {
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const nlohmann::json peer = bench.peer_json();
  const nlohmann::json machine = verify::machine_json(verify::gpu_json());
  std::printf("build: %s%s\n", machine["git_describe"].get<std::string>().c_str(),
              machine["git_dirty"].get<bool>() ? (" (uncommitted diff sha256 " + machine["git_diff_sha256"].get<std::string>().substr(0, 12) + ")").c_str() : "");
  if (peer.is_object())
    std::printf("peer: %s %s\n", peer.value("name", std::string("?")).c_str(),
                peer.value("available", false) ? (peer["library"].get<std::string>() + ", version " +
                                                  std::to_string(peer["version"].get<long>())).c_str()
                                               : ("unavailable: " + peer.value("reason", std::string())).c_str());
  bench.measure_ceilings(dtypes);
  const nlohmann::json ceilings = bench.ceilings_json();
  if (ceilings["copy"].is_object()) std::printf("ceiling: device copy %.0f GB/s\n", ceilings["copy"]["gbps"].get<double>());
  for (const auto& item : ceilings["gemm"].items()) {
    const nlohmann::json& g = item.value();
    if (g["tflops"].is_number())
      std::printf("ceiling: GEMM %s %.1f TFLOP/s (%s)\n", item.key().c_str(), g["tflops"].get<double>(),
                  g["source"].get<std::string>().c_str());
  }
  std::printf("%zu problems x %d repeats, verify %s, graph replay: %d runs per graph x %d timed replays\n", problems.size(),
              f.repeats, f.verify.c_str(), f.reps, f.replays);
  std::fflush(stdout);

  nlohmann::json cases = bench.run_all(
      problems,
      [&](const std::string& line) {
        if (!line.empty()) std::printf("%s\n", line.c_str());
        std::fflush(stdout);
      },
      [&] { return f.time_limit > 0 && elapsed_s() > f.time_limit; });
  std::set<std::string> run;
  for (const auto& c : cases) run.insert(c["problem"].get<std::string>());
  nlohmann::json settings = bench.settings_json();
  settings["problems_planned"] = problems.size();
  settings["problems_run"] = run.size();
  settings["repeats_planned"] = f.repeats;
  settings["seconds"] = elapsed_s();
  std::string laps;
  for (const auto& v : settings["repeat_seconds"]) laps += (laps.empty() ? "" : ", ") + std::to_string(static_cast<int>(v.get<double>() + 0.5));
  std::printf("seconds per repeat: %s (repeat 1 includes the verification and the peer's autotuning)\n", laps.c_str());
  if (run.size() < problems.size() || settings["repeats_run"].get<int>() < f.repeats)
    std::printf("time limit %.0f s reached: %zu of %zu problems, %d of %d repeats complete\n", f.time_limit, run.size(),
                problems.size(), settings["repeats_run"].get<int>(), f.repeats);
  const nlohmann::json report =
      verify::performance_report(machine, settings, ceilings, peer, cases, command_line(), bench.clocks_json());
  std::printf("\n%s", verify::totals_text(report["totals"]).c_str());
  const nlohmann::json& clk = report["clocks"]["summary"];
  if (report["clocks"]["available"].get<bool>() && clk["sm_mhz"].is_object())
    std::printf("clocks (NVML, %lld samples): SM %.0f-%.0f MHz (median %.0f), memory %.0f-%.0f MHz\n",
                static_cast<long long>(clk["samples"].get<std::int64_t>()), clk["sm_mhz"]["min"].get<double>(),
                clk["sm_mhz"]["max"].get<double>(), clk["sm_mhz"]["median"].get<double>(),
                clk["mem_mhz"].is_object() ? clk["mem_mhz"]["min"].get<double>() : 0.0,
                clk["mem_mhz"].is_object() ? clk["mem_mhz"]["max"].get<double>() : 0.0);
  else
    std::printf("clocks: not logged (%s)\n", report["clocks"]["reason"].get<std::string>().c_str());
  const auto& s = report["summary"];
  std::printf("cases: %lld passed, %lld failed, %lld mistrusted, %lld unsupported, %lld error\n",
              static_cast<long long>(s["passed"].get<std::int64_t>()), static_cast<long long>(s["failed"].get<std::int64_t>()),
              static_cast<long long>(s["mistrusted"].get<std::int64_t>()),
              static_cast<long long>(s["unsupported"].get<std::int64_t>()), static_cast<long long>(s["error"].get<std::int64_t>()));
  std::string path = f.report;
  if (path.empty()) {
    std::string base = f.problems.empty() ? f.suite : "problems";
    if (f.op != "conv") base = f.op + "_" + base;
    for (char& ch : base)
      if (ch == '/' || ch == '.' || ch == ',') ch = '_';
    path = "hiprim_bench_" + base + ".json";
  }
  verify::write_json(path, report);
  std::printf("report: %s\n", path.c_str());
  return s["failed"].get<std::int64_t>() + s["mistrusted"].get<std::int64_t>() + s["error"].get<std::int64_t>() > 0 ? 1 : 0;
}

}  // namespace

Command add_bench(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "bench", "Verify, then time, the GPU solvers (and cuDNN, the peer) on a suite; write a performance report. Needs a GPU (exit 1 without)");
  auto f = std::make_shared<BenchFlags>();
  std::string ops;
  for (const auto& n : primitive_names()) ops += (ops.empty() ? "" : ", ") + n;
  sub->add_option("--op", f->op, "conv, or what to time of the other primitives (comma-separated): ops (" + ops +
                                 "), all, or a token of their problem strings before the "
                                 "dtype (relu, max, fwd-train, ...); ops default to --suite resnet50_ops")->capture_default_str();
  sub->add_option("--suite", f->suite, "Built-in suite (resnet50 and resnet50_ops weight their totals by count) or suite file, "
                                       "comma-separated")->capture_default_str();
  sub->add_option("--problem", f->problems, "A canonical problem string (repeatable); replaces --suite");
  sub->add_option("--batch", f->batch, "Batch size of generated suites")->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20))->capture_default_str();
  sub->add_option("--dtype", f->dtypes, "Generated suites: comma-separated dtypes")->capture_default_str();
  sub->add_option("--layout", f->layouts, "Generated suites: comma-separated layouts (nchw, nhwc)")->capture_default_str();
  sub->add_option("--combo", f->combos, "Generated suites: comma-separated dtype:layout pairs (e.g. fp32:nchw,bf16:nhwc), "
                                        "in this order, instead of the --dtype x --layout cross product");
  sub->add_option("--dir", f->dirs, "Generated conv suites: comma-separated directions (op suites list theirs)")->capture_default_str();
  sub->add_option("--math", f->math, kMathHelp)->capture_default_str();
  sub->add_option("--solver", f->solver, "Time only the GPU solvers matching this glob (default: every one, as --best)");
  sub->add_flag("--best", f->best, "Time every applicable GPU solver and mark the fastest passed one (the default)");
  sub->add_option("--peer", f->peer, "cudnn (the graph API, autotuned), cudnn-legacy (cudnnFind*AlgorithmEx) or none; cuDNN "
                                     "is loaded at run time (unavailable -> the peer columns say so)")
      ->check(CLI::IsMember({"cudnn", "cudnn-legacy", "none"}))->capture_default_str();
  sub->add_option("--cudnn-lib", f->cudnn_lib, "Path of libcudnn.so.9 (default: $HIPRIM_CUDNN_LIB, then the loader's search path)");
  sub->add_flag("--peer-transforms", f->peer_transforms, "Let the autotuner select FFT/Winograd plans of the peer (checked, "
                                                         "not judged: their bound does not apply)");
  sub->add_option("--peer-max-plans", f->peer_max_plans, "The graph-API peer's usable plans per problem, in heuristic order "
                                                         "(each is verified and timed)")
      ->check(CLI::Range(1, 1000))->capture_default_str();
  sub->add_option("--verify", f->verify, "Check each output against the CPU reference before timing it: full (every element, "
                                         "exact tier; the only mode for claims), quick (one channel slice + all finite; not "
                                         "for claims) or none")
      ->check(CLI::IsMember({"full", "quick", "none"}))->capture_default_str();
  sub->add_option("--fill", f->fill, "Verification data: auto (exact where the dot products allow, else bounded), exact "
                                     "(small integers) or bounded (reals in [-1,1)); timing always runs on bounded reals")
      ->check(CLI::IsMember({"auto", "exact", "bounded"}))->capture_default_str();
  sub->add_option("--seed", f->seed, "Seed of the data fills")->capture_default_str();
  sub->add_option("--warmup", f->warmup, "Eager runs before the host-overhead calls")->check(CLI::Range(0, 1000))->capture_default_str();
  sub->add_option("--reps", f->reps, "Runs captured in one graph (rounded up to whole rotations of the input sets)")
      ->check(CLI::Range(1, 100000))->capture_default_str();
  sub->add_option("--replays", f->replays, "Timed replays of the graph per repeat (median)")->check(CLI::Range(1, 1000))->capture_default_str();
  sub->add_option("--repeats", f->repeats, "Times the whole suite is timed in this run (spread reported)")
      ->check(CLI::Range(1, 100))->capture_default_str();
  sub->add_option("--host-calls", f->host_calls, "Back-to-back eager enqueues for the host overhead per call")
      ->check(CLI::Range(1, 100000))->capture_default_str();
  sub->add_option("--budget-ms", f->budget_ms, "Device time per solver's timed replays in a repeat; slower solvers get fewer "
                                               "runs per graph and replays (>= 1 and 3)")
      ->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--retime-factor", f->retime_factor, "Repeats after the first re-time the solvers within this factor of "
                                                       "repeat 1's best (0: all)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_flag("--no-ceilings", f->no_ceilings, "Skip measuring the copy and GEMM ceilings");
  sub->add_option("--time-limit", f->time_limit, "Seconds after which no new problem starts (0: none); the report says where it stopped")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--report", f->report, "JSON report path (default: hiprim_bench_<suite>.json)");
  return [f, sub] {
    if (f->best && !f->solver.empty()) throw InputError("--best times every solver; drop it or --solver '" + f->solver + "'");
    const bool conv = f->op == "conv";
    if (!conv && sub->count("--suite") == 0) f->suite = "resnet50_ops";
    // One SuiteOptions per --combo pair (in order), else the --dtype x --layout cross product.
    std::vector<verify::SuiteOptions> sos;
    if (!f->combos.empty()) {
      if (sub->count("--dtype") || sub->count("--layout")) throw InputError("--combo replaces --dtype and --layout: give one or the other");
      if (!f->problems.empty()) throw InputError("--combo selects generated suites; --problem strings carry their own dtype and layout");
      for (const auto& c : split_list(f->combos)) {
        const auto colon = c.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == c.size())
          throw InputError("--combo '" + c + "': expected dtype:layout, e.g. bf16:nhwc");
        sos.push_back(suite_options_from(f->batch, c.substr(0, colon), c.substr(colon + 1), f->dirs, f->math));
      }
    } else {
      if (!f->problems.empty() && f->math != "exact")
        throw InputError("--math applies to suites; a --problem string carries its own math=tf32 token");
      sos.push_back(suite_options_from(f->batch, f->dtypes, f->layouts, f->dirs, f->math));
    }
    if (f->problems.empty()) {  // options some selected suite must read
      std::vector<std::string> given;
      for (const char* flag : {"--batch", "--dtype", "--layout", "--dir", "--combo"})
        if (sub->count(flag) > 0) given.push_back(flag);
      verify::check_suite_options_apply(split_list(f->suite), given);
    }
    std::vector<verify::SuiteProblem> problems;
    for (const verify::SuiteOptions& so : sos) {
      if (conv && f->suite == "resnet50_ops") throw InputError("--suite resnet50_ops holds op problems: add --op all (or an op)");
      for (auto& sp : conv ? conv_bench_problems(f->suite, f->problems, so) : op_bench_problems(f->suite, f->problems, so, f->op))
        problems.push_back(std::move(sp));
      if (!f->problems.empty()) break;  // --problem strings: once
    }
    if (problems.empty())
      throw InputError("--suite '" + f->suite + "' holds no " + (conv ? std::string("conv") : "--op " + f->op) + " problems");

    verify::BenchOptions o;
    o.warmup = f->warmup;
    o.reps = f->reps;
    o.replays = f->replays;
    o.repeats = f->repeats;
    o.host_calls = f->host_calls;
    o.budget_ms = f->budget_ms;
    o.retime_factor = f->retime_factor;
    o.verify = *verify::parse_verify_mode(f->verify);
    if (f->fill != "auto") o.fill = *verify::parse_fill_tier(f->fill);
    o.seed = f->seed;
    o.solver_glob = f->solver.empty() ? "*" : f->solver;
    o.peer = *verify::parse_peer_kind(f->peer);
    o.peer_transforms = f->peer_transforms;
    o.peer_max_plans = f->peer_max_plans;
    o.cudnn_lib = f->cudnn_lib;
    o.ceilings = !f->no_ceilings;
    std::vector<std::string> ops;  // of the selected problems
    for (const auto& sp : problems)
      if (std::find(ops.begin(), ops.end(), sp.problem->op()) == ops.end()) ops.push_back(sp.problem->op());
    std::set<DType> dtypes;  // of the conv problems: their GEMM ceilings
    for (const ConvProblem& p : verify::conv_problems(problems)) dtypes.insert(p.dtype);
    verify::Bench bench(o, ops);  // RuntimeError (exit 1) without a GPU
    return run_bench(bench, problems, {dtypes.begin(), dtypes.end()}, *f);
  };
}

}  // namespace hiprim::cli
