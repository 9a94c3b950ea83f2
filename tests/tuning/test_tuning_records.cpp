// Find and perf records: round trips, best-verified selection, replacement, keys (stale versions and
// other devices are not returned), user-over-system layering, read-only sessions.
#include <filesystem>
#include <cmath>
#include <ctime>
#include <optional>

#include "tests/tuning/tuning_fixture.hpp"

namespace hiprim::test {
namespace {

using tuning::Db;
using tuning::FindDb;
using tuning::PerfDb;

const std::string kConv = "conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3 pad1x1 str1x1 dil1x1 g1";

class TuningRecords : public TuningDbTest {
 protected:
  Db user_db() { return Db::open_or_create(path("user.db"), tuning::tuning_schema(), keep_warnings()); }
};

TEST_F(TuningRecords, FindRecordsRoundTripFastestFirst) {
  const Db db = user_db();
  const auto key = key_of(kConv);
  const auto a = find_record(key, "conv.direct", 30.5), b = find_record(key, "conv.gemm.im2col", 12.25, false);
  FindDb(db).put_all({a, b});
  const auto got = FindDb(db).records(key);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], b);  // every field back as written, fastest first
  EXPECT_EQ(got[1], a);
  EXPECT_TRUE(warnings_.empty()) << all_warnings();
}

TEST_F(TuningRecords, BestVerifiedSkipsUnverifiedAndPutReplaces) {
  const Db db = user_db();
  const auto key = key_of(kConv);
  FindDb(db).put(find_record(key, "conv.fast.unverified", 1.0, false));
  FindDb(db).put(find_record(key, "conv.slow", 50.0));
  FindDb(db).put(find_record(key, "conv.mid", 20.0));
  ASSERT_TRUE(FindDb(db).best_verified(key));
  EXPECT_EQ(FindDb(db).best_verified(key)->solver, "conv.mid");
  FindDb(db).put(find_record(key, "conv.slow", 5.0));  // the same (key, solver): replaced, not added
  EXPECT_EQ(FindDb(db).records(key).size(), 3u);
  EXPECT_EQ(FindDb(db).best_verified(key)->solver, "conv.slow");
  EXPECT_EQ(FindDb(db).best_verified(key)->time_us, 5.0);
  EXPECT_FALSE(FindDb(db).best_verified(key_of("conv fwd fp16 nchw n1 c3 k8 in8x8 f3x3")));
}

TEST_F(TuningRecords, PerfRecordsRoundTrip) {
  const Db db = user_db();
  const auto key = key_of(kConv);
  const auto r = perf_record(key, "conv.igemm.wgmma", "m128n128k64.s4.splitk1", 40.0);
  PerfDb(db).put(r);
  PerfDb(db).put(perf_record(key, "conv.gemm.im2col", "t64", 80.0));
  ASSERT_TRUE(PerfDb(db).get(key, "conv.igemm.wgmma"));
  EXPECT_EQ(*PerfDb(db).get(key, "conv.igemm.wgmma"), r);
  EXPECT_FALSE(PerfDb(db).get(key, "conv.direct"));
  EXPECT_EQ(PerfDb(db).all().size(), 2u);
  EXPECT_EQ(PerfDb(db).all(kConv).size(), 2u);
  EXPECT_TRUE(PerfDb(db).all("pool fwd max fp32 nchw n1 c3 in8x8 f2x2").empty());
}

TEST_F(TuningRecords, RecordedAtDefaultsToNow) {
  const Db db = user_db();
  auto r = find_record(key_of(kConv), "conv.direct", 3.0);
  r.recorded_at = 0;
  const auto before = static_cast<std::int64_t>(std::time(nullptr));
  FindDb(db).put(r);
  const auto at = FindDb(db).records(r.key).at(0).recorded_at;
  EXPECT_GE(at, before);
  EXPECT_LE(at, before + 60);
}

