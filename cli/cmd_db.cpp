// hiprim db path | check [--db FILE] | show [--db FILE] [--problem S] | train [--db FILE] |
// eval-immediate --holdout F [--db FILE] [--report J]: the tuning dbs (tuning/README.md): where they
// are, whether they are sound, what they hold, immediate mode's model (tuning/model.hpp). Only train
// writes (the model's table); a bad file is reported, not moved aside (that happens when a session
// opens its user db).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "core/op_problem.hpp"
#include "cli/output.hpp"
#include "find/immediate_eval.hpp"
#include "tuning/model.hpp"
#include "tuning/tuning_dbs.hpp"
#include "verify/report.hpp"

namespace hiprim::cli {
namespace {

struct DbFile {
  std::string path;
  const char* role;  // "user", "system" or "file"
};

// The files a command looks at: --db FILE, or the session's user and system dbs.
std::vector<DbFile> db_files(const std::string& given) {
  if (!given.empty()) {
    if (::access(given.c_str(), F_OK) != 0) throw InputError("--db '" + given + "': no such file");
    return {{given, "file"}};
  }
  const tuning::DbPaths p = tuning::default_db_paths();
  std::vector<DbFile> out;
  if (!p.user.empty()) out.push_back({p.user, "user"});
  if (!p.system.empty()) out.push_back({p.system, "system"});
  return out;
}

// A system db is read immutable (no lock, no -wal/-shm); another file shared (mode=ro, so a db in
// use is read consistently) where its directory is writable, else immutable.
tuning::Db open_for_reading(const DbFile& f, bool full_check) {
  const auto slash = f.path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : f.path.substr(0, slash + 1);
  const bool immutable = std::string(f.role) == "system" || ::access(dir.c_str(), W_OK) != 0;
  return tuning::Db::open(f.path, tuning::tuning_schema(), immutable ? tuning::Db::Access::read_immutable : tuning::Db::Access::read_shared,
                          full_check);
}

std::string utc(std::int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// For each file of db_files(given): absent, "<lead><path> (<role>): not created yet"; else use(f, db)
// with the file opened for reading, or, when it cannot be, "<path> (<role>): BAD: <why>" (on stdout
// for check, whose output it is; on stderr for show). Returns 1 when a file was bad, else 0.
template <class Use>
int each_db(const std::string& given, const char* lead, bool full_check, const Use& use) {
  int code = 0;
  for (const DbFile& f : db_files(given)) {
    if (::access(f.path.c_str(), F_OK) != 0) {
      std::printf("%s%s (%s): not created yet\n", lead, f.path.c_str(), f.role);
      continue;
    }
    try {
      use(f, open_for_reading(f, full_check));
    } catch (const RuntimeError& e) {
      std::fprintf(full_check ? stdout : stderr, "%s (%s): BAD: %s\n", f.path.c_str(), f.role, e.what());
      code = 1;
    }
  }
  return code;
}

// Exit 0 when every file that exists passes integrity_check and the schema check, else 1.
int run_check(const std::string& given) {
  return each_db(given, "", true, [](const DbFile& f, const tuning::Db& db) {
    const auto finds = tuning::FindDb(db).all().size(), perfs = tuning::PerfDb(db).all().size();
    std::printf("%s (%s): ok: schema version %d, %zu find records, %zu perf records\n", f.path.c_str(), f.role, tuning::kTuningSchemaVersion,
                finds, perfs);
  });
}

int run_show(const std::string& given, const std::string& problem_arg) {
  // --problem is canonicalized, so any spelling the parser accepts finds the records.
  const std::string problem = problem_arg.empty() ? "" : parse_op_problem(problem_arg)->str();
  return each_db(given, "# ", false, [&](const DbFile& f, const tuning::Db& db) {
    std::printf("# %s (%s)\n", f.path.c_str(), f.role);
    for (const auto& r : tuning::FindDb(db).all(problem))
      std::printf("find %s config=%s time_us=%.3f workspace=%lld verified=%s at=%s | %s\n", r.solver.c_str(), r.config.c_str(), r.time_us,
                  static_cast<long long>(r.workspace_bytes), r.verified ? "yes" : "no", utc(r.recorded_at).c_str(), r.key.text().c_str());
    for (const auto& r : tuning::PerfDb(db).all(problem))
      std::printf("perf %s config=%s time_us=%.3f default_time_us=%.3f tuning_s=%.1f at=%s | %s\n", r.solver.c_str(), r.config.c_str(),
                  r.time_us, r.default_time_us, r.tuning_seconds, utc(r.recorded_at).c_str(), r.key.text().c_str());
  });
}

// The model trained from the records of --db FILE (or the user db), stored in the same file.
int run_train(const std::string& given) {
  std::string path = given;
  if (path.empty()) path = tuning::default_db_paths().user;
  if (path.empty()) throw InputError("no user db (HIPRIM_USER_DB, XDG_CACHE_HOME and HOME are unset): give --db FILE");
  if (::access(path.c_str(), F_OK) != 0) throw InputError("'" + path + "': no such db (run hiprim find first)");
  const tuning::Db db = tuning::Db::open(path, tuning::tuning_schema(), tuning::Db::Access::writable);
  const tuning::ImmediateModel m = tuning::ImmediateModel::train(db);
  m.store(db);
  std::printf("trained: %zu problems, %zu points into %s\n", m.problems(), m.points().size(), path.c_str());
  return 0;
}

struct EvalFlags {
  double holdout = 0.2;
  std::string report;
  bool measure = false;  // run each held-out pick and Find's best now (find/immediate_eval.hpp)
  std::string backend = "device";
  double budget_ms = 50;
};

nlohmann::json measurement_brief(const find::Measurement& m) {
  return {{"solver", m.solver}, {"config", m.config}, {"verified", m.verified},
          {"time_us", m.time_us >= 0 ? nlohmann::json(m.time_us) : nlohmann::json(nullptr)}, {"repro", m.check.repro}};
}

// The measured evaluation of ev's picks: a line per pick, the summary line; its JSON part.
nlohmann::json run_measured(const tuning::ImmediateEval& ev, const EvalFlags& e, int& code) {
  find::MeasureOptions o;
  o.budget_ms = e.budget_ms;
  const Backend b = e.backend == "device" ? Backend::device : Backend::host;
  const find::MeasuredEval m = find::measure_immediate_eval(ev, b, o, 0.10, [](const find::MeasuredPick& r) {
    std::printf("  measured %s %s: pick %s %s %s us, best %s %s %s us%s\n", r.hit ? "HIT " : "miss", r.problem.c_str(), r.picked.solver.c_str(),
                r.picked.config.empty() ? "\"\"" : r.picked.config.c_str(), r.picked.time_us < 0 ? "-" : std::to_string(r.picked.time_us).c_str(),
                r.best.solver.c_str(), r.best.config.empty() ? "\"\"" : r.best.config.c_str(),
                r.best.time_us < 0 ? "-" : std::to_string(r.best.time_us).c_str(), r.same ? " (the same run)" : "");
    if (!r.picked.verified) std::printf("    pick FAILED: %s\n    repro: %s\n", find::measurement_text(r.picked).c_str(), r.picked.check.repro.c_str());
    if (!r.best.verified) std::printf("    best FAILED: %s\n    repro: %s\n", find::measurement_text(r.best).c_str(), r.best.check.repro.c_str());
    std::fflush(stdout);
  });
  std::printf("measured: %zu picks run as immediate mode runs them, %zu within 10%% of Find's best measured beside them (%.0f%%), %zu failed\n",
              m.cases.size(), m.hits, m.cases.empty() ? 0.0 : 100.0 * double(m.hits) / double(m.cases.size()), m.failed);
  if (m.failed) code = 1;  // a pick or a best that does not verify is a defect
  nlohmann::json cases = nlohmann::json::array();
  for (const auto& r : m.cases)
    cases.push_back({{"problem", r.problem}, {"hit", r.hit}, {"same", r.same}, {"picked", measurement_brief(r.picked)}, {"best", measurement_brief(r.best)}});
  return {{"backend", e.backend}, {"time_budget_ms", e.budget_ms}, {"picks", m.cases.size()}, {"hits", m.hits}, {"failed", m.failed},
          {"hit_rate", m.cases.empty() ? 0.0 : double(m.hits) / double(m.cases.size())}, {"cases", cases}};
}

int run_eval(const std::string& given, const EvalFlags& e) {
  int code = 0;
  const int bad = each_db(given, "# ", false, [&](const DbFile& f, const tuning::Db& db) {
    const tuning::ImmediateEval ev = tuning::evaluate_immediate(db, e.holdout);
    nlohmann::json cases = nlohmann::json::array();
    for (const auto& c : ev.cases) {
      std::printf("  %s %s: best %s %.3f us, picked %s%s\n", c.hit ? "HIT " : "miss", c.problem.c_str(), c.best_solver.c_str(), c.best_us,
                  c.picked_us < 0 ? "nothing" : c.picked_solver.c_str(),
                  c.picked_us < 0 ? "" : (" (its record: " + c.record_config + " " + std::to_string(c.picked_us) + " us)").c_str());
      cases.push_back({{"problem", c.problem}, {"best_solver", c.best_solver}, {"best_config", c.best_config}, {"best_us", c.best_us},
                       {"picked_solver", c.picked_solver}, {"record_config", c.record_config},
                       {"picked_us", c.picked_us < 0 ? nlohmann::json(nullptr) : nlohmann::json(c.picked_us)}, {"hit", c.hit}});
    }
    const double rate = ev.held_out ? double(ev.hits) / double(ev.held_out) : 0;
    std::printf("%s (%s): holdout %.2f: %zu problems trained, %zu held out, %zu picked, %zu within 10%% of Find's best by the records (%.0f%%); "
                "pick time mean %.1f us, max %.1f us\n",
                f.path.c_str(), f.role, e.holdout, ev.trained, ev.held_out, ev.picked, ev.hits, 100 * rate, ev.mean_pick_us, ev.max_pick_us);
    std::fflush(stdout);
    if (ev.held_out == 0) code = 1;  // nothing to judge the model by
    nlohmann::json j{{"command", "db eval-immediate"}, {"command_line", command_line()}, {"db", f.path}, {"holdout", e.holdout},
                     {"trained", ev.trained}, {"held_out", ev.held_out}, {"picked", ev.picked}, {"hits", ev.hits},
                     {"hit_rate", rate}, {"tolerance", 0.10}, {"mean_pick_us", ev.mean_pick_us},
                     {"max_pick_us", ev.max_pick_us}, {"cases", cases}};
    if (e.measure) j["measured"] = run_measured(ev, e, code);
    if (!e.report.empty()) {
      j["machine"] = verify::machine_json(e.measure && e.backend == "device" ? verify::gpu_json() : nlohmann::json(nullptr));
      verify::write_json(e.report, j);
    }
  });
  return bad ? bad : code;
}

}  // namespace

Command add_db(CLI::App& app) {
  auto* sub = app.add_subcommand("db", "The tuning dbs (find and perf records): where they are, check them, show their records");
  sub->require_subcommand(1);
  auto* path = sub->add_subcommand("path", "Print the user db path (HIPRIM_USER_DB, else the cache directory) and the system db (HIPRIM_SYSTEM_DB)");
  auto* check = sub->add_subcommand("check", "Run integrity_check and the schema check; exit 0 when sound, 1 when not");
  auto* show = sub->add_subcommand("show", "List the find and perf records");
  auto file = std::make_shared<std::string>();
  auto problem = std::make_shared<std::string>();
  auto* train = sub->add_subcommand("train", "Train immediate mode's model from the find and perf records into the db's model table");
  auto* eval = sub->add_subcommand("eval-immediate", "Hold out problems with find records: how often the model's pick is within 10% of Find's best");
  auto e = std::make_shared<EvalFlags>();
  for (auto* s : {check, show, eval}) s->add_option("--db", *file, "A db file (default: the user db and the system db)");
  train->add_option("--db", *file, "The db file to train from and into (default: the user db)");
  show->add_option("--problem", *problem, "Only the records of this problem string");
  eval->add_option("--holdout", e->holdout, "The share of the problems held out (0 < F < 1)")->capture_default_str();
  eval->add_option("--report", e->report, "Write a JSON report here");
  eval->add_flag("--measure", e->measure, "Also run each held-out pick as immediate mode runs it and Find's best beside it, verified and timed");
  eval->add_option("--backend", e->backend, "With --measure: device or host")->capture_default_str();
  eval->add_option("--time-budget-ms", e->budget_ms, "With --measure: the timing budget of one run")->capture_default_str();
  return [path, check, train, eval, file, problem, e] {
    if (train->parsed()) return run_train(*file);
    if (eval->parsed()) {
      if (!(e->holdout > 0 && e->holdout < 1)) throw InputError("--holdout " + std::to_string(e->holdout) + ": expected a share between 0 and 1 (e.g. 0.2)");
      if (e->backend != "device" && e->backend != "host") throw InputError("--backend '" + e->backend + "': expected device or host");
      if (!(e->budget_ms > 0)) throw InputError("--time-budget-ms: expected a positive number");
      return run_eval(*file, *e);
    }
    if (path->parsed()) {
      const tuning::DbPaths p = tuning::default_db_paths();
      std::printf("user   %s\nsystem %s\n", p.user.empty() ? "(none: HIPRIM_USER_DB, XDG_CACHE_HOME and HOME are unset)" : p.user.c_str(),
                  p.system.empty() ? (std::getenv("HIPRIM_SYSTEM_DB") ? std::string("(none: HIPRIM_SYSTEM_DB is set empty)")
                                                                      : "(none: HIPRIM_SYSTEM_DB is unset and nothing is installed at " +
                                                                            tuning::installed_system_db() + ")").c_str()
                                   : p.system.c_str());
      return 0;
    }
    if (check->parsed()) return run_check(*file);
    return run_show(*file, *problem);
  };
}

}  // namespace hiprim::cli
