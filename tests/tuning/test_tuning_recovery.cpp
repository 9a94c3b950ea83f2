// Recovery at open: a user db that is truncated, random bytes, empty, of a newer schema or another
// application's is moved aside (with its siblings) with a warning and rebuilt; a bad system db is
// ignored and left as it is; a system db in a read-only directory is read without creating files.
#include <sys/stat.h>

#include <random>

#include "tests/tuning/tuning_fixture.hpp"

namespace hiprim::test {
namespace {

using tuning::Db;
using tuning::FindDb;

const std::string kPool = "pool fwd max fp32 nchw n1 c3 in8x8 f2x2";

std::string read_bytes(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class TuningRecovery : public TuningDbTest {
 protected:
  // A sound user db holding n find records, closed.
  void make_db(const std::string& file, int n) {
    const Db db = Db::open_or_create(path(file), tuning::tuning_schema(), keep_warnings());
    std::vector<tuning::FindRecord> rs;
    for (int i = 0; i < n; ++i) rs.push_back(find_record(key_of(kPool + " #" + std::to_string(i)), "pool.direct", i));
    FindDb(db).put_all(rs);
  }
  // Opens user.db as a session does and checks: one warning naming the file and the reason, the
  // bad file's bytes kept in user.db.corrupt-*, and a new sound, empty, writable db in its place.
  void expect_moved_aside_and_rebuilt(const std::string& reason) {
    const std::string before = read_bytes(path("user.db"));
    warnings_.clear();
    {
      tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
      ASSERT_TRUE(dbs.writable());
      EXPECT_TRUE(FindDb(*dbs.user()).all().empty());
      EXPECT_TRUE(dbs.put(find_record(key_of(kPool), "pool.direct", 2.0)));
      EXPECT_EQ(dbs.best_find(key_of(kPool))->time_us, 2.0);
    }
    ASSERT_EQ(warnings_.size(), 1u) << all_warnings();
    EXPECT_NE(warnings_[0].find(path("user.db")), std::string::npos) << warnings_[0];
    EXPECT_NE(warnings_[0].find(reason), std::string::npos) << warnings_[0];
    EXPECT_NE(warnings_[0].find("moved aside to"), std::string::npos) << warnings_[0];
    const auto aside = files_starting("user.db.corrupt-");
    ASSERT_EQ(aside.size(), 1u);
    EXPECT_EQ(read_bytes(path(aside[0])), before);
    EXPECT_EQ(Db::open(path("user.db"), tuning::tuning_schema(), Db::Access::read_shared, true).integrity_problems(), "");
  }
};

TEST_F(TuningRecovery, TruncatedFileIsMovedAsideAndRebuilt) {
  make_db("user.db", 3000);
  const auto size = std::filesystem::file_size(path("user.db"));
  ASSERT_GT(size, 64u * 1024) << "the db should span many pages";
  std::filesystem::resize_file(path("user.db"), size / 2);
  expect_moved_aside_and_rebuilt(": corrupt: ");
}

TEST_F(TuningRecovery, RandomBytesAreMovedAsideAndRebuilt) {
  std::mt19937 rng(7);
  std::string bytes(8192, '\0');
  for (auto& b : bytes) b = static_cast<char>(rng());
  write_bytes(path("user.db"), bytes);
  expect_moved_aside_and_rebuilt("not an SQLite database");
}

TEST_F(TuningRecovery, EmptyFileIsMovedAsideAndRebuilt) {
  write_bytes(path("user.db"), "");
  expect_moved_aside_and_rebuilt("empty file");
}

TEST_F(TuningRecovery, NewerSchemaIsMovedAsideAndRebuilt) {
  make_db("user.db", 5);
  Db::open(path("user.db"), tuning::tuning_schema(), Db::Access::writable).exec("PRAGMA user_version = " + std::to_string(tuning::kTuningSchemaVersion + 1));
  expect_moved_aside_and_rebuilt("is newer than the version this hiprim reads");
}

TEST_F(TuningRecovery, ForeignSqliteFileIsMovedAsideAndRebuilt) {
  Db::open_or_create(path("user.db"), tuning::Schema{0x12345678, 1, "CREATE TABLE notes (x TEXT)"}, keep_warnings());
  expect_moved_aside_and_rebuilt("not a hiprim tuning db");
}

TEST_F(TuningRecovery, DefaultWarningGoesToStderr) {
  write_bytes(path("user.db"), "");
  ::testing::internal::CaptureStderr();
  { tuning::TuningDbs dbs({path("user.db"), ""}); }
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("hiprim: warning: " + path("user.db") + ": empty file"), std::string::npos) << err;
}

TEST_F(TuningRecovery, OrphanWalIsMovedAsideNotReplayed) {
  std::string wal;
  {
    const Db db = Db::open_or_create(path("old.db"), tuning::tuning_schema(), keep_warnings());
    FindDb(db).put(find_record(key_of(kPool), "pool.direct", 1.0));
    wal = read_bytes(path("old.db-wal"));  // the connection is open: the record is in the WAL
  }
  ASSERT_GT(wal.size(), 0u);
  write_bytes(path("user.db-wal"), wal);  // as if user.db had been deleted by hand, its -wal left
  const Db db = Db::open_or_create(path("user.db"), tuning::tuning_schema(), keep_warnings());
  EXPECT_TRUE(FindDb(db).all().empty());
  EXPECT_EQ(db.integrity_problems(), "");
  ASSERT_EQ(warnings_.size(), 1u) << all_warnings();
  EXPECT_NE(warnings_[0].find("left without its database"), std::string::npos) << warnings_[0];
  EXPECT_EQ(files_starting("user.db.corrupt-").size(), 1u);
}

TEST_F(TuningRecovery, OpenSaysWhatIsWrongWithoutMovingAnything) {
  write_bytes(path("junk.db"), std::string(200, 'x'));
  EXPECT_THROW(Db::open(path("junk.db"), tuning::tuning_schema(), Db::Access::read_shared), tuning::BadDbFile);
  EXPECT_THROW(Db::open(path("missing.db"), tuning::tuning_schema(), Db::Access::read_shared), InputError);
  EXPECT_TRUE(files_starting("junk.db.corrupt-").empty());
  try {
    Db::open(path("junk.db"), tuning::tuning_schema(), Db::Access::read_shared);
  } catch (const tuning::BadDbFile& e) {
    EXPECT_NE(std::string(e.what()).find(path("junk.db")), std::string::npos) << e.what();
  }
  make_db("ro.db", 1);
  const Db ro = Db::open(path("ro.db"), tuning::tuning_schema(), Db::Access::read_shared);
  EXPECT_THROW(FindDb(ro).put(find_record(key_of(kPool), "pool.direct", 1.0)), tuning::DbError);
}

TEST_F(TuningRecovery, BadSystemDbIsIgnoredAndLeftAsItIs) {
  std::filesystem::create_directory(path("sys"));
  const std::string junk(4096, '\x5a');
  write_bytes(path("sys/system.db"), junk);
  tuning::TuningDbs dbs({path("user.db"), path("sys/system.db")}, keep_warnings());
  EXPECT_EQ(dbs.system(), nullptr);
  EXPECT_TRUE(dbs.writable());
  ASSERT_EQ(warnings_.size(), 1u) << all_warnings();
  EXPECT_NE(warnings_[0].find("system tuning db ignored"), std::string::npos) << warnings_[0];
  EXPECT_EQ(read_bytes(path("sys/system.db")), junk);
  EXPECT_EQ(names_in(path("sys")), std::set<std::string>{"system.db"});
}

TEST_F(TuningRecovery, SystemDbInReadOnlyDirectoryCreatesNoFiles) {
  std::filesystem::create_directory(path("sys"));
  make_db("sys/system.db", 10);
  const auto before = names_in(path("sys"));
  ASSERT_EQ(before, std::set<std::string>{"system.db"});
  ASSERT_EQ(::chmod(path("sys").c_str(), 0555), 0);
  // (Root may still write there, so the check is what appears in the directory, not a failure.)
  {
    tuning::TuningDbs dbs({path("user.db"), path("sys/system.db")}, keep_warnings());
    ASSERT_NE(dbs.system(), nullptr) << all_warnings();
    EXPECT_EQ(dbs.best_find(key_of(kPool + " #3"))->time_us, 3.0);
    EXPECT_EQ(names_in(path("sys")), before);  // no -wal, -shm or lock file while open
  }
  EXPECT_EQ(names_in(path("sys")), before);
  EXPECT_TRUE(warnings_.empty()) << all_warnings();
}

TEST_F(TuningRecovery, SystemDbWithAWalBesideItIsWarnedAbout) {
  make_db("system.db", 1);
  const Db writer = Db::open(path("system.db"), tuning::tuning_schema(), Db::Access::writable);
  FindDb(writer).put(find_record(key_of(kPool), "pool.direct", 1.0));  // stays in system.db-wal while open
  tuning::TuningDbs dbs({path("user.db"), path("system.db")}, keep_warnings());
  ASSERT_NE(dbs.system(), nullptr);
  ASSERT_EQ(warnings_.size(), 1u) << all_warnings();
  EXPECT_NE(warnings_[0].find("non-empty WAL beside it, which is not read"), std::string::npos) << warnings_[0];
}

}  // namespace
}  // namespace hiprim::test
