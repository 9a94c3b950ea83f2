// Hunting mutants with the fuzzer: one campaign per mutant until its first failure of the solver
// proper, and the report of catch rate, cases to catch and shrunk sizes (shared by the CPU and GPU
// mutant tests). HIPRIM_FUZZ_MUTANT_REPORT=<path> makes the tests write that report.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/conv_solver.hpp"
#include "fuzz/campaign.hpp"
#include "fuzz/conv_primitive.hpp"

namespace hiprim::fuzz_test {

struct Hunt {
  std::string solver, bug;
  fuzz::CampaignResult result;
  const fuzz::Failure* catch_failure() const;  // the first failure with no failure class, or null
  bool caught() const { return catch_failure() != nullptr; }
};

// Fuzzes one target for at most max_cases cases of campaign `seed` (and max_seconds, when > 0),
// stopping at its first failure of the solver proper.
Hunt hunt_target(fuzz::FuzzTargetPtr target, const std::string& bug, std::int64_t max_cases, std::uint64_t seed = 1,
                 double max_seconds = 0);
// The conv target of the solver (its probed domain, small sizes), hunted as above.
Hunt hunt(std::shared_ptr<const ConvSolver> solver, const std::string& bug, std::int64_t max_cases, std::uint64_t seed = 1,
          const fuzz::ConvTargetOptions& o = {}, double max_seconds = 0);

// One hunt's entry of the report below (solver, bug, caught, cases_run, seconds; when caught also
// cases_to_catch, found/shrunk problem, repro line and size in `unit`, shrink steps/runs/seconds,
// the shrunk case's status and reason).
nlohmann::json hunt_entry(const Hunt& h, const std::string& unit = "macs");

// The hunts of one mutant, one per campaign seed (seeds 1, 2, ...).
using MutantHunts = std::vector<Hunt>;

// Report: a fuzz report over the seed-1 hunts plus "mutants": [{solver, bug, caught, cases_to_catch,
// found/shrunk problem and MACs, shrink steps/runs, repro, and over all seeds: seeds, caught_seeds,
// cases_to_catch_by_seed, max_shrunk_macs}], "catch_rate" (mutants caught with seed 1 / mutants),
// "catch_rate_all_seeds" and the control's result. `op` names the campaign's primitive; sizes are
// "macs" for conv and "elements" (of all tensors) for the other ops (found_<unit>, shrunk_<unit>).
nlohmann::json mutant_report(const std::vector<MutantHunts>& hunts, const Hunt& control, const std::string& command,
                             const std::string& op = "conv");
// Writes the report to $<env> when it is set; returns the path or "".
std::string write_mutant_report_if_asked(const std::vector<MutantHunts>& hunts, const Hunt& control, const std::string& command,
                                         const std::string& op = "conv", const char* env = "HIPRIM_FUZZ_MUTANT_REPORT");

}  // namespace hiprim::fuzz_test
