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

DbPaths default_db_paths() {
  DbPaths p;
  p.system = env("HIPRIM_SYSTEM_DB");
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

TuningDbs::TuningDbs(const DbPaths& paths, const WarnSink& warn) {
  if (!paths.system.empty()) {
    try {
      system_.emplace(Db::open(paths.system, tuning_schema(), Db::Access::read_immutable));
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

std::optional<FindRecord> TuningDbs::best_find(const DbKey& key) const {
  return front(first_of(user_, system_, [&](const Db& db) {
    std::vector<FindRecord> best;
    if (auto r = FindDb(db).best_verified(key)) best.push_back(*r);
    return best;
  }));
}

std::vector<FindRecord> TuningDbs::find_records(const DbKey& key) const {
  return first_of(user_, system_, [&](const Db& db) { return FindDb(db).records(key); });
}

std::optional<PerfRecord> TuningDbs::perf(const DbKey& key, const std::string& solver) const {
  return front(first_of(user_, system_, [&](const Db& db) {
    std::vector<PerfRecord> rs;
    if (auto r = PerfDb(db).get(key, solver)) rs.push_back(*r);
    return rs;
  }));
}

bool TuningDbs::put(const FindRecord& r) const {
  if (!writable()) return false;
  FindDb(*user_).put(r);
  return true;
}

bool TuningDbs::put(const PerfRecord& r) const {
  if (!writable()) return false;
  PerfDb(*user_).put(r);
  return true;
}

}  // namespace hiprim::tuning
