// A fuzz campaign: cases 0, 1, 2, ... of a seed, this shard's share of them, spread over the targets
// (case i goes to target i mod T), until a case count or a time limit. Every failing case is shrunk
// greedily along its generator's shrink tree (the first simpler case that still fails with the same
// status is taken, and so on) to a minimal case whose repro line is printed, saved to the corpus and
// written to the JSON report (kind "fuzz", schema in reports/README.md).
// A failure of a data class (CaseSpec::failure_class, e.g. special values) is reported once per target
// and that class is no longer drawn for it; other failures count toward the target's retirement.
// Failures are cases that failed, errored or were mistrusted (a mistrusted case verified nothing:
// it counts against the campaign, and the exit code of `hiprim fuzz` says so).
//
// Case i draws from rc::Random(case_key(seed, i)) with size 10 + key % 91, so it is the same case in
// every shard layout and on every machine (RapidCheck's generator is counter-based).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/shard.hpp"
#include "fuzz/target.hpp"

namespace hiprim::fuzz {

struct CampaignOptions {
  std::uint64_t seed = 1;
  std::int64_t max_cases = 0;  // total over all shards (this shard runs its share); 0: no limit
  double max_seconds = 0;      // wall-clock limit of this process; 0: none (one of the two limits is required)
  Shard shard;
  std::string corpus_dir;             // non-empty: each shrunk failure is saved there as a one-line file
  int max_failures_per_target = 3;    // a target is retired after this many failures (of no failure class)
  int max_shrink_runs = 1000;         // case runs per shrink
  double max_shrink_seconds = 60;     // wall clock per shrink
  int max_consecutive_discards = 200; // a target whose cases are refused this many times in a row is retired
};

// One failure: the case as found and as shrunk.
struct Failure {
  std::string target;                 // solver name
  std::string failure_class;          // the shrunk case's data class ("" for the solver proper)
  std::uint64_t case_index = 0;       // campaign case number that found it
  std::int64_t cases_to_catch = 0;    // cases run on this target up to and including this one
  verify::CaseRecord found, shrunk;   // shrunk == found when no simpler failing case exists
  double found_size = 0, shrunk_size = 0;
  std::string shrunk_data;
  int shrink_steps = 0, shrink_runs = 0;
  std::string corpus_file;  // where it was saved, if it was
};

struct TargetStats {
  std::string solver, domain;
  std::int64_t cases = 0, discards = 0;  // cases run (discards not included), cases the solver refused
  std::map<std::string, std::int64_t> statuses;  // status name -> cases
  std::map<std::string, std::int64_t> coverage;  // class -> cases that hit it (every reachable class listed)
  std::vector<SkippedClass> skipped;
  bool retired = false;
  std::string retired_reason;
};

struct CampaignResult {
  std::vector<TargetStats> targets;
  std::vector<Failure> failures;
  std::int64_t cases = 0, discards = 0, shrink_runs = 0;
  double seconds = 0, shrink_seconds = 0;
  double cases_per_second() const;  // cases run (discards excluded) per second of fuzzing (shrinking excluded)
  std::uint64_t last_case_index = 0;  // the highest case number this shard ran (+1), for resuming
};

// Live progress: called about every `progress_interval_s` seconds and once at the end (final = true).
struct Progress {
  std::int64_t cases = 0, discards = 0, failures = 0;
  double seconds = 0, cases_per_second = 0;
  std::int64_t covered = 0, reachable = 0;  // classes hit / reachable, summed over targets
  std::string activity;                     // "" or e.g. "shrinking conv.x (12 runs)"
  bool final = false;
};
using ProgressFn = std::function<void(const Progress&)>;

// Case i's generator key (splitmix64 of seed and i).
std::uint64_t case_key(std::uint64_t seed, std::uint64_t case_index);

CampaignResult run_campaign(const std::vector<FuzzTargetPtr>& targets, const CampaignOptions& o,
                            const ProgressFn& progress = {}, double progress_interval_s = 0.5);

// Greedy shrink of a failing case: walks the shrink tree taking the first child whose run has the
// same status as `failing`; stops at a case none of whose shrinks fails, or at the budgets.
struct ShrinkResult {
  rc::Shrinkable<CaseSpecPtr> minimal;
  verify::CaseRecord record;
  int steps = 0, runs = 0;
};
ShrinkResult shrink_failure(const FuzzTarget& t, const rc::Shrinkable<CaseSpecPtr>& failing, const verify::CaseRecord& rec,
                            int max_runs, double max_seconds, const std::function<void(int runs)>& on_run = {});

// The JSON report (kind "fuzz"): cases = the shrunk failures (status failed/error/mistrusted), each with
// a "fuzz" object (found problem, sizes, shrink steps, cases to catch); "campaign" = seed, shard,
// limits, counts, throughput, per-target coverage. `command` is the command line.
nlohmann::json fuzz_report(const CampaignResult& r, const CampaignOptions& o, const std::string& op,
                           const std::string& command, const nlohmann::json& extra = nlohmann::json::object());

// The "campaign" object of several shard reports of one campaign, as one: counts, statuses and
// per-target coverage summed, cases_per_second summed (shards run in parallel), seconds the
// longest, shards listed. `hiprim report merge` keeps the first report's top-level keys, so the
// merge of fuzz reports sets "campaign" from this. InputError when a campaign object is malformed.
nlohmann::json merge_fuzz_campaigns(const std::vector<nlohmann::json>& campaigns);

// The count identities of a "campaign" object (one shard's or a merge's): the statuses (passed,
// failed, mistrusted, error) add up to cases, failures = failed + error + mistrusted, and the
// targets' cases and discards add up to the campaign's; per target, its statuses add up to its
// cases. One message per broken identity (empty: all hold). fuzz_report refuses to write a
// campaign that breaks one; the merge of campaigns that hold them holds them (reports written
// before mistrusted cases counted as failures break the failures identity).
std::vector<std::string> campaign_count_errors(const nlohmann::json& campaign);

// "1234 cases (456.7/s), 1 failure, coverage 21/24, 3% discarded"
std::string progress_line(const Progress& p, const Shard& shard);

}  // namespace hiprim::fuzz
