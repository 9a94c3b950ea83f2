// The records of hiprim's tuning db (one SQLite file, schema in tuning/README.md):
//   find records: what Find measured for a problem on a device, one record per solver;
//   perf records: what tuning found for one solver of a problem: its best config against the default.
// Every record is keyed by a DbKey: the canonical problem string, the device (name, SM count,
// compute capability) and hiprim's version, so a record made on another device or by another
// hiprim is never returned (an upgrade reads no stale entry, and no db needs deleting).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tuning/db.hpp"

namespace hiprim::tuning {

struct DbKey {
  std::string problem;             // canonical problem string (core: OpProblem::str())
  std::string device;              // device name, e.g. "NVIDIA H200"
  int sm_count = 0;                // streaming multiprocessors (compute units on AMD)
  std::string compute_capability;  // "9.0" on NVIDIA, the gfx name on AMD
  std::string hiprim_version;      // the hiprim that measured, e.g. "0.1.0"

  // "<problem> | <device> | sm <n> | cc <c> | hiprim <v>": the key as one line of text.
  std::string text() const;
  // Throws InputError naming the field that is empty, holds a line break or '|', or is not positive.
  void validate() const;
  friend bool operator==(const DbKey&, const DbKey&) = default;
};

// The version that keys this build's records (CMake's PROJECT_VERSION).
std::string current_hiprim_version();

struct FindRecord {
  DbKey key;
  std::string solver;
  std::string config;              // the solver's perf config ("" when it has none)
  double time_us = 0;              // measured time of one call
  std::int64_t workspace_bytes = 0;
  bool verified = false;           // the output was checked against the CPU reference
  std::int64_t recorded_at = 0;    // Unix seconds (UTC); 0 on put: now
  friend bool operator==(const FindRecord&, const FindRecord&) = default;
};

struct PerfRecord {
  DbKey key;
  std::string solver;
  std::string config;              // the best config tuning found
  double time_us = 0;              // its time
  double default_time_us = 0;      // the time of the solver's default config on the same problem
  double tuning_seconds = 0;       // how long tuning took
  std::int64_t recorded_at = 0;    // Unix seconds (UTC); 0 on put: now
  friend bool operator==(const PerfRecord&, const PerfRecord&) = default;
};

// The schema of the tuning db file: application_id 'HPTD', version kTuningSchemaVersion.
// Version 2 added the immediate-mode model's table (tuning/model.hpp).
inline constexpr std::int32_t kTuningSchemaVersion = 2;
const Schema& tuning_schema();

// The find records of one db. put replaces the record of the same key and solver.
class FindDb {
 public:
  explicit FindDb(const Db& db) : db_(db) {}
  void put(const FindRecord& r) const { put_all({r}); }
  void put_all(const std::vector<FindRecord>& rs) const;  // one transaction for all
  std::vector<FindRecord> records(const DbKey& key) const;  // fastest first
  std::optional<FindRecord> best_verified(const DbKey& key) const;
  // Every record, or those of one problem string; ordered by key, then time.
  std::vector<FindRecord> all(const std::string& problem = "") const;

 private:
  const Db& db_;
};

// The perf records of one db. put replaces the record of the same key and solver.
class PerfDb {
 public:
  explicit PerfDb(const Db& db) : db_(db) {}
  void put(const PerfRecord& r) const { put_all({r}); }
  void put_all(const std::vector<PerfRecord>& rs) const;  // one transaction for all
  std::optional<PerfRecord> get(const DbKey& key, const std::string& solver) const;
  std::vector<PerfRecord> all(const std::string& problem = "") const;

 private:
  const Db& db_;
};

}  // namespace hiprim::tuning