TEST_F(TuningRecords, StaleVersionAndOtherDeviceAreNotReturned) {
  const Db db = user_db();
  FindDb(db).put(find_record(key_of(kConv, "0.0.9"), "conv.direct", 10.0));
  PerfDb(db).put(perf_record(key_of(kConv, "0.0.9"), "conv.direct", "old", 10.0));
  auto other_sm = key_of(kConv);
  other_sm.sm_count = 114;
  FindDb(db).put(find_record(other_sm, "conv.direct", 10.0));
  FindDb(db).put(find_record(key_of(kConv, "0.1.0", "NVIDIA H100"), "conv.direct", 10.0));
  auto other_cc = key_of(kConv);
  other_cc.compute_capability = "8.0";
  FindDb(db).put(find_record(other_cc, "conv.direct", 10.0));
  const auto now = key_of(kConv, "0.1.0");
  EXPECT_TRUE(FindDb(db).records(now).empty());
  EXPECT_FALSE(FindDb(db).best_verified(now));
  EXPECT_FALSE(PerfDb(db).get(now, "conv.direct"));
  EXPECT_EQ(FindDb(db).all().size(), 4u);  // all still stored, none returned for this key
}

TEST_F(TuningRecords, KeyTextAndValidation) {
  EXPECT_EQ(key_of("activ fwd relu fp32 nchw n1 c3 in8x8").text(), "activ fwd relu fp32 nchw n1 c3 in8x8 | NVIDIA H200 | sm 132 | cc 9.0 | hiprim 0.1.0");
  EXPECT_FALSE(tuning::current_hiprim_version().empty());
  const Db db = user_db();
  auto bad = key_of(kConv);
  bad.sm_count = 0;
  EXPECT_THROW(FindDb(db).put(find_record(bad, "conv.direct", 1.0)), InputError);
  EXPECT_THROW(FindDb(db).put(find_record(key_of("a | b"), "conv.direct", 1.0)), InputError);
  EXPECT_THROW(FindDb(db).put(find_record(key_of(kConv), "", 1.0)), InputError);
  EXPECT_THROW(FindDb(db).put(find_record(key_of(kConv), "conv.direct", -1.0)), InputError);
  EXPECT_THROW(PerfDb(db).put(perf_record(key_of(kConv), "conv.direct", "c", std::nan(""))), InputError);
  // One bad record in a batch: none of the batch is written.
  EXPECT_THROW(FindDb(db).put_all({find_record(key_of(kConv), "conv.ok", 1.0), find_record(key_of(kConv), "conv.bad", -2.0)}), InputError);
  EXPECT_TRUE(FindDb(db).all().empty());
}

TEST_F(TuningRecords, UserRecordsOverSystemRecordsAndWritesGoToUser) {
  const auto key = key_of(kConv), sys_only = key_of("activ fwd relu fp32 nchw n1 c3 in8x8");
  {
    const Db sys = Db::open_or_create(path("system.db"), tuning::tuning_schema(), keep_warnings());
    FindDb(sys).put(find_record(key, "conv.system.best", 1.0));
    FindDb(sys).put(find_record(sys_only, "activ.system", 2.0));
    PerfDb(sys).put(perf_record(key, "conv.igemm.wgmma", "system-config", 9.0));
  }
  tuning::TuningDbs dbs({path("user.db"), path("system.db")}, keep_warnings());
  ASSERT_TRUE(dbs.writable());
  ASSERT_NE(dbs.system(), nullptr);
  EXPECT_EQ(dbs.best_find(key)->solver, "conv.system.best");  // the user db has none yet
  EXPECT_TRUE(dbs.put(find_record(key, "conv.user", 30.0)));
  EXPECT_TRUE(dbs.put(perf_record(key, "conv.igemm.wgmma", "user-config", 20.0)));
  EXPECT_EQ(dbs.best_find(key)->solver, "conv.user");  // the user's, although the system's is faster
  EXPECT_EQ(dbs.find_records(key).size(), 1u);
  EXPECT_EQ(dbs.perf(key, "conv.igemm.wgmma")->config, "user-config");
  EXPECT_EQ(dbs.best_find(sys_only)->solver, "activ.system");  // not in the user db: the system's
  EXPECT_EQ(FindDb(*dbs.system()).all().size(), 2u);           // the system db was not written
  EXPECT_EQ(PerfDb(*dbs.system()).get(key, "conv.igemm.wgmma")->config, "system-config");
  EXPECT_TRUE(warnings_.empty()) << all_warnings();
}

