// A small SQLite wrapper with the storage policy of hiprim's tuning databases (tuning/README.md):
//   - a file is hiprim's when its header says application_id == Schema::application_id and
//     user_version == Schema::version; anything else (not SQLite, a failed quick_check, another
//     application's file, an older or newer schema) is a BadDbFile, never a crash;
//   - a writable db is in WAL mode, synchronous=NORMAL, with a busy handler that sleeps in short
//     steps up to a timeout; every write is one BEGIN IMMEDIATE transaction, retried whole on
//     SQLITE_BUSY / SQLITE_LOCKED / SQLITE_PROTOCOL until that timeout;
//   - a read-only db is opened either shared (mode=ro: WAL readers take the usual locks) or
//     immutable (immutable=1: no lock, no -wal, no -shm file is read or created; for system dbs in
//     read-only or network directories, which must not change while open).
// A Db is used by one thread at a time and is not carried across fork(): a child opens its own.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "core/error.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace hiprim::tuning {

// Where warnings go (moved-aside files, ignored system dbs, read-only sessions). The default writes
// "hiprim: warning: <text>" to stderr.
using WarnSink = std::function<void(const std::string&)>;
void warn_to_stderr(const std::string& text);

// What a database file holds: the tables create_sql makes, marked by application_id and version.
struct Schema {
  std::int32_t application_id;
  std::int32_t version;
  std::string create_sql;
};

// An SQLite error while doing valid work; code is SQLite's primary result code.
struct DbError : RuntimeError {
  DbError(const std::string& what, int code) : RuntimeError(what), code(code) {}
  int code;
};

// The file is not a usable database of the schema; the message names the file and the reason.
struct BadDbFile : RuntimeError {
  using RuntimeError::RuntimeError;
};

// One prepared statement; columns and parameters are 0-based here (SQLite binds from 1).
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& file);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& v);
  Statement& bind(int i, std::int64_t v);
  Statement& bind(int i, double v);
  bool step();  // true: a row is ready; false: done (throws DbError on failure)
  void run();   // steps to the end, then resets: ready for the next bindings
  std::string text(int col) const;
  std::int64_t integer(int col) const;
  double real(int col) const;

 private:
  void check(int rc, const char* what) const;
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  std::string file_;
};

class Db {
 public:
  enum class Access { writable, read_shared, read_immutable };

  // Opens an existing file and checks it: header, schema mark, then PRAGMA quick_check (with
  // full_check: PRAGMA integrity_check). Throws BadDbFile when the file is not a good db of the
  // schema, InputError when it does not exist, DbError for other failures (permission, busy).
  static Db open(const std::string& path, const Schema& schema, Access access, bool full_check = false);

  // The writable user db: opens path, creating it when absent; a bad file (BadDbFile) is moved
  // aside to <path>.corrupt-<UTC time> (with its -wal/-shm/-journal), warned about, and rebuilt.
  // Creation and moving aside happen under a lock on the directory, and a new file appears only
  // complete (built beside it, then hard-linked into place), so concurrent openers never see a
  // half-made file. Throws DbError when the file or directory cannot be written.
  static Db open_or_create(const std::string& path, const Schema& schema, const WarnSink& warn);

  Db(Db&& other) noexcept;
  Db& operator=(Db&& other) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  const std::string& path() const { return path_; }
  bool writable() const { return access_ == Access::writable; }
  Statement prepare(const std::string& sql) const;
  void exec(const std::string& sql) const;  // statements without results

  // Runs body inside one write transaction (BEGIN IMMEDIATE ... COMMIT); on SQLITE_BUSY, LOCKED or
  // PROTOCOL the transaction is rolled back and body run again, until the busy timeout. Any other
  // exception rolls back and propagates.
  void write(const std::function<void()>& body) const;

  // PRAGMA integrity_check's findings; empty when the file is sound.
  std::string integrity_problems() const;

  static constexpr int kBusyTimeoutMs = 20000;

 private:
  Db(sqlite3* handle, std::string path, Access access);
  sqlite3* db_ = nullptr;
  std::string path_;
  Access access_ = Access::read_shared;
};

// Moves path and its -wal, -shm and -journal siblings to <path>.corrupt-<UTC time>[.<n>]; returns
// the new name of path. Throws DbError when path cannot be renamed.
std::string move_aside(const std::string& path);

}  // namespace hiprim::tuning
