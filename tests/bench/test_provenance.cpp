// Build-time provenance (cmake/provenance.cmake, BuildProvenance in verify/report.hpp): the script
// is run here on a scratch git repository in each state (clean, modified, untracked file, reverted),
// and the machine block of every report carries its fields.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "verify/report.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

namespace {

namespace fs = std::filesystem;

int sh(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()); }

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The BuildProvenance initializer the script wrote: {describe, commit, dirty, hash, note}.
struct Parsed {
  std::string describe, commit, dirty, hash, note;
};
Parsed parse_generated(const std::string& text) {
  static const std::regex re(R"re(BuildProvenance\{"([^"]*)", "([^"]*)", (true|false), "([^"]*)", "([^"]*)"\})re");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return {"<no match>", "", "", "", ""};
  return {m[1], m[2], m[3], m[4], m[5]};
}

class ProvenanceScript : public ::testing::Test {
 protected:
  void SetUp() override {
    if (sh("git --version") != 0) GTEST_SKIP() << "git not found: the provenance script cannot be exercised here";
    dir_ = fs::temp_directory_path() / ("hiprim_provenance_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    out_ = dir_.string() + ".cpp";
    ASSERT_EQ(git("init -q"), 0);
    ASSERT_EQ(git("config user.email t@example.com"), 0);
    ASSERT_EQ(git("config user.name test"), 0);
    write("a.txt", "one\n");
    write(".gitignore", "ignored.txt\n");
    ASSERT_EQ(git("add a.txt .gitignore"), 0);
    ASSERT_EQ(git("commit -q -m first"), 0);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
    std::remove(out_.c_str());
  }
  int git(const std::string& args) { return sh("git -C '" + dir_.string() + "' " + args); }
  void write(const std::string& name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::string head() {
    const std::string tmp = out_ + ".head";
    EXPECT_EQ(std::system(("git -C '" + dir_.string() + "' rev-parse --short=12 HEAD > '" + tmp + "' 2>/dev/null").c_str()), 0);
    std::string h = slurp(tmp);
    std::remove(tmp.c_str());
    while (!h.empty() && (h.back() == '\n' || h.back() == '\r')) h.pop_back();
    return h;
  }
  Parsed run() {
    const std::string cmd = std::string("'") + HIPRIM_CMAKE_COMMAND + "' -DSOURCE_DIR='" + dir_.string() + "' -DOUTPUT='" + out_ +
                            "' -P '" + HIPRIM_PROVENANCE_SCRIPT + "'";
    EXPECT_EQ(sh(cmd), 0) << cmd;
    return parse_generated(slurp(out_));
  }
  fs::path dir_;
  std::string out_;
};

}  // namespace

TEST_F(ProvenanceScript, CleanModifiedUntrackedAndReverted) {
  const std::string commit = head();
  ASSERT_EQ(commit.size(), 12u);
  const Parsed clean = run();
  EXPECT_EQ(clean.describe, commit);  // no tags: --always gives the abbreviated hash
  EXPECT_EQ(clean.commit, commit);
  EXPECT_EQ(clean.dirty, "false");
  EXPECT_EQ(clean.hash, "");
  EXPECT_EQ(clean.note, "");

  write("a.txt", "two\n");  // a tracked change
  const Parsed modified = run();
  EXPECT_EQ(modified.describe, commit + "-dirty");
  EXPECT_EQ(modified.dirty, "true");
  EXPECT_TRUE(std::regex_match(modified.hash, std::regex("[0-9a-f]{64}"))) << modified.hash;

  write("a.txt", "three\n");  // a different change: a different hash
  const Parsed other = run();
  EXPECT_EQ(other.dirty, "true");
  EXPECT_NE(other.hash, modified.hash);

  write("a.txt", "one\n");  // reverted: clean again
  EXPECT_EQ(run().hash, "");

  write("ignored.txt", "x\n");  // ignored files do not count
  EXPECT_EQ(run().dirty, "false");

  write("new.txt", "x\n");  // an untracked file counts (git describe itself ignores it)
  const Parsed untracked = run();
  EXPECT_EQ(untracked.describe, commit);
  EXPECT_EQ(untracked.dirty, "true");
  EXPECT_TRUE(std::regex_match(untracked.hash, std::regex("[0-9a-f]{64}"))) << untracked.hash;
  write("new.txt", "y\n");  // its content is part of the hash
  EXPECT_NE(run().hash, untracked.hash);
}

TEST_F(ProvenanceScript, UnchangedStateLeavesTheFileAlone) {
  (void)run();
  struct stat before{};
  ASSERT_EQ(::stat(out_.c_str(), &before), 0);
  const std::string text = slurp(out_);
  (void)run();  // same state: same text, file not rewritten (so nothing recompiles)
  struct stat after{};
  ASSERT_EQ(::stat(out_.c_str(), &after), 0);
  EXPECT_EQ(slurp(out_), text);
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}

TEST_F(ProvenanceScript, OutsideAWorkTreeSaysUnknown) {
  fs::remove_all(dir_ / ".git");
  const Parsed p = run();
  EXPECT_EQ(p.describe, "unknown");
  EXPECT_NE(p.note.find("not a git work tree"), std::string::npos) << p.note;
}

TEST(Provenance, MachineBlockCarriesTheBuildsProvenance) {
  const BuildProvenance b = build_provenance();
  const json m = machine_json(nullptr);
  EXPECT_EQ(m["git_describe"], b.describe);
  EXPECT_EQ(m["git_commit"], b.commit);
  EXPECT_EQ(m["git_dirty"], b.dirty);
  EXPECT_EQ(m["git_diff_sha256"], b.diff_sha256);
  EXPECT_FALSE(b.describe.empty());
  EXPECT_EQ(b.dirty, !b.diff_sha256.empty());  // a hash exactly when the tree differed from HEAD
  if (b.describe.find("-dirty") != std::string::npos) {
    EXPECT_TRUE(b.dirty);  // git's dirt is ours too
  }
}

TEST(Provenance, DriverVersionAndCudaApiNumberAreSeparateFields) {
  const json gpu{{"name", "NVIDIA H200"}, {"driver_version", "13000"}, {"runtime_version", "13000"}, {"backend", "cuda"}};
  const json m = machine_json(gpu);
  EXPECT_EQ(m["gpu"]["cuda_driver_api_version"], "13000");  // the number the runtime gives
  const std::string d = m["gpu"]["driver_version"];
  EXPECT_NE(d, "13000");  // not the CUDA API number any more
  // NVML's "580.159.04" on a GPU machine, else the reason it is unknown.
  EXPECT_TRUE(std::regex_match(d, std::regex(R"(\d+\.\d+(\.\d+)?)")) || d.rfind("unknown: ", 0) == 0) << d;
}

TEST(Provenance, SchemaVersion2RequiresTheProvenanceFields) {
  json r = conformance_report(machine_json(nullptr), {}, "test");
  ASSERT_EQ(r["schema_version"], 2);
  ASSERT_TRUE(check_report_schema(r).empty());
  json bad = r;
  bad["machine"].erase("git_describe");
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["machine"]["git_dirty"] = true;
  bad["machine"]["git_diff_sha256"] = "";  // dirty needs a hash
  EXPECT_FALSE(check_report_schema(bad).empty());
  bad = r;
  bad["machine"]["git_dirty"] = false;
  bad["machine"]["git_diff_sha256"] = std::string(64, 'a');  // clean has none
  EXPECT_FALSE(check_report_schema(bad).empty());
  json v1 = r;  // a version 1 report does not need them
  v1["schema_version"] = 1;
  v1["machine"].erase("git_describe");
  v1["machine"].erase("git_dirty");
  v1["machine"].erase("git_diff_sha256");
  v1["machine"].erase("provenance");
  EXPECT_TRUE(check_report_schema(v1).empty());
  v1["schema_version"] = 3;
  EXPECT_FALSE(check_report_schema(v1).empty());
}
