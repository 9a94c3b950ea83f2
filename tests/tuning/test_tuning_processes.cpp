// Several processes at once: 8 forked writers into one (not yet existing) db, and a writer killed
// with SIGKILL in the middle of a long transaction. Each child opens its own connection after
// fork() and reports by exit status; the parent checks the db afterwards.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "tests/tuning/tuning_fixture.hpp"

namespace hiprim::test {
namespace {

using tuning::Db;
using tuning::FindDb;

// Record i of writer w: every field derives from (w, i), so a torn or mixed record shows.
tuning::FindRecord writer_record(int w, int i) {
  auto key = key_of("conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3 #" + std::to_string(w) + "-" + std::to_string(i));
  return tuning::FindRecord{key, "writer" + std::to_string(w), "cfg-" + std::to_string(w) + "-" + std::to_string(i), w * 1000.0 + i,
                            i * 7 + w, i % 2 == 0, 1764614400 + i};
}

// Exit status of a child: 0 done, 3 it was warned (a spurious recovery), 4 an exception.
int child_writes(const std::string& file, int w, int count) {
  try {
    bool warned = false;
    const Db db = Db::open_or_create(file, tuning::tuning_schema(), [&](const std::string& m) {
      warned = true;
      std::fprintf(stderr, "writer %d warned: %s\n", w, m.c_str());
    });
    for (int i = 0; i < count; ++i) FindDb(db).put(writer_record(w, i));  // one transaction each
    return warned ? 3 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer %d: %s\n", w, e.what());
    return 4;
  }
}

class TuningProcesses : public TuningDbTest {};

TEST_F(TuningProcesses, EightWritersAtOnceLoseAndTearNothing) {
  constexpr int kWriters = 8, kEach = 200;
  const std::string file = path("shared.db");  // created by whichever writer comes first
  int gate[2];
  ASSERT_EQ(pipe(gate), 0);
  std::vector<pid_t> kids;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      close(gate[1]);
      char c;
      while (read(gate[0], &c, 1) > 0) {  // all start together when the parent closes the gate
      }
      _exit(child_writes(file, w, kEach));
    }
    kids.push_back(pid);
  }
  close(gate[0]);
  close(gate[1]);
  for (pid_t pid : kids) {
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "writer status " << st;
  }
  const Db db = Db::open(file, tuning::tuning_schema(), Db::Access::read_shared, true);
  EXPECT_EQ(db.integrity_problems(), "");
  const auto all = FindDb(db).all();
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kWriters * kEach));
  std::set<std::pair<int, int>> seen;
  for (const auto& r : all) {
    int w = -1, i = -1;
    ASSERT_EQ(std::sscanf(r.key.problem.c_str() + r.key.problem.find('#'), "#%d-%d", &w, &i), 2) << r.key.problem;
    EXPECT_EQ(r, writer_record(w, i)) << r.key.problem;
    seen.insert({w, i});
  }
  EXPECT_EQ(seen.size(), all.size());
  EXPECT_TRUE(files_starting("shared.db.corrupt-").empty());
  EXPECT_TRUE(files_starting("shared.db.new-").empty());
}

TEST_F(TuningProcesses, WriterKilledMidTransactionLeavesTheCommittedRecordsOnly) {
  constexpr int kCommitted = 50, kBatch = 100000;
  const std::string file = path("killed.db");
  { Db::open_or_create(file, tuning::tuning_schema(), keep_warnings()); }
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    try {
      std::vector<tuning::FindRecord> batch;
      for (int i = 0; i < kBatch; ++i) {
        batch.push_back(writer_record(1, i));
        batch.back().config += std::string(120, 'x');  // larger rows: the transaction spills to the WAL early
      }
      // One connection throughout, so the committed records are still in the WAL at the kill.
      const Db db = Db::open(file, tuning::tuning_schema(), Db::Access::writable);
      for (int i = 0; i < kCommitted; ++i) FindDb(db).put(writer_record(0, i));
      if (write(ready[1], "c", 1) != 1) _exit(5);
      FindDb(db).put_all(batch);  // one long transaction; killed before it commits
      if (write(ready[1], "d", 1) != 1) _exit(5);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "killed writer: %s\n", e.what());
      _exit(4);
    }
    _exit(0);
  }
  close(ready[1]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1) << "the child failed before its long transaction";
  ASSERT_EQ(c, 'c');
  // Kill once uncommitted pages of the long transaction have reached the WAL (SQLite spills them
  // when its cache fills), so there is something half-written to recover from.
  const auto wal = file + "-wal";
  const auto committed_size = std::filesystem::file_size(wal);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::filesystem::file_size(wal) < committed_size + (1u << 20) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL) << "status " << st;
  EXPECT_NE(read(ready[0], &c, 1), 1) << "the long transaction committed before the kill: the test proved nothing";
  close(ready[0]);
  EXPECT_GT(std::filesystem::file_size(wal), committed_size) << "no uncommitted frames reached the WAL";

  warnings_.clear();
  const Db db = Db::open_or_create(file, tuning::tuning_schema(), keep_warnings());
  EXPECT_TRUE(warnings_.empty()) << all_warnings();  // opened as it is, nothing moved aside
  EXPECT_EQ(db.integrity_problems(), "");
  const auto all = FindDb(db).all();
  ASSERT_EQ(all.size(), static_cast<std::size_t>(kCommitted));
  for (int i = 0; i < kCommitted; ++i) EXPECT_EQ(FindDb(db).records(writer_record(0, i).key).at(0), writer_record(0, i));
  EXPECT_TRUE(FindDb(db).records(writer_record(1, 0).key).empty());
  FindDb(db).put(writer_record(2, 0));  // and it is writable again
  EXPECT_EQ(FindDb(db).all().size(), static_cast<std::size_t>(kCommitted + 1));
}

}  // namespace
}  // namespace hiprim::test