TEST_F(TuningRecords, DbFailureAfterOpenIsAWarningNotAnError) {
  tuning::TuningDbs dbs({path("user.db"), ""}, keep_warnings());
  ASSERT_TRUE(dbs.writable());
  // Another program changes the file under the session.
  Db::open(path("user.db"), tuning::tuning_schema(), Db::Access::writable).exec("DROP TABLE find_records");
  EXPECT_FALSE(dbs.put(find_record(key_of(kConv), "conv.direct", 1.0)));
  EXPECT_FALSE(dbs.best_find(key_of(kConv)));
  EXPECT_TRUE(dbs.find_records(key_of(kConv)).empty());
  ASSERT_EQ(warnings_.size(), 3u) << all_warnings();
  EXPECT_NE(warnings_[0].find("tuning db write failed, record not kept: " + path("user.db")), std::string::npos) << warnings_[0];
  EXPECT_NE(warnings_[1].find("no such table"), std::string::npos) << warnings_[1];
  EXPECT_TRUE(dbs.put(perf_record(key_of(kConv), "conv.direct", "c", 1.0)));  // the other table is still there
  EXPECT_THROW(dbs.put(find_record(key_of(""), "conv.direct", 1.0)), InputError);  // bad input stays an error
}

TEST_F(TuningRecords, UserDbDirectoryIsCreatedOnDemand) {
  tuning::TuningDbs dbs({path("a/b/tuning.db"), ""}, keep_warnings());
  EXPECT_TRUE(dbs.writable());
  EXPECT_TRUE(dbs.put(find_record(key_of(kConv), "conv.direct", 1.0)));
  EXPECT_TRUE(std::filesystem::exists(path("a/b/tuning.db")));
  EXPECT_TRUE(warnings_.empty()) << all_warnings();
}

TEST_F(TuningRecords, UnwritableUserPathIsAReadOnlySession) {
  write_bytes(path("plain-file"), "not a directory");  // a directory that cannot exist, even for root
  tuning::TuningDbs dbs({path("plain-file/hiprim/tuning.db"), ""}, keep_warnings());
  EXPECT_FALSE(dbs.writable());
  EXPECT_FALSE(dbs.put(find_record(key_of(kConv), "conv.direct", 1.0)));
  EXPECT_FALSE(dbs.best_find(key_of(kConv)));
  ASSERT_EQ(warnings_.size(), 1u) << all_warnings();
  EXPECT_NE(warnings_[0].find("not writable"), std::string::npos) << warnings_[0];
  EXPECT_NE(warnings_[0].find("plain-file"), std::string::npos) << warnings_[0];
}

TEST_F(TuningRecords, NoHomeIsAReadOnlySession) {
  tuning::TuningDbs dbs({"", ""}, keep_warnings());
  EXPECT_FALSE(dbs.writable());
  EXPECT_FALSE(dbs.put(perf_record(key_of(kConv), "conv.direct", "c", 1.0)));
  EXPECT_EQ(warnings_.size(), 1u) << all_warnings();
}

TEST_F(TuningRecords, DefaultPathsFollowTheEnvironment) {
  const char* names[] = {"HIPRIM_USER_DB", "HIPRIM_SYSTEM_DB", "XDG_CACHE_HOME", "HOME"};
  std::vector<std::pair<std::string, std::optional<std::string>>> saved;
  for (const char* n : names) saved.emplace_back(n, getenv(n) ? std::optional<std::string>(getenv(n)) : std::nullopt);
  for (const char* n : names) unsetenv(n);
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(tuning::default_db_paths().user, "/home/u/.cache/hiprim/tuning.db");
  // Unset: the installed system db where one is installed (cmake --install), else none.
  const bool installed = std::filesystem::is_regular_file(tuning::installed_system_db());
  EXPECT_EQ(tuning::default_db_paths().system, installed ? tuning::installed_system_db() : "");
  EXPECT_NE(tuning::installed_system_db().find("/share/hiprim/tuning_system.db"), std::string::npos) << tuning::installed_system_db();
  setenv("HIPRIM_SYSTEM_DB", "", 1);  // set but empty: none, installed or not
  EXPECT_EQ(tuning::default_db_paths().system, "");
  unsetenv("HIPRIM_SYSTEM_DB");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(tuning::default_db_paths().user, "/xdg/hiprim/tuning.db");
  setenv("HIPRIM_USER_DB", "/u.db", 1);
  setenv("HIPRIM_SYSTEM_DB", "/s.db", 1);
  EXPECT_EQ(tuning::default_db_paths().user, "/u.db");
  EXPECT_EQ(tuning::default_db_paths().system, "/s.db");
  for (auto& [n, v] : saved) v ? setenv(n.c_str(), v->c_str(), 1) : unsetenv(n.c_str());
}

}  // namespace
}  // namespace hiprim::test
