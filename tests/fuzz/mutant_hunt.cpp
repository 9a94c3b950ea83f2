#include "tests/fuzz/mutant_hunt.hpp"

#include <algorithm>
#include <cstdlib>

#include "verify/report.hpp"

namespace hiprim::fuzz_test {

const fuzz::Failure* Hunt::catch_failure() const {
  for (const auto& f : result.failures)
    if (f.failure_class.empty()) return &f;
  return nullptr;
}

Hunt hunt_target(fuzz::FuzzTargetPtr target, const std::string& bug, std::int64_t max_cases, std::uint64_t seed, double max_seconds) {
  fuzz::CampaignOptions co;
  co.seed = seed;
  co.max_cases = max_cases;
  co.max_seconds = max_seconds;
  co.max_failures_per_target = 1;
  co.max_shrink_runs = 1000;
  co.max_shrink_seconds = 20;
  Hunt h;
  h.solver = target->solver();
  h.bug = bug;
  h.result = fuzz::run_campaign({std::move(target)}, co);
  return h;
}

Hunt hunt(std::shared_ptr<const ConvSolver> solver, const std::string& bug, std::int64_t max_cases, std::uint64_t seed,
          const fuzz::ConvTargetOptions& o, double max_seconds) {
  return hunt_target(fuzz::conv_fuzz_target(solver, o), bug, max_cases, seed, max_seconds);
}

nlohmann::json hunt_entry(const Hunt& h, const std::string& unit) {
  nlohmann::json m = {{"solver", h.solver}, {"bug", h.bug}, {"caught", h.caught()}, {"cases_run", h.result.cases}, {"seconds", h.result.seconds}};
  if (const fuzz::Failure* f = h.catch_failure()) {
    m["cases_to_catch"] = f->cases_to_catch;
    m["found_problem"] = f->found.problem;
    m["found_repro"] = f->found.repro;
    m["found_" + unit] = f->found_size;
    m["shrunk_problem"] = f->shrunk.problem;
    m["shrunk_" + unit] = f->shrunk_size;
    m["shrunk_data"] = f->shrunk_data;
    m["shrink_steps"] = f->shrink_steps;
    m["shrink_runs"] = f->shrink_runs;
    m["shrink_seconds"] = h.result.shrink_seconds;
    m["status"] = std::string(verify::status_name(f->shrunk.verdict.status));
    m["reason"] = f->shrunk.verdict.reason;
    m["repro"] = f->shrunk.repro;
  }
  return m;
}

nlohmann::json mutant_report(const std::vector<MutantHunts>& hunts, const Hunt& control, const std::string& command, const std::string& op) {
  using nlohmann::json;
  const std::string unit = op == "conv" ? "macs" : "elements";
  fuzz::CampaignResult all;
  json mutants = json::array();
  int caught = 0, hunts_caught = 0, hunts_run = 0;
  for (const MutantHunts& by_seed : hunts) {
    const Hunt& h = by_seed.at(0);
    all.targets.insert(all.targets.end(), h.result.targets.begin(), h.result.targets.end());
    all.failures.insert(all.failures.end(), h.result.failures.begin(), h.result.failures.end());
    all.cases += h.result.cases;
    all.discards += h.result.discards;
    all.seconds += h.result.seconds;
    all.shrink_seconds += h.result.shrink_seconds;
    all.shrink_runs += h.result.shrink_runs;
    json m = hunt_entry(h, unit);
    if (h.caught()) ++caught;
    json by_seed_cases = json::array();
    double max_shrunk = 0;
    int seeds_caught = 0;
    for (const Hunt& hs : by_seed) {
      const fuzz::Failure* fs = hs.catch_failure();
      by_seed_cases.push_back(fs ? json(fs->cases_to_catch) : json(nullptr));
      if (fs) max_shrunk = std::max(max_shrunk, fs->shrunk_size);
      seeds_caught += fs ? 1 : 0;
    }
    hunts_caught += seeds_caught;
    hunts_run += static_cast<int>(by_seed.size());
    m["seeds"] = by_seed.size();
    m["caught_seeds"] = seeds_caught;
    m["cases_to_catch_by_seed"] = by_seed_cases;
    m["max_shrunk_" + unit] = max_shrunk;
    mutants.push_back(m);
  }
  fuzz::CampaignOptions o;
  o.seed = 1;
  json extra = {{"mutants", mutants},
                {"catch_rate", hunts.empty() ? 0.0 : static_cast<double>(caught) / static_cast<double>(hunts.size())},
                {"caught", caught},
                {"catch_rate_all_seeds", hunts_run ? static_cast<double>(hunts_caught) / hunts_run : 0.0},
                {"mutant_count", static_cast<std::int64_t>(hunts.size())},
                {"control", {{"solver", control.solver}, {"cases", control.result.cases}, {"failures", static_cast<std::int64_t>(control.result.failures.size())},
                             {"cases_per_second", control.result.cases_per_second()}}}};
  return fuzz::fuzz_report(all, o, op, command, extra);
}

std::string write_mutant_report_if_asked(const std::vector<MutantHunts>& hunts, const Hunt& control, const std::string& command,
                                         const std::string& op, const char* env) {
  const char* path = std::getenv(env);
  if (!path || !*path) return "";
  verify::write_json(path, mutant_report(hunts, control, command, op));
  return path;
}

}  // namespace hiprim::fuzz_test
