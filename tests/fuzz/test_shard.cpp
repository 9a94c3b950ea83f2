// Shards from flags and from the schedulers' environments (Slurm arrays, Kubernetes indexed Jobs, MPI).
#include <gtest/gtest.h>

#include <map>

#include "core/error.hpp"
#include "fuzz/shard.hpp"

namespace hiprim::fuzz {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars](const char* name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST(FuzzShard, ParsesIOfNAndRejectsEverythingElse) {
  EXPECT_EQ(parse_shard("0/1"), (Shard{0, 1}));
  EXPECT_EQ(parse_shard("3/8"), (Shard{3, 8}));
  for (const char* bad : {"", "3", "8/8", "-1/4", "1/0", "a/4", "1/b", "1//4", "1/4/2", " 1/4", "99999999999999999999/4"})
    EXPECT_THROW(parse_shard(bad), InputError) << bad;
  try {
    parse_shard("8/8");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--shard index I"), std::string::npos) << e.what();
  }
}

TEST(FuzzShard, ShardsPartitionTheCases) {
  const Shard shards[] = {{0, 3}, {1, 3}, {2, 3}};
  for (std::uint64_t i = 0; i < 100; ++i) {
    int owners = 0;
    for (auto& s : shards) owners += s.owns(i) ? 1 : 0;
    EXPECT_EQ(owners, 1) << i;
  }
  // Splitting a shard per device keeps the partition: worker d of D inside shard I of N.
  const Shard s{1, 3};
  for (std::uint64_t i = 0; i < 60; ++i) {
    int owners = 0;
    for (int d = 0; d < 4; ++d) owners += s.split(d, 4).owns(i) ? 1 : 0;
    EXPECT_EQ(owners, s.owns(i) ? 1 : 0) << i;
  }
}

TEST(FuzzShard, SlurmArrayOffsetsByTheTaskMinimum) {
  std::string src;
  auto s = shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}), 0, &src);
  ASSERT_TRUE(s);
  EXPECT_EQ(*s, (Shard{4, 8}));
  EXPECT_NE(src.find("SLURM_ARRAY_TASK_ID=5"), std::string::npos);
  EXPECT_EQ(*shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "2"}})), (Shard{0, 2}));
  EXPECT_THROW(shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "3"}})), InputError);  // no count
  EXPECT_THROW(shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "9"}, {"SLURM_ARRAY_TASK_COUNT", "8"}})), InputError);
  EXPECT_THROW(shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "8"}})), InputError);
}

TEST(FuzzShard, KubernetesIndexNeedsACount) {
  EXPECT_EQ(*shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "2"}}), 5), (Shard{2, 5}));
  EXPECT_EQ(*shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "2"}, {"HIPRIM_SHARD_COUNT", "3"}})), (Shard{2, 3}));
  try {
    shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "2"}}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--shard-count"), std::string::npos) << e.what();
  }
  EXPECT_THROW(shard_from_environment(env_of({{"JOB_COMPLETION_INDEX", "5"}}), 5), InputError);
}

TEST(FuzzShard, MpiRankAndSizeAndPrecedence) {
  EXPECT_EQ(*shard_from_environment(env_of({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}})), (Shard{3, 4}));
  EXPECT_EQ(*shard_from_environment(env_of({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}})), (Shard{1, 2}));
  EXPECT_THROW(shard_from_environment(env_of({{"PMI_RANK", "1"}})), InputError);
  // A Slurm array wins over the MPI variables of the same job step.
  EXPECT_EQ(*shard_from_environment(env_of({{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "2"}, {"PMI_RANK", "0"}, {"PMI_SIZE", "4"}})),
            (Shard{1, 2}));
  EXPECT_FALSE(shard_from_environment(env_of({})).has_value());
}

}  // namespace
}  // namespace hiprim::fuzz
