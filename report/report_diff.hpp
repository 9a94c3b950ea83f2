// Comparing and combining reports: `hiprim report diff` (the CI gate) and `hiprim report merge`.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hiprim::verify {

// "5%", "5" (percent) or "0.5%" -> 0.05, 0.05, 0.005. InputError naming the text unless it is a
// finite non-negative number with an optional trailing '%'.
double parse_slowdown(const std::string& text);

struct DiffResult {
  std::vector<std::string> regressions;  // each: what changed, the case, and its repro line
  std::vector<std::string> notes;        // improvements, new and fixed cases (no effect on the verdict)
  int compared = 0;                      // cases present in both reports
  int timed = 0;                         // of those, timed in both
};

// Matches cases by (problem, solver); a key that occurs several times takes its worst status and its
// slowest median. Regressions: a case that passed in OLD and in NEW has another status or is missing;
// a case timed in both (performance reports) whose median grew by more than max_slowdown
// (new / old - 1 > max_slowdown). InputError when a report violates the schema or the kinds differ.
DiffResult diff_reports(const nlohmann::json& old_report, const nlohmann::json& new_report, double max_slowdown);

// Concatenates the cases of same-kind reports (InputError naming the file otherwise, or when one
// violates the schema); machine, settings and the copy ceiling come from the first, the GEMM ceiling
// of each dtype from the first source that measured it; the summary, the best
// case of each problem and the totals (performance) are recomputed; merged_from lists each source
// (name, created, command, cases, its machine's host and GPU, and problems_planned / problems_run
// when its settings have them).
nlohmann::json merge_reports(const std::vector<nlohmann::json>& reports, const std::vector<std::string>& names,
                             const std::string& command);

}  // namespace hiprim::verify
