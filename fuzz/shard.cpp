#include "fuzz/shard.hpp"

#include <cstdlib>

#include "core/error.hpp"

namespace hiprim::fuzz {
namespace {

// A whole decimal integer in [lo, hi]; InputError naming `what` otherwise.
std::int64_t parse_int(const std::string& s, const std::string& what, std::int64_t lo, std::int64_t hi) {
  if (s.empty() || s.size() > 18) throw InputError(what + " '" + s + "': expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  std::size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) throw InputError(what + " '" + s + "': expected an integer");
  for (std::size_t j = i; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9') throw InputError(what + " '" + s + "': expected an integer");
  const std::int64_t v = std::stoll(s);
  if (v < lo || v > hi)
    throw InputError(what + " = " + s + " is out of range: it must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return v;
}

constexpr std::int64_t kMaxShards = std::int64_t{1} << 40;

}  // namespace

Shard Shard::split(std::int64_t sub, std::int64_t subs) const {
  if (subs < 1 || sub < 0 || sub >= subs)
    throw InputError("worker " + std::to_string(sub) + " of " + std::to_string(subs) + ": need 0 <= worker < workers");
  return Shard{index + count * sub, count * subs};  // i mod (N*D) == I + N*d  <=>  i mod N == I and (i / N) mod D == d
}

Shard parse_shard(const std::string& text, const std::string& what) {
  const auto slash = text.find('/');
  if (slash == std::string::npos)
    throw InputError(what + " '" + text + "': expected I/N (shard I of N, 0 <= I < N), e.g. 0/4");
  Shard s;
  s.count = parse_int(text.substr(slash + 1), what + " count N", 1, kMaxShards);
  s.index = parse_int(text.substr(0, slash), what + " index I", 0, s.count - 1);
  return s;
}

EnvLookup process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* v = std::getenv(name);
    if (!v) return std::nullopt;
    return std::string(v);
  };
}

std::optional<Shard> shard_from_environment(const EnvLookup& env, std::int64_t k8s_count, std::string* source) {
  auto report = [&](const std::string& s) {
    if (source) *source = s;
  };
  // Slurm array: task ids run from SLURM_ARRAY_TASK_MIN (often 0 or 1) in steps of 1 by default.
  if (auto id = env("SLURM_ARRAY_TASK_ID")) {
    auto count = env("SLURM_ARRAY_TASK_COUNT");
    if (!count) throw InputError("SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: cannot tell the shard count");
    Shard s;
    s.count = parse_int(*count, "SLURM_ARRAY_TASK_COUNT", 1, kMaxShards);
    const std::int64_t min = env("SLURM_ARRAY_TASK_MIN") ? parse_int(*env("SLURM_ARRAY_TASK_MIN"), "SLURM_ARRAY_TASK_MIN", 0, kMaxShards) : 0;
    const std::int64_t task = parse_int(*id, "SLURM_ARRAY_TASK_ID", 0, kMaxShards);
    if (task < min || task - min >= s.count)
      throw InputError("SLURM_ARRAY_TASK_ID = " + *id + " is outside [SLURM_ARRAY_TASK_MIN, MIN + SLURM_ARRAY_TASK_COUNT) = [" +
                       std::to_string(min) + ", " + std::to_string(min + s.count) + ") (use a contiguous array, step 1)");
    s.index = task - min;
    report("SLURM_ARRAY_TASK_ID=" + *id + " (min " + std::to_string(min) + ") of SLURM_ARRAY_TASK_COUNT=" + *count);
    return s;
  }
  if (auto idx = env("JOB_COMPLETION_INDEX")) {
    std::int64_t count = k8s_count;
    std::string count_from = "--shard-count";
    if (count <= 0) {
      auto c = env("HIPRIM_SHARD_COUNT");
      if (!c)
        throw InputError("JOB_COMPLETION_INDEX = " + *idx + " is set but the shard count is unknown: pass --shard-count N "
                         "(the Job's completions) or set HIPRIM_SHARD_COUNT");
      count = parse_int(*c, "HIPRIM_SHARD_COUNT", 1, kMaxShards);
      count_from = "HIPRIM_SHARD_COUNT";
    }
    Shard s;
    s.count = count;
    s.index = parse_int(*idx, "JOB_COMPLETION_INDEX", 0, count - 1);
    report("JOB_COMPLETION_INDEX=" + *idx + " of " + count_from + "=" + std::to_string(count));
    return s;
  }
  for (auto [rank, size] : {std::pair{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"}, std::pair{"PMI_RANK", "PMI_SIZE"}}) {
    auto r = env(rank);
    if (!r) continue;
    auto n = env(size);
    if (!n) throw InputError(std::string(rank) + " is set but " + size + " is not: cannot tell the shard count");
    Shard s;
    s.count = parse_int(*n, size, 1, kMaxShards);
    s.index = parse_int(*r, rank, 0, s.count - 1);
    report(std::string(rank) + "=" + *r + " of " + size + "=" + *n);
    return s;
  }
  return std::nullopt;
}

}  // namespace hiprim::fuzz
