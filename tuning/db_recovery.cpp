// Creation and recovery of the writable user db (Db::open_or_create, move_aside).
//   - A new db is built beside the target (<path>.new-<pid>: schema, application_id, user_version,
//     WAL mode, closed) and hard-linked into place, so no process ever sees a half-made file; an
//     empty or half-written file at the path is therefore never ours, and is moved aside like any
//     other bad file.
//   - Deciding that a file is bad, moving it aside and creating the new one happen under flock() on
//     the directory (no lock file), and the file is checked again under the lock: of several
//     processes meeting one bad file, one moves it aside and the others open the new db.
//   - The -wal/-shm/-journal siblings move with the file: a WAL left behind would be replayed into
//     the new db and corrupt it.
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "tuning/db.hpp"

namespace hiprim::tuning {
namespace {

const char* const kSiblings[] = {"-wal", "-shm", "-journal"};

bool exists(const std::string& p) { return ::access(p.c_str(), F_OK) == 0; }

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

DbError os_error(const std::string& file, const std::string& what) {
  return DbError(file + ": " + what + ": " + std::strerror(errno), SQLITE_CANTOPEN);
}

// An exclusive flock() on a directory for the lifetime of the object; where the file system has no
// flock (some network file systems), no lock: creation stays atomic by the hard link alone.
class DirLock {
 public:
  explicit DirLock(const std::string& dir) : fd_(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
      }
  }
  ~DirLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_;
};

void remove_with_siblings(const std::string& path) {
  ::unlink(path.c_str());
  for (const char* s : kSiblings) ::unlink((path + s).c_str());
}

// Builds a db of the schema at tmp: tables, marks, WAL mode; closed cleanly, so no -wal is left.
void build_fresh(const std::string& tmp, const Schema& schema) {
  remove_with_siblings(tmp);
  sqlite3* h = nullptr;
  int rc = sqlite3_open_v2(tmp.c_str(), &h, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  std::string failure;
  if (rc == SQLITE_OK) {
    const std::string sql = "BEGIN;" + schema.create_sql + ";PRAGMA application_id=" + std::to_string(schema.application_id) +
                            ";PRAGMA user_version=" + std::to_string(schema.version) + ";COMMIT;PRAGMA journal_mode=WAL;";
    char* msg = nullptr;
    rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &msg);
    if (rc != SQLITE_OK) failure = msg ? msg : sqlite3_errstr(rc);
    sqlite3_free(msg);
  } else {
    failure = h ? sqlite3_errmsg(h) : sqlite3_errstr(rc);
  }
  if (sqlite3_close(h) != SQLITE_OK && failure.empty()) failure = "cannot close";
  if (!failure.empty()) {
    remove_with_siblings(tmp);
    throw DbError(tmp + ": cannot create the database: " + failure, rc & 0xff);
  }
}

// Creates path (the caller holds the directory lock and has seen that path does not exist).
void create_db(const std::string& path, const Schema& schema, const WarnSink& warn) {
  for (const char* s : kSiblings)
    if (exists(path + s)) {
      // A -wal or -journal without its db (the db was deleted by hand): it must not be replayed.
      warn(path + s + ": left without its database; moved aside to " + move_aside(path));
      break;
    }
  const std::string tmp = path + ".new-" + std::to_string(::getpid());
  build_fresh(tmp, schema);
  if (::link(tmp.c_str(), path.c_str()) != 0 && errno != EEXIST) {
    // No hard links here (some FUSE or network file systems): rename, still atomic under the lock.
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      const DbError e = os_error(path, "cannot create the database");
      remove_with_siblings(tmp);
      throw e;
    }
  }
  ::unlink(tmp.c_str());
}

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace

std::string move_aside(const std::string& path) {
  const std::string stem = path + ".corrupt-" + utc_stamp();
  std::string aside = stem;
  for (int n = 1;; ++n) {
    bool taken = exists(aside);
    for (const char* s : kSiblings) taken = taken || exists(aside + s);
    if (!taken) break;
    aside = stem + "." + std::to_string(n);
  }
  if (exists(path) && ::rename(path.c_str(), aside.c_str()) != 0) throw os_error(path, "cannot move the bad database aside");
  for (const char* s : kSiblings)
    if (exists(path + s) && ::rename((path + s).c_str(), (aside + s).c_str()) != 0)
      throw os_error(path + s, "cannot move aside");
  return aside;
}

Db Db::open_or_create(const std::string& path, const Schema& schema, const WarnSink& warn) {
  // Usually one pass; a second when the file was bad or absent. More means another process keeps
  // replacing the file.
  for (int pass = 0; pass < 4; ++pass) {
    if (exists(path)) {
      try {
        return open(path, schema, Access::writable);
      } catch (const BadDbFile&) {
        // Checked again below, under the lock: another process may have rebuilt it meanwhile.
      } catch (const InputError&) {
        // Deleted between the look and the open: create it below.
      }
    }
    DirLock lock(directory_of(path));
    if (exists(path)) {
      try {
        return open(path, schema, Access::writable);
      } catch (const BadDbFile& bad) {
        const std::string aside = move_aside(path);
        warn(std::string(bad.what()) + "; moved aside to " + aside + " and a new empty db made");
      } catch (const InputError&) {
      }
    }
    if (!exists(path)) create_db(path, schema, warn);
  }
  throw DbError(path + ": the file kept changing while it was opened; is another program replacing it?", SQLITE_BUSY);
}

}  // namespace hiprim::tuning
