// JSON reports, schema "hiprim.report" version 2 (documented in reports/README.md; version 1
// reports, the committed ones written before 2026-12-02, still validate under version 1's rules).
// JSON has no inf/NaN: non-finite doubles are written as the strings "inf", "-inf", "nan".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "verify/compare.hpp"
#include "verify/fill.hpp"

namespace hiprim::verify {

inline constexpr const char* kReportSchema = "hiprim.report";
inline constexpr int kReportSchemaVersion = 2;
inline constexpr int kOldestReportSchemaVersion = 1;  // the checker accepts versions 1..2

// A double as JSON: a number when finite, else "inf", "-inf" or "nan"; and back (InputError on
// anything else).
nlohmann::json number_json(double v);
double number_from_json(const nlohmann::json& j);

// Current UTC time, ISO-8601 to the second: "2026-11-30T14:03:09Z".
std::string utc_timestamp();
// argv joined by spaces, arguments with spaces or shell metacharacters quoted.
std::string join_command(int argc, const char* const* argv);
// The one line that reproduces a case: hiprim repro "<problem>" --solver S --seed N
std::string repro_command(const std::string& problem, const std::string& solver, std::uint64_t seed);

// The source tree these binaries were built from, recorded at build time (cmake/provenance.cmake
// generates the definition on every build; the device machine runs binaries built elsewhere and has
// no .git). describe: `git describe --always --dirty`; commit: HEAD's short hash; dirty: tracked
// changes or untracked non-ignored files; diff_sha256: SHA-256 of the uncommitted diff and the
// untracked files' hashes ("" when clean); note: why a field is "unknown" (no git), else "".
struct BuildProvenance {
  std::string describe, commit;
  bool dirty = false;
  std::string diff_sha256, note;
};
BuildProvenance build_provenance();

// {host, os, compiler, cpu_cores, git_commit, git_describe, git_dirty, git_diff_sha256, provenance,
// gpu}; gpu is null or the given object (name, compute_capability, sm_count, memory_bytes,
// runtime_version, backend, ...) with driver_version set to the NVIDIA driver's version from NVML
// ("580.159.04"; "unknown: <why>" without NVML) and cuda_driver_api_version holding the CUDA driver
// API number the object carried as driver_version (gpu_json() writes cudaDriverGetVersion there).
nlohmann::json machine_json(const nlohmann::json& gpu);
nlohmann::json metrics_json(const Metrics& m);

struct CaseRecord {
  std::string problem, solver;
  Verdict verdict;
  std::uint64_t seed = 0;
  FillTier fill = FillTier::exact;
  std::string tolerance;
  double time_ms = 0;
  std::optional<bool> deterministic;  // null: not checked
  std::string repro;
};

nlohmann::json case_json(const CaseRecord& c);
// Whether a case did not run because this machine has no usable GPU or the build has no GPU backend:
// status unsupported with one of the reasons backend_unavailable() (verify/guarded_buffer.hpp) gives,
// "no GPU device: <why>" or "built without a GPU backend", as opposed to a solver's own refusal.
bool not_run_no_device(Status status, std::string_view reason);
bool not_run_no_device(const CaseRecord& c);
// The cases of a report's "cases" array that not_run_no_device() holds for.
std::int64_t count_not_run_no_device(const nlohmann::json& cases);

// {total, passed, failed, mistrusted, unsupported, error} counted from the cases' statuses, and
// not_run_no_device: how many of the unsupported ones did not run for want of a GPU.
nlohmann::json summary_json(const std::vector<CaseRecord>& cases);
nlohmann::json conformance_report(const nlohmann::json& machine, const std::vector<CaseRecord>& cases,
                                  const std::string& command);

// Writes j (indented) to path; RuntimeError naming the path when it cannot.
void write_json(const std::string& path, const nlohmann::json& j);
// Reads a JSON file; InputError naming the path when it is missing or not JSON.
nlohmann::json read_json(const std::string& path);

// Every violation of the schema ("<json path>: <what is wrong>"); empty when the report conforms.
std::vector<std::string> check_report_schema(const nlohmann::json& report);

}  // namespace hiprim::verify
