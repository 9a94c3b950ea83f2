// The layered tuning dbs of a session: an optional read-only system db (installed beside hiprim or
// by an administrator, shared by all users, never modified) under a writable user db (this user's
// measurements). Lookups try the user db, then the system db; writes go to the user db only.
// Neither throws for a db failure after open (a file changed under the session, a full disk): the
// failure is warned about and the lookup finds nothing, the write returns false. A record that is
// not valid (DbKey::validate) is still an InputError.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tuning/model.hpp"
#include "tuning/records.hpp"

namespace hiprim::tuning {

// Where `cmake --install` puts the shipped system db: <prefix>/share/hiprim/tuning_system.db.
std::string installed_system_db();

struct DbPaths {
  std::string user;    // "" when no user db can be placed (no HOME): a read-only session
  std::string system;  // "" for none
};

// From the environment: HIPRIM_USER_DB, else $XDG_CACHE_HOME/hiprim/tuning.db, else
// $HOME/.cache/hiprim/tuning.db; HIPRIM_SYSTEM_DB (set but empty: no system db), when unset the
// installed system db (installed_system_db(), the shipped H200 db) if that file exists.
DbPaths default_db_paths();

class TuningDbs {
 public:
  // Opens both; never throws for a bad or missing file. A bad system db is warned about and
  // ignored; a bad user db is moved aside and rebuilt (Db::open_or_create); a user db that cannot be
  // created or written (its directory is created on demand) is warned about and, when it exists,
  // read through immutable open: a read-only session.
  explicit TuningDbs(const DbPaths& paths = default_db_paths(), const WarnSink& warn = warn_to_stderr);

  bool writable() const { return user_ && user_->writable(); }
  const Db* user() const { return user_ ? &*user_ : nullptr; }
  const Db* system() const { return system_ ? &*system_ : nullptr; }

  // The best verified find record of key: the user db's when it has one, else the system db's.
  std::optional<FindRecord> best_find(const DbKey& key) const;
  // Every find record of key from the first db (user, then system) that has any.
  std::vector<FindRecord> find_records(const DbKey& key) const;
  // The perf record of key and solver: the user db's when it has one, else the system db's.
  std::optional<PerfRecord> perf(const DbKey& key, const std::string& solver) const;

  // Into the user db; false (nothing written) in a read-only session or when the write failed.
  bool put(const FindRecord& r) const;
  bool put(const PerfRecord& r) const;
  bool put(const std::vector<FindRecord>& rs) const;  // one transaction for all

  // The immediate-mode model (tuning/model.hpp): the user db's when it has points, else the system
  // db's (empty when neither has one); loaded on first use and kept for the session.
  const ImmediateModel& model() const;

 private:
  // f(); on a RuntimeError from a db: warns "<what>: <error>" and returns fallback.
  template <class F, class T>
  T guarded(const char* what, const F& f, T fallback) const;

  std::optional<Db> user_, system_;
  WarnSink warn_;
  mutable std::mutex model_mutex_;
  mutable std::unique_ptr<const ImmediateModel> model_;
};

}  // namespace hiprim::tuning
