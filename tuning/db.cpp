// The SQLite wrapper: statements, opening with the header / schema / quick_check gate, and write
// transactions with retry. Creation and recovery of the user db are in tuning/db_recovery.cpp.
#include "tuning/db.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <thread>

namespace hiprim::tuning {

void warn_to_stderr(const std::string& text) { std::fprintf(stderr, "hiprim: warning: %s\n", text.c_str()); }

namespace {

bool retryable(int code) {
  code &= 0xff;
  return code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_PROTOCOL;
}

bool corruption(int code) {
  code &= 0xff;
  return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

DbError error_of(sqlite3* db, const std::string& file, const std::string& what, int rc) {
  const char* msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  return DbError(file + ": " + what + ": " + msg, rc & 0xff);
}

// Sleeps between retries: a growing step (50 us .. 2 ms) with jitter so that waiting processes do
// not wake in lockstep.
void backoff(int attempt) {
  thread_local std::minstd_rand rng(static_cast<unsigned>(getpid()) * 2654435761u);
  const int cap = std::min(2000, 50 << std::min(attempt, 6));
  std::this_thread::sleep_for(std::chrono::microseconds(cap / 2 + static_cast<int>(rng() % (cap / 2 + 1))));
}

// SQLite's busy handler: sleep and retry until kBusyTimeoutMs have passed since the first call of
// this wait (count 0). SQLite's own handler sleeps in steps up to 100 ms, far too coarse for many
// short transactions.
int busy_handler(void*, int count) {
  thread_local std::chrono::steady_clock::time_point start;
  const auto now = std::chrono::steady_clock::now();
  if (count == 0) start = now;
  if (now - start > std::chrono::milliseconds(Db::kBusyTimeoutMs)) return 0;
  backoff(count);
  return 1;
}

// The SQLite URI of path; '%', '?' and '#' are escaped, relative paths made absolute.
std::string uri_of(const std::string& path, Db::Access access) {
  std::string p = path;
  if (p.empty() || p[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) p = std::string(cwd) + "/" + p;
  }
  std::string uri = "file:";
  for (char c : p) {
    if (c == '%' || c == '?' || c == '#') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      uri += buf;
    } else {
      uri += c;
    }
  }
  if (access == Db::Access::read_shared) uri += "?mode=ro";
  if (access == Db::Access::read_immutable) uri += "?immutable=1";
  return uri;
}

// The 100-byte header of an SQLite file starts with "SQLite format 3\0".
void check_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DbError(path + ": cannot read the file", SQLITE_CANTOPEN);
  char head[100];
  in.read(head, sizeof head);
  const auto got = in.gcount();
  if (got == 0) throw BadDbFile(path + ": empty file, not an SQLite database");
  if (got < 100 || std::string(head, 16) != std::string("SQLite format 3\0", 16))
    throw BadDbFile(path + ": not an SQLite database (no SQLite header)");
}

std::int64_t pragma_int(const Db& db, const char* name) {
  auto st = db.prepare(std::string("PRAGMA ") + name);
  return st.step() ? st.integer(0) : 0;
}

// The rows of PRAGMA quick_check / integrity_check other than "ok", joined by "; ".
std::string check_findings(const Db& db, const char* pragma) {
  auto st = db.prepare(std::string("PRAGMA ") + pragma);
  std::string all;
  while (st.step())
    if (st.text(0) != "ok") all += (all.empty() ? "" : "; ") + st.text(0);
  return all;
}

}  // namespace

// ---- Statement ----

Statement::Statement(sqlite3* db, const std::string& sql, const std::string& file) : db_(db), file_(file) {
  check(sqlite3_prepare_v2(db_, sql.c_str(), -1, &st_, nullptr), "cannot prepare a statement");
}

Statement::~Statement() { sqlite3_finalize(st_); }

void Statement::check(int rc, const char* what) const {
  if (rc != SQLITE_OK) throw error_of(db_, file_, what, rc);
}

Statement& Statement::bind(int i, const std::string& v) {
  check(sqlite3_bind_text(st_, i + 1, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT), "cannot bind a value");
  return *this;
}
Statement& Statement::bind(int i, std::int64_t v) {
  check(sqlite3_bind_int64(st_, i + 1, v), "cannot bind a value");
  return *this;
}
Statement& Statement::bind(int i, double v) {
  check(sqlite3_bind_double(st_, i + 1, v), "cannot bind a value");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(st_);
  throw error_of(db_, file_, "statement failed", rc);
}

void Statement::run() {
  while (step()) {
  }
  sqlite3_reset(st_);
}

