// The tuning db's tables and the find / perf record stores on them. Both tables share the key
// columns and the primary key (key, solver); the Table traits below hold what differs.
#include "tuning/records.hpp"

#include <cmath>
#include <ctime>

namespace hiprim::tuning {

#ifndef HIPRIM_VERSION_STRING
#error "HIPRIM_VERSION_STRING (CMake's PROJECT_VERSION) must be defined for tuning/records.cpp"
#endif

std::string current_hiprim_version() { return HIPRIM_VERSION_STRING; }

std::string DbKey::text() const {
  return problem + " | " + device + " | sm " + std::to_string(sm_count) + " | cc " + compute_capability + " | hiprim " + hiprim_version;
}

void DbKey::validate() const {
  auto text_field = [](const std::string& v, const char* name) {
    if (v.empty()) throw InputError(std::string("tuning db key: ") + name + " is empty");
    if (v.find_first_of("|\n\r") != std::string::npos)
      throw InputError(std::string("tuning db key: ") + name + " '" + v + "' holds '|' or a line break");
  };
  text_field(problem, "problem");
  text_field(device, "device name");
  text_field(compute_capability, "compute capability");
  text_field(hiprim_version, "hiprim version");
  if (sm_count <= 0) throw InputError("tuning db key: SM count " + std::to_string(sm_count) + " is not positive");
}

namespace {

// application_id 'HPTD' (hiprim tuning db) marks the file as ours.
constexpr std::int32_t kApplicationId = 0x48505444;

constexpr const char* kKeyColumns = "problem, device, sm_count, cc, hiprim_version";
constexpr const char* kKeyMatch = "problem = ?1 AND device = ?2 AND sm_count = ?3 AND cc = ?4 AND hiprim_version = ?5";

void bind_key(Statement& st, const DbKey& k) {
  st.bind(0, k.problem).bind(1, k.device).bind(2, std::int64_t{k.sm_count}).bind(3, k.compute_capability).bind(4, k.hiprim_version);
}

DbKey read_key(const Statement& st) {
  return DbKey{st.text(0), st.text(1), static_cast<int>(st.integer(2)), st.text(3), st.text(4)};
}

void check_time(double t, const char* what, const std::string& solver) {
  if (!std::isfinite(t) || t < 0)
    throw InputError("tuning record of " + solver + ": " + what + " " + std::to_string(t) + " is not a finite time >= 0");
}

std::int64_t stamp(std::int64_t at) { return at != 0 ? at : static_cast<std::int64_t>(std::time(nullptr)); }

// The columns of both tables: the key (0-4), solver, config, time_us (5-7), two of the table's own
// (8-9, the traits below), recorded_at (10); parameters bind in the same order.
constexpr int kColumnCount = 11;

template <class R>
void validate_common(const R& r) {
  r.key.validate();
  if (r.solver.empty()) throw InputError("tuning record of " + r.key.text() + ": the solver name is empty");
  check_time(r.time_us, "time_us", r.solver);
}

struct FindTable {
  using Record = FindRecord;
  static constexpr const char* name = "find_records";
  static constexpr const char* own_columns = "workspace_bytes, verified";
  static void validate(const Record& r) {
    if (r.workspace_bytes < 0) throw InputError("find record of " + r.solver + ": workspace bytes " + std::to_string(r.workspace_bytes) + " < 0");
  }
  static void bind(Statement& st, const Record& r) { st.bind(8, r.workspace_bytes).bind(9, std::int64_t{r.verified}); }
  static void read(const Statement& st, Record& r) {
    r.workspace_bytes = st.integer(8);
    r.verified = st.integer(9) != 0;
  }
};

struct PerfTable {
  using Record = PerfRecord;
  static constexpr const char* name = "perf_records";
  static constexpr const char* own_columns = "default_time_us, tuning_seconds";
  static void validate(const Record& r) {
    check_time(r.default_time_us, "default_time_us", r.solver);
    check_time(r.tuning_seconds, "tuning_seconds", r.solver);
  }
  static void bind(Statement& st, const Record& r) { st.bind(8, r.default_time_us).bind(9, r.tuning_seconds); }
  static void read(const Statement& st, Record& r) {
    r.default_time_us = st.real(8);
    r.tuning_seconds = st.real(9);
  }
};

template <class T>
std::string column_list() {
  return std::string(kKeyColumns) + ", solver, config, time_us, " + T::own_columns + ", recorded_at";
}

template <class T>
typename T::Record read_row(const Statement& st) {
  typename T::Record r;
  r.key = read_key(st);
  r.solver = st.text(5);
  r.config = st.text(6);
  r.time_us = st.real(7);
  T::read(st, r);
  r.recorded_at = st.integer(10);
  return r;
}

// Every record in one transaction; each replaces the record of its key and solver.
template <class T>
void put_rows(const Db& db, const std::vector<typename T::Record>& rs) {
  for (const auto& r : rs) {
    validate_common(r);
    T::validate(r);
  }
  std::string marks;
  for (int i = 1; i <= kColumnCount; ++i) marks += (i > 1 ? ", ?" : "?") + std::to_string(i);
  const std::string sql = std::string("INSERT OR REPLACE INTO ") + T::name + " (" + column_list<T>() + ") VALUES (" + marks + ")";
  db.write([&] {
    auto st = db.prepare(sql);
    for (const auto& r : rs) {
      bind_key(st, r.key);
      st.bind(5, r.solver).bind(6, r.config).bind(7, r.time_us).bind(10, stamp(r.recorded_at));
      T::bind(st, r);
      st.run();
    }
  });
}

// The rows matching where, whose parameters bind() sets.
template <class T, class Bind>
std::vector<typename T::Record> select_rows(const Db& db, const std::string& where, const char* order, const Bind& bind) {
  auto st = db.prepare("SELECT " + column_list<T>() + " FROM " + T::name + (where.empty() ? "" : " WHERE " + where) + " ORDER BY " + order);
  bind(st);
  std::vector<typename T::Record> out;
  while (st.step()) out.push_back(read_row<T>(st));
  return out;
}

template <class T>
std::vector<typename T::Record> rows_of_problem(const Db& db, const std::string& problem) {
  return select_rows<T>(db, problem.empty() ? "" : "problem = ?1", "problem, device, sm_count, cc, hiprim_version, time_us, solver",
                        [&](Statement& st) {
                          if (!problem.empty()) st.bind(0, problem);
                        });
}

}  // namespace

const Schema& tuning_schema() {
  static const Schema schema{kApplicationId, kTuningSchemaVersion, R"sql(
CREATE TABLE find_records (
  problem TEXT NOT NULL, device TEXT NOT NULL, sm_count INTEGER NOT NULL, cc TEXT NOT NULL, hiprim_version TEXT NOT NULL,
  solver TEXT NOT NULL, config TEXT NOT NULL,
  time_us REAL NOT NULL CHECK (time_us >= 0),
  workspace_bytes INTEGER NOT NULL CHECK (workspace_bytes >= 0),
  verified INTEGER NOT NULL CHECK (verified IN (0, 1)),
  recorded_at INTEGER NOT NULL,
  PRIMARY KEY (problem, device, sm_count, cc, hiprim_version, solver)
) WITHOUT ROWID;
CREATE TABLE perf_records (
  problem TEXT NOT NULL, device TEXT NOT NULL, sm_count INTEGER NOT NULL, cc TEXT NOT NULL, hiprim_version TEXT NOT NULL,
  solver TEXT NOT NULL, config TEXT NOT NULL,
  time_us REAL NOT NULL CHECK (time_us >= 0),
  default_time_us REAL NOT NULL CHECK (default_time_us >= 0),
  tuning_seconds REAL NOT NULL CHECK (tuning_seconds >= 0),
  recorded_at INTEGER NOT NULL,
  PRIMARY KEY (problem, device, sm_count, cc, hiprim_version, solver)
) WITHOUT ROWID;
CREATE TABLE model_points (
  problem TEXT NOT NULL, device TEXT NOT NULL, sm_count INTEGER NOT NULL, cc TEXT NOT NULL, hiprim_version TEXT NOT NULL,
  category TEXT NOT NULL, features TEXT NOT NULL,
  rank INTEGER NOT NULL CHECK (rank >= 0),
  solver TEXT NOT NULL, config TEXT NOT NULL,
  time_us REAL NOT NULL CHECK (time_us >= 0),
  PRIMARY KEY (problem, device, sm_count, cc, hiprim_version, rank)
) WITHOUT ROWID)sql"};
  return schema;
}

void FindDb::put_all(const std::vector<FindRecord>& rs) const { put_rows<FindTable>(db_, rs); }

std::vector<FindRecord> FindDb::records(const DbKey& key) const {
  return select_rows<FindTable>(db_, kKeyMatch, "time_us, solver", [&](Statement& st) { bind_key(st, key); });
}

std::optional<FindRecord> FindDb::best_verified(const DbKey& key) const {
  auto rs = select_rows<FindTable>(db_, std::string(kKeyMatch) + " AND verified = 1", "time_us, solver LIMIT 1",
                                   [&](Statement& st) { bind_key(st, key); });
  if (rs.empty()) return std::nullopt;
  return rs.front();
}

std::vector<FindRecord> FindDb::all(const std::string& problem) const { return rows_of_problem<FindTable>(db_, problem); }

void PerfDb::put_all(const std::vector<PerfRecord>& rs) const { put_rows<PerfTable>(db_, rs); }

std::optional<PerfRecord> PerfDb::get(const DbKey& key, const std::string& solver) const {
  auto rs = select_rows<PerfTable>(db_, std::string(kKeyMatch) + " AND solver = ?6", "solver", [&](Statement& st) {
    bind_key(st, key);
    st.bind(5, solver);
  });
  if (rs.empty()) return std::nullopt;
  return rs.front();
}

std::vector<PerfRecord> PerfDb::all(const std::string& problem) const { return rows_of_problem<PerfTable>(db_, problem); }

}  // namespace hiprim::tuning
