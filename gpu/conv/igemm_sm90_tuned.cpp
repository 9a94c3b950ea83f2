// The H200-tuned default configs of conv.igemm.wgmma: for each problem an H200 sweep timed (ResNet-50
// v1.5 at batch 32: reports/h200/s3-2026-12-01/sweep_wgmma_h200.csv, every config verified against conv.naive and
// timed by graph replay), the fastest config; for every other problem, or when the listed config cannot
// run the plan, the cost model's pick (igemm_default_config(plan)). fp16 and bf16 share the entries
// (the same instructions and bytes); bwd-data's entries include its lowerings (.flip, .col2im).
// Host code; regenerate the table with scripts/igemm_tuned_table.py.
#include <map>
#include <string>

#include "gpu/conv/igemm_sm90_plan.hpp"

namespace hiprim::gpu::sm90 {
namespace {

struct TunedEntry {
  const char* problem;  // canonical string with dtype bf16
  const char* config;
  double us;            // the sweep's time (for notes; not used here)
};

constexpr TunedEntry kTuned[] = {
#include "gpu/conv/igemm_sm90_tuned.inc"
};

const std::map<std::string, const TunedEntry*>& tuned_table() {
  static const std::map<std::string, const TunedEntry*> table = [] {
    std::map<std::string, const TunedEntry*> t;
    for (const TunedEntry& e : kTuned) t.emplace(e.problem, &e);
    return t;
  }();
  return table;
}

}  // namespace

std::optional<IgemmConfig> igemm_tuned_config(const ConvProblem& p, const IgemmPlan& pl) {
  if (p.dtype != DType::bf16 && p.dtype != DType::fp16) return std::nullopt;
  ConvProblem key = p;
  key.dtype = DType::bf16;
  const auto it = tuned_table().find(to_string(key));
  if (it == tuned_table().end()) return std::nullopt;
  const auto c = parse_igemm_config(it->second->config);
  if (!c || !igemm_config_refusal(pl, *c).empty()) return std::nullopt;
  return c;
}

IgemmConfig igemm_default_config(const ConvProblem& p, const IgemmPlan& pl) {
  if (const auto c = igemm_tuned_config(p, pl)) return *c;
  return igemm_default_config(pl);
}

}  // namespace hiprim::gpu::sm90
