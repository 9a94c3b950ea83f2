// Shards: a campaign's cases are numbered 0, 1, 2, ...; shard I of N runs the cases i with
// i mod N == I, so N independent processes (a Slurm array, a Kubernetes indexed Job, mpirun ranks,
// one worker per GPU) cover disjoint cases of the same campaign without talking to each other.
// The same seed and shard always give the same cases.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace hiprim::fuzz {

struct Shard {
  std::int64_t index = 0;  // 0 <= index < count
  std::int64_t count = 1;
  bool owns(std::uint64_t case_index) const { return case_index % static_cast<std::uint64_t>(count) == static_cast<std::uint64_t>(index); }
  std::string str() const { return std::to_string(index) + "/" + std::to_string(count); }
  // Shard `sub` of `subs` inside this shard (--devices: one worker per GPU): index + count*sub of count*subs.
  Shard split(std::int64_t sub, std::int64_t subs) const;
  bool operator==(const Shard&) const = default;
};

// "I/N" with 0 <= I < N; InputError naming `what` (e.g. "--shard") and the rule otherwise.
Shard parse_shard(const std::string& text, const std::string& what = "--shard");

// Reads a variable of the environment; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;
EnvLookup process_environment();

// The shard the scheduler gave this process, in this order:
//   Slurm job array: SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN (MIN defaults to 0) of SLURM_ARRAY_TASK_COUNT;
//   Kubernetes indexed Job: JOB_COMPLETION_INDEX of `k8s_count` (the Job's completions, --shard-count)
//     or of HIPRIM_SHARD_COUNT;
//   MPI: OMPI_COMM_WORLD_RANK of OMPI_COMM_WORLD_SIZE (Open MPI), else PMI_RANK of PMI_SIZE (MPICH, Slurm srun).
// nullopt when none is set. `source` (when given) gets the variables used, e.g.
// "SLURM_ARRAY_TASK_ID=3 of SLURM_ARRAY_TASK_COUNT=8". InputError names the variable when a value is
// not an integer or is out of range, and when JOB_COMPLETION_INDEX comes without a count.
std::optional<Shard> shard_from_environment(const EnvLookup& env, std::int64_t k8s_count = 0, std::string* source = nullptr);

}  // namespace hiprim::fuzz
