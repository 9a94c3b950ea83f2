// Shared pieces of the tuning db tests: a fresh temporary directory per test, keys and records with
// recognizable values, the warnings a session gave, the files in a directory.
#pragma once
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "tuning/tuning_dbs.hpp"

namespace hiprim::test {

inline tuning::DbKey key_of(const std::string& problem, const std::string& version = "0.1.0", const std::string& device = "NVIDIA H200") {
  return tuning::DbKey{problem, device, 132, "9.0", version};
}

inline tuning::FindRecord find_record(const tuning::DbKey& key, const std::string& solver, double time_us, bool verified = true) {
  return tuning::FindRecord{key, solver, "cfg-" + solver, time_us, 4096, verified, 1764614400};
}

inline tuning::PerfRecord perf_record(const tuning::DbKey& key, const std::string& solver, const std::string& config, double time_us) {
  return tuning::PerfRecord{key, solver, config, time_us, time_us * 1.5, 12.5, 1764614400};
}

// Every name in dir, sorted (so a test can say which files an open created).
inline std::set<std::string> names_in(const std::filesystem::path& dir) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

class TuningDbTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "hiprim-tuning-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::permissions(dir_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir_, ec))
      std::filesystem::permissions(e.path(), std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // A sink that keeps the warnings instead of printing them.
  tuning::WarnSink keep_warnings() {
    return [this](const std::string& w) { warnings_.push_back(w); };
  }
  std::string all_warnings() const {
    std::string s;
    for (const auto& w : warnings_) s += w + "\n";
    return s;
  }
  // The names in the test directory that start with prefix.
  std::vector<std::string> files_starting(const std::string& prefix) const {
    std::vector<std::string> out;
    for (const auto& n : names_in(dir_))
      if (n.rfind(prefix, 0) == 0) out.push_back(n);
    return out;
  }

  std::filesystem::path dir_;
  std::vector<std::string> warnings_;
};

}  // namespace hiprim::test
