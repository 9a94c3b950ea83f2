// The layered tuning dbs: where they live and the user-then-system lookups.
#include "tuning/tuning_dbs.hpp"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace hiprim::tuning {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

// The first db of (user, system) for which get() has a value.
template <class Get>
auto first_of(const std::optional<Db>& user, const std::optional<Db>& system, const Get& get) -> decltype(get(*user)) {
  if (user)
    if (auto r = get(*user); !r.empty()) return r;
  if (system) return get(*system);
  return {};
}

template <class R>
std::optional<R> front(std::vector<R> rs) {
  if (rs.empty()) return std::nullopt;
  return rs.front();
}

}  // namespace

std::string installed_system_db() { return HIPRIM_INSTALLED_SYSTEM_DB; }

DbPaths default_db_paths() {
  DbPaths p;
  std::error_code ec;
  if (std::getenv("HIPRIM_SYSTEM_DB")) p.system = env("HIPRIM_SYSTEM_DB");
  else if (std::filesystem::is_regular_file(installed_system_db(), ec)) p.system = installed_system_db();
  p.user = env("HIPRIM_USER_DB");
  if (p.user.empty()) {
    const std::string cache = env("XDG_CACHE_HOME"), home = env("HOME");
    if (!cache.empty())
      p.user = cache + "/hiprim/tuning.db";
    else if (!home.empty())
      p.user = home + "/.cache/hiprim/tuning.db";
  }
  return p;
}

TuningDbs::TuningDbs(const DbPaths& paths, const WarnSink& warn) : warn_(warn) {
  if (!paths.system.empty()) {
    try {
      system_.emplace(Db::open(paths.system, tuning_schema(), Db::Access::read_immutable));
      // Read immutable, a -wal beside it is not read: what it holds is missing from this session.
      std::error_code ec;
      if (std::filesystem::file_size(paths.system + "-wal", ec) > 0 && !ec)
        warn(paths.system + "-wal: the system tuning db has a non-empty WAL beside it, which is not read; ship the db closed cleanly");
    } catch (const std::exception& e) {
      warn(std::string("system tuning db ignored: ") + e.what());
    }
  }
  if (paths.user.empty()) {
    warn("no user tuning db (HIPRIM_USER_DB, XDG_CACHE_HOME and HOME are unset): tuning results are not recorded");
    return;
  }
  try {
    const auto dir = std::filesystem::path(paths.user).parent_path();
    std::error_code ec;
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
    if (ec) throw RuntimeError(dir.string() + ": cannot create the directory: " + ec.message());
    user_.emplace(Db::open_or_create(paths.user, tuning_schema(), warn));
    return;
  } catch (const std::exception& e) {
    warn(std::string("user tuning db not writable, tuning results are not recorded this session: ") + e.what());
  }
  try {
    if (std::filesystem::exists(paths.user)) user_.emplace(Db::open(paths.user, tuning_schema(), Db::Access::read_immutable));
  } catch (const std::exception& e) {
    warn(std::string("user tuning db not read either: ") + e.what());
  }
}

template <class F, class T>
T TuningDbs::guarded(const char* what, const F& f, T fallback) const {
  try {
    return f();
  } catch (const InputError&) {
    throw;
  } catch (const RuntimeError& e) {
    warn_(std::string(what) + ": " + e.what());
    return fallback;
  }
}

std::optional<FindRecord> TuningDbs::best_find(const DbKey& key) const {
  return guarded("tuning db lookup failed", [&] {
    return front(first_of(user_, system_, [&](const Db& db) {
      std::vector<FindRecord> best;
      if (auto r = FindDb(db).best_verified(key)) best.push_back(*r);
      return best;
    }));
  }, std::optional<FindRecord>());
}

std::vector<FindRecord> TuningDbs::find_records(const DbKey& key) const {
  return guarded("tuning db lookup failed", [&] { return first_of(user_, system_, [&](const Db& db) { return FindDb(db).records(key); }); },
                 std::vector<FindRecord>());
}

std::optional<PerfRecord> TuningDbs::perf(const DbKey& key, const std::string& solver) const {
  return guarded("tuning db lookup failed", [&] {
    return front(first_of(user_, system_, [&](const Db& db) {
      std::vector<PerfRecord> rs;
      if (auto r = PerfDb(db).get(key, solver)) rs.push_back(*r);
      return rs;
    }));
  }, std::optional<PerfRecord>());
}

bool TuningDbs::put(const FindRecord& r) const {
  return writable() && guarded("tuning db write failed, record not kept", [&] { return FindDb(*user_).put(r), true; }, false);
}

bool TuningDbs::put(const PerfRecord& r) const {
  return writable() && guarded("tuning db write failed, record not kept", [&] { return PerfDb(*user_).put(r), true; }, false);
}

bool TuningDbs::put(const std::vector<FindRecord>& rs) const {
  return writable() && guarded("tuning db write failed, records not kept", [&] { return FindDb(*user_).put_all(rs), true; }, false);
}

const ImmediateModel& TuningDbs::model() const {
  std::lock_guard<std::mutex> lock(model_mutex_);
  if (!model_) {
    ImmediateModel m;
    for (const auto* db : {user(), system()}) {
      if (!db) continue;
      m = guarded("immediate-mode model not read", [&] { return ImmediateModel::load(*db); }, ImmediateModel());
      if (!m.points().empty()) break;
    }
    model_ = std::make_unique<const ImmediateModel>(std::move(m));
  }
  return *model_;
}

}  // namespace hiprim::tuning
