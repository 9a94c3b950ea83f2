// The H200-tuned default configs of conv.igemm.wgmma: for each problem an H200 sweep timed (ResNet-50
// v1.5 at batch 32: reports/h200/s3-2026-12-01/sweep_wgmma_h200.csv, every config verified against conv.naive and
// timed by graph replay), the fastest config; for every other problem, or when the listed config cannot
// run the plan, the cost model's pick (igemm_default_config(plan)). fp16 and bf16 share the entries
// (the same instructions and bytes); bwd-data's entries include its lowerings (.flip, .col2im).
// fp32 math=tf32 problems have their own table (igemm_sm90_tuned_tf32.inc: hiprim tune's best verified
// config where it beat the cost model's by more than 3%; NHWC keys, the NCHW solver looks up its twin).
// Host code; regenerate the tables with scripts/igemm_tuned_table.py and scripts/igemm_tuned_table_tf32.py.
#include <map>
#include <string>

#include "gpu/conv/igemm_sm90_plan.hpp"

namespace hiprim::gpu::sm90 {
namespace {

struct TunedEntry {
  const char* problem;  // canonical string (dtype bf16 for the 16-bit table)
  const char* config;
  double us;            // the sweep's / tune's time (for notes; not used here)
};

constexpr TunedEntry kTuned[] = {
#include "gpu/conv/igemm_sm90_tuned.inc"
};
constexpr TunedEntry kTunedTf32[] = {
#include "gpu/conv/igemm_sm90_tuned_tf32.inc"
    {nullptr, nullptr, 0.0},  // the end (the generated list may be empty)
};

using TunedMap = std::map<std::string, const TunedEntry*>;
template <std::size_t N>
TunedMap map_of(const TunedEntry (&entries)[N]) {
  TunedMap t;
  for (const TunedEntry& e : entries)
    if (e.problem != nullptr) t.emplace(e.problem, &e);
  return t;
}

}  // namespace

std::optional<IgemmConfig> igemm_tuned_config(const ConvProblem& p, const IgemmPlan& pl) {
  static const TunedMap table = map_of(kTuned), tf32 = map_of(kTunedTf32);
  const bool half = p.dtype == DType::bf16 || p.dtype == DType::fp16;
  if (!half && !(p.dtype == DType::fp32 && p.math == ConvMath::tf32)) return std::nullopt;
  ConvProblem key = p;
  if (half) key.dtype = DType::bf16;
  const TunedMap& t = half ? table : tf32;
  const auto it = t.find(to_string(key));
  if (it == t.end()) return std::nullopt;
  const auto c = parse_igemm_config(it->second->config);
  if (!c || !igemm_config_refusal(pl, *c).empty()) return std::nullopt;
  return c;
}

IgemmConfig igemm_default_config(const ConvProblem& p, const IgemmPlan& pl) {
  if (const auto c = igemm_tuned_config(p, pl)) return *c;
  return igemm_default_config(pl);
}

}  // namespace hiprim::gpu::sm90
