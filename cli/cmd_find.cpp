// hiprim find | tune: Find and tuning over a problem string or a suite (find/find.hpp,
// find/tune.hpp), recording into the user tuning db; a table per problem, a JSON report with --report.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/find_flags.hpp"
#include "cli/options.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "find/find.hpp"
#include "find/tune.hpp"
#include "verify/report.hpp"

namespace hiprim::cli {
namespace {

std::string time_text(double us) {
  if (us < 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", us);
  return buf;
}

void print_find(const find::FindResult& r, double seconds) {
  std::printf("find %s\n", r.problem.c_str());
  for (const auto& s : r.skipped) std::printf("  skipped   %s\n", s.c_str());
  for (std::size_t i = 0; i < r.tried.size(); ++i) {
    const auto& m = r.tried[i];
    std::printf("  %-8s  %-22s %-34s %12s us  ws %lld  %s\n", static_cast<int>(i) == r.winner ? "WINNER" : m.verified ? "verified" : "REJECTED",
                m.solver.c_str(), m.config.empty() ? "\"\"" : m.config.c_str(), time_text(m.time_us).c_str(),
                static_cast<long long>(m.workspace_bytes), m.verified ? "" : find::measurement_text(m).c_str());
    if (!m.verified) std::printf("            repro: %s\n", m.check.repro.c_str());
  }
  if (r.winner >= 0)
    std::printf("  winner: %s %s %.3f us%s\n", r.tried[r.winner].solver.c_str(), r.tried[r.winner].config.c_str(), r.tried[r.winner].time_us,
                r.recorded ? " (recorded)" : r.records.empty() ? "" : " (NOT recorded)");
  else
    std::printf("  winner: none (no candidate verified)\n");
  std::printf("  find time: %.2f s (every candidate verified and timed)\n", seconds);
  std::fflush(stdout);
}

void print_tune(const find::TuneResult& r) {
  std::printf("tuned %s | %s: %s, %zu of %zu configs in %.1f s; default %s %s us, best %s %s us%s%s\n", r.problem.c_str(), r.solver.c_str(),
              r.mode.c_str(), r.tried, r.space, r.seconds, r.default_config.c_str(), time_text(r.default_us).c_str(), r.best_config.c_str(),
              time_text(r.best_us).c_str(), r.failures.empty() ? "" : (", " + std::to_string(r.failures.size()) + " configs REJECTED").c_str(),
              r.recorded ? " (recorded)" : " (not recorded)");
  std::fflush(stdout);
}

// The JSON report of `hiprim <command>` with its results under `key`, when --report was given.
void write_report(const std::string& path, const char* command, const char* key, const nlohmann::json& results) {
  if (path.empty()) return;
  verify::write_json(path, {{"command", command}, {"command_line", command_line()}, {"machine", verify::machine_json(verify::gpu_json())},
                            {key, results}});
  std::printf("report: %s\n", path.c_str());
}

}  // namespace

Command add_find(CLI::App& app) {
  auto* sub = app.add_subcommand("find", "Find: verify and time every applicable solver (default and tuned configs), record the winner in the find db");
  auto f = std::make_shared<FindFlags>();
  f->add_to(*sub);
  return [f] {
    const auto counted = f->counted_problems();
    std::vector<OpProblemPtr> problems;
    for (const auto& sp : counted) problems.push_back(sp.problem);
    const Backend b = f->backend_value();
    const OpSolverList solvers = f->solvers(problems);
    find::FindOptions o;
    o.measure = f->measure();
    o.record = !f->no_record;
    const tuning::TuningDbs dbs;
    nlohmann::json results = nlohmann::json::array();
    int code = 0, none = 0;
    double total_s = 0, winners_us = 0;  // winners_us: the winners' times weighted by the suite's counts
    for (const auto& [p, count] : counted) {
      const auto t0 = std::chrono::steady_clock::now();
      const find::FindResult r = find::find_problem(p, solvers, b, dbs, o);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      total_s += seconds;
      print_find(r, seconds);
      results.push_back(find::find_json(r));
      results.back()["find_seconds"] = seconds;
      results.back()["count"] = count;
      if (r.winner >= 0) winners_us += static_cast<double>(count) * r.tried[r.winner].time_us;
      for (const auto& m : r.tried)
        if (!m.verified) code = 1;  // a solver that fails verification is a defect: reported, exit 1
      none += r.winner < 0;
    }
    std::printf("find: %zu problems, %d without a verified winner, %.1f s (%.2f s per problem)\n", problems.size(), none, total_s,
                problems.empty() ? 0.0 : total_s / static_cast<double>(problems.size()));
    if (!f->suite.empty())
      std::printf("find: whole suite (each problem times its count): the winners take %.3f ms%s\n", winners_us / 1000,
                  none > 0 ? " (problems without a winner left out)" : "");
    write_report(f->report, "find", "problems", results);
    return none > 0 ? 1 : code;
  };
}

Command add_tune(CLI::App& app) {
  auto* sub = app.add_subcommand("tune", "Tune: search each solver's perf configs (exhaustive up to 24, else sampled within --budget-s), record the best in the perf db");
  auto f = std::make_shared<FindFlags>();
  auto budget = std::make_shared<double>(30.0);
  auto seed = std::make_shared<std::uint64_t>(1);
  f->add_to(*sub);
  sub->add_option("--budget-s", *budget, "Wall-time budget per problem and solver of a sampled search (spaces over 24 configs)")->capture_default_str();
  sub->add_option("--search-seed", *seed, "Seed of the sampled search's random order")->capture_default_str();
  return [f, budget, seed] {
    if (!(*budget > 0)) throw InputError("--budget-s " + std::to_string(*budget) + ": expected a positive number of seconds");
    const auto counted = f->counted_problems();
    std::vector<OpProblemPtr> problems;
    for (const auto& sp : counted) problems.push_back(sp.problem);
    const Backend b = f->backend_value();
    const OpSolverList solvers = f->solvers(problems);
    find::TuneOptions o;
    o.measure = f->measure();
    o.record = !f->no_record;
    o.budget_s = *budget;
    o.seed = *seed;
    o.progress = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
    const tuning::TuningDbs dbs;
    nlohmann::json results = nlohmann::json::array();
    std::size_t tuned = 0, improved = 0, rejected = 0, both = 0;
    double default_total = 0, best_total = 0;  // weighted by the counts, over the tunings with both times
    for (const auto& [p, count] : counted) {
      const auto rs = find::tune_problem(p, solvers, b, dbs, o);
      if (rs.empty()) std::printf("tuned %s: no candidate solver with perf configs\n", p->str().c_str());
      for (const auto& r : rs) {
        print_tune(r);
        results.push_back(find::tune_json(r));
        results.back()["count"] = count;
        if (r.best_us >= 0 && r.default_us >= 0)
          ++both, default_total += static_cast<double>(count) * r.default_us, best_total += static_cast<double>(count) * r.best_us;
        tuned += r.best_us >= 0;
        improved += r.best_us >= 0 && r.default_us > 0 && r.best_us < r.default_us;
        rejected += r.failures.size();
      }
    }
    std::printf("tune: %zu problems, %zu solver tunings with a verified best, %zu faster than the default\n", problems.size(), tuned, improved);
    if (!f->suite.empty() && both > 0)
      std::printf("tune: whole suite (each problem times its count, %zu tunings with a verified default and best): default %.3f ms, tuned %.3f ms (x%.3f)\n",
                  both, default_total / 1000, best_total / 1000, best_total > 0 ? default_total / best_total : 0.0);
    write_report(f->report, "tune", "tunings", results);
    return rejected > 0 ? 1 : 0;  // a config that fails verification is a defect: reported, exit 1
  };
}

}  // namespace hiprim::cli