std::string Statement::text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(st_, col))) : std::string();
}
std::int64_t Statement::integer(int col) const { return sqlite3_column_int64(st_, col); }
double Statement::real(int col) const { return sqlite3_column_double(st_, col); }

// ---- Db ----

Db::Db(sqlite3* handle, std::string path, Access access) : db_(handle), path_(std::move(path)), access_(access) {}

Db::Db(Db&& o) noexcept : db_(o.db_), path_(std::move(o.path_)), access_(o.access_) { o.db_ = nullptr; }

Db& Db::operator=(Db&& o) noexcept {
  if (this != &o) {
    if (db_) sqlite3_close_v2(db_);
    db_ = o.db_;
    o.db_ = nullptr;
    path_ = std::move(o.path_);
    access_ = o.access_;
  }
  return *this;
}

Db::~Db() {
  if (db_) sqlite3_close_v2(db_);
}

Statement Db::prepare(const std::string& sql) const { return Statement(db_, sql, path_); }

void Db::exec(const std::string& sql) const {
  char* msg = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    const std::string text = msg ? msg : sqlite3_errstr(rc);
    sqlite3_free(msg);
    throw DbError(path_ + ": " + text, rc & 0xff);
  }
}

Db Db::open(const std::string& path, const Schema& schema, Access access, bool full_check) {
  if (::access(path.c_str(), F_OK) != 0) throw InputError(path + ": no such database file");
  check_header(path);
  int flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX;
  flags |= access == Access::writable ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
  sqlite3* handle = nullptr;
  const int rc = sqlite3_open_v2(uri_of(path, access).c_str(), &handle, flags, nullptr);
  if (rc != SQLITE_OK) {
    const DbError e = error_of(handle, path, "cannot open", rc);
    sqlite3_close_v2(handle);
    if (corruption(rc)) throw BadDbFile(path + ": corrupt: " + sqlite3_errstr(rc));
    throw e;
  }
  sqlite3_busy_handler(handle, busy_handler, nullptr);
  Db db(handle, path, access);
  // SQLite opens a write-protected file read-only without saying so; a writable db must be.
  if (access == Access::writable && sqlite3_db_readonly(handle, "main") == 1)
    throw DbError(path + ": the file is write-protected", SQLITE_READONLY);
  try {
    const auto app = pragma_int(db, "application_id");
    if (app != schema.application_id) {
      char buf[160];
      std::snprintf(buf, sizeof buf, ": not a hiprim tuning db (application_id 0x%08llx, want 0x%08x)",
                    static_cast<unsigned long long>(static_cast<std::uint32_t>(app)), static_cast<unsigned>(schema.application_id));
      throw BadDbFile(path + buf);
    }
    const auto version = pragma_int(db, "user_version");
    if (version != schema.version)
      throw BadDbFile(path + ": schema version " + std::to_string(version) + " is " + (version > schema.version ? "newer" : "older") +
                      " than the version this hiprim reads (" + std::to_string(schema.version) + ")");
    const std::string problems = check_findings(db, full_check ? "integrity_check" : "quick_check");
    if (!problems.empty()) throw BadDbFile(path + ": corrupt: fails " + (full_check ? "integrity_check: " : "quick_check: ") + problems);
    if (access == Access::writable) {
      db.exec("PRAGMA synchronous=NORMAL");
      // Made in WAL mode (tuning/db_recovery.cpp); a file copied in rollback mode switches when it
      // can, and stays correct (if slower under contention) when another process holds it.
      try {
        db.exec("PRAGMA journal_mode=WAL");
      } catch (const DbError& e) {
        if (!retryable(e.code)) throw;
      }
    }
  } catch (const DbError& e) {
    if (corruption(e.code)) throw BadDbFile(path + ": corrupt: " + sqlite3_errstr(e.code));
    throw;
  }
  return db;
}

std::string Db::integrity_problems() const { return check_findings(*this, "integrity_check"); }

void Db::write(const std::function<void()>& body) const {
  if (access_ != Access::writable) throw DbError(path_ + ": opened read-only, cannot write", SQLITE_READONLY);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (int attempt = 0;; ++attempt) {
    try {
      exec("BEGIN IMMEDIATE");
      try {
        body();
        exec("COMMIT");
        return;
      } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);  // no-op when SQLite already rolled back
        throw;
      }
    } catch (const DbError& e) {
      if (!retryable(e.code) || std::chrono::steady_clock::now() > deadline)
        throw DbError(std::string(e.what()) + (retryable(e.code) ? " (gave up after " + std::to_string(attempt + 1) + " attempts)" : ""),
                      e.code);
      backoff(attempt);
    }
  }
}

}  // namespace hiprim::tuning
