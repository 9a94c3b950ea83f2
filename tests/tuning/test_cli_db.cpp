// `hiprim db path | check | show`: paths from the environment, check's exit codes (0 sound, 1 bad,
// 2 bad input), the listing of records, and that neither command modifies a bad file.
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "tests/cli/cli_runner.hpp"
#include "tests/tuning/tuning_fixture.hpp"

namespace hiprim::test {
namespace {

class CliDb : public TuningDbTest {
 protected:
  // `hiprim <args>` (through exits_with) with the user db and system db `sys` of this test.
  ::testing::AssertionResult db_exits(const std::string& args, int code, const std::string& needle = "") {
    setenv("HIPRIM_USER_DB", path("user.db").c_str(), 1);
    setenv("HIPRIM_SYSTEM_DB", sys_.c_str(), 1);
    return exits_with(args, code, needle);
  }
  void TearDown() override {
    unsetenv("HIPRIM_USER_DB");
    unsetenv("HIPRIM_SYSTEM_DB");
    TuningDbTest::TearDown();
  }
  std::string sys_;
};

TEST_F(CliDb, PathNamesBothDbs) {
  sys_ = path("system.db");
  EXPECT_TRUE(db_exits("db path", 0, "user   " + path("user.db")));
  EXPECT_TRUE(db_exits("db path", 0, "system " + path("system.db")));
  sys_ = "";
  EXPECT_TRUE(db_exits("db path", 0, "(none: HIPRIM_SYSTEM_DB is set empty)"));
}

TEST_F(CliDb, CheckExitCodes) {
  EXPECT_TRUE(db_exits("db check", 0, "not created yet"));  // nothing made by a check
  EXPECT_FALSE(std::filesystem::exists(path("user.db")));
  {
    const auto db = tuning::Db::open_or_create(path("user.db"), tuning::tuning_schema(), keep_warnings());
    tuning::FindDb(db).put(find_record(key_of("activ fwd relu fp32 nchw n1 c3 in8x8"), "activ.direct", 3.5));
  }
  EXPECT_TRUE(db_exits("db check", 0, "ok: schema version 2, 1 find records, 0 perf records"));
  EXPECT_TRUE(db_exits("db check --db " + shell_quote(path("user.db")), 0, "(file): ok"));
  write_bytes(path("junk.db"), std::string(5000, 'j'));
  EXPECT_TRUE(db_exits("db check --db " + shell_quote(path("junk.db")), 1, "BAD: " + path("junk.db") + ": not an SQLite database"));
  EXPECT_TRUE(files_starting("junk.db.corrupt-").empty());  // reported, not moved
  sys_ = path("junk.db");
  EXPECT_TRUE(db_exits("db check", 1, "(system): BAD"));
  EXPECT_TRUE(db_exits("db check --db " + shell_quote(path("missing.db")), 2, "--db '" + path("missing.db") + "': no such file"));
  EXPECT_TRUE(db_exits("db check --bogus", 2, "--bogus"));
  EXPECT_TRUE(db_exits("db", 2, "subcommand"));
  EXPECT_TRUE(db_exits("db check --db", 2, "--db"));
}

TEST_F(CliDb, ShowListsRecordsOfAProblem) {
  const std::string relu = "activ fwd relu fp32 nchw n1 c3 in8x8";
  {
    const auto db = tuning::Db::open_or_create(path("user.db"), tuning::tuning_schema(), keep_warnings());
    tuning::FindDb(db).put(find_record(key_of(relu), "activ.direct", 3.5));
    tuning::FindDb(db).put(find_record(key_of("softmax fwd accurate channel fp32 nchw n1 c3 in8x8"), "softmax.direct", 1.0));
    tuning::PerfDb(db).put(perf_record(key_of(relu), "activ.vec", "v4", 2.0));
  }
  const hiprim::test::Run all = hiprim_stdout("db show --db " + shell_quote(path("user.db")));
  EXPECT_EQ(all.code, 0) << all.out;
  EXPECT_TRUE(has(all.out, "find activ.direct config=cfg-activ.direct time_us=3.500 workspace=4096 verified=yes at=2025-12-01T18:40:00Z | " +
                               key_of(relu).text()))
      << all.out;
  EXPECT_TRUE(has(all.out, "softmax.direct")) << all.out;
  EXPECT_TRUE(has(all.out, "perf activ.vec config=v4 time_us=2.000 default_time_us=3.000 tuning_s=12.5")) << all.out;
  const hiprim::test::Run one = hiprim_stdout("db show --db " + shell_quote(path("user.db")) + " --problem " + shell_quote(relu));
  EXPECT_EQ(one.code, 0) << one.out;
  EXPECT_TRUE(has(one.out, "activ.direct")) << one.out;
  EXPECT_FALSE(has(one.out, "softmax.direct")) << one.out;
  EXPECT_TRUE(db_exits("db show --problem 'activ sideways'", 2));
  std::filesystem::remove(path("user.db"));
  EXPECT_TRUE(db_exits("db show", 0, "# " + path("user.db") + " (user): not created yet"));
  EXPECT_FALSE(std::filesystem::exists(path("user.db")));  // show creates nothing
  write_bytes(path("user.db"), "junk");
  EXPECT_TRUE(db_exits("db show", 1, "(user): BAD: " + path("user.db") + ": not an SQLite database"));
}

// The shipped H200 system db (tuning/system/README.md): sound, of this schema, every record for the
// H200, and its records judge the model it was made with: the held-out problems' picks (solver
// choice, by the records; the measured evaluation needs the GPU and is in the device report) are
// within 10% of Find's best on >= 90% of them. A db regenerated badly, or a model change that picks
// worse solvers, fails here.
TEST_F(CliDb, TheShippedH200DbIsSoundAndItsModelPicksWell) {
  const std::string db = std::string(HIPRIM_SOURCE_DIR) + "/tuning/system/h200.db";
  ASSERT_TRUE(std::filesystem::exists(db)) << db;
  EXPECT_FALSE(std::filesystem::exists(db + "-wal")) << "ship the db closed (no -wal beside it)";
  const hiprim::test::Run check = hiprim_stdout("db check --db " + shell_quote(db));
  EXPECT_EQ(check.code, 0) << check.out;
  EXPECT_TRUE(has(check.out, "ok: schema version 2")) << check.out;
  const hiprim::test::Run show = hiprim_stdout("db show --db " + shell_quote(db));
  EXPECT_EQ(show.code, 0);
  std::size_t records = 0, h200 = 0;
  std::istringstream lines(show.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("find ", 0) == 0) ++records, h200 += has(line, " | NVIDIA H200 | sm 132 | cc 9.0 | hiprim ");
  EXPECT_GT(records, 1000u);
  EXPECT_EQ(h200, records);
  const std::string report = path("eval.json");
  const hiprim::test::Run ev = hiprim_stdout("db eval-immediate --holdout 0.3 --db " + shell_quote(db) + " --report " + shell_quote(report));
  EXPECT_EQ(ev.code, 0) << ev.out;
  std::ifstream in(report);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_GT(j.at("held_out").get<std::size_t>(), 50u);
  EXPECT_GE(j.at("hit_rate").get<double>(), 0.9) << ev.out;
}

}  // namespace
}  // namespace hiprim::test
