// The peer's autotuner and names (bench/bench_peer.hpp): host-only, built in every configuration.
#include <chrono>

#include "bench/bench_peer.hpp"
#include "bench/bench_report.hpp"
#include "verify/report.hpp"

namespace hiprim::verify {

using nlohmann::json;

std::string_view peer_kind_name(PeerKind k) {
  switch (k) {
    case PeerKind::none: return "none";
    case PeerKind::cudnn: return "cudnn";
    case PeerKind::cudnn_legacy: return "cudnn-legacy";
  }
  return "?";
}

std::optional<PeerKind> parse_peer_kind(std::string_view s) {
  for (PeerKind k : {PeerKind::none, PeerKind::cudnn, PeerKind::cudnn_legacy})
    if (peer_kind_name(k) == s) return k;
  return std::nullopt;
}

json unavailable_peer_json(PeerKind k, const std::string& why) {
  return json{{"name", peer_kind_name(k)}, {"available", false}, {"library", ""}, {"version", 0}, {"reason", why}};
}

AutotuneResult autotune(const std::vector<PeerCandidate>& candidates, const AutotuneRules& rules,
                        const std::function<Verdict(int)>& check, const std::function<double(int)>& time_ms) {
  const auto t0 = std::chrono::steady_clock::now();
  AutotuneResult r;
  int failed = 0, errors = 0, transforms = 0, unusable = 0;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const int i = static_cast<int>(k);
    PlanResult pr;
    pr.index = i;
    pr.candidate = candidates[k];
    if (!pr.candidate.usable) {
      pr.status = "not usable";
      pr.reason = pr.candidate.reason;
      ++unusable;
      r.plans.push_back(std::move(pr));
      continue;
    }
    try {
      if (rules.verify) {
        pr.check = check(i);
        pr.status = pr.candidate.transform ? "transform" : std::string(status_name(pr.check->status));
        pr.reason = pr.check->reason;
      } else {
        pr.status = "not checked";
      }
      pr.median_ms = time_ms(i);
    } catch (const std::exception& e) {
      pr.status = "error";
      pr.reason = e.what();
      pr.median_ms.reset();
    }
    failed += pr.status == "failed" || pr.status == "mistrusted";
    errors += pr.status == "error";
    transforms += pr.status == "transform";
    r.plans.push_back(std::move(pr));
  }
  for (std::size_t k = 0; k < r.plans.size(); ++k) {
    const PlanResult& p = r.plans[k];
    if (!p.median_ms || !(*p.median_ms > 0)) continue;
    const bool eligible = p.status == "passed" || p.status == "not checked" ||
                          (p.status == "transform" && rules.allow_transforms && p.check && p.check->metrics.nonfinite_mismatches == 0);
    if (eligible && (r.selected < 0 || *p.median_ms < *r.plans[static_cast<std::size_t>(r.selected)].median_ms))
      r.selected = static_cast<int>(k);
  }
  if (r.selected < 0)
    r.reason = "no plan passed its check: " + std::to_string(candidates.size()) + " plans, " + std::to_string(unusable) +
               " not usable, " + std::to_string(failed) + " failed, " + std::to_string(errors) + " errors, " +
               std::to_string(transforms) + " transform plans" + (rules.allow_transforms ? "" : " (not selectable)");
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

json autotune_json(const AutotuneResult& r, const AutotuneRules& rules) {
  int usable = 0, checked = 0, passed = 0, failed = 0, transform = 0, errors = 0;
  json detail = json::array();
  for (const PlanResult& p : r.plans) {
    usable += p.candidate.usable;
    checked += p.check.has_value();
    passed += p.status == "passed";
    failed += p.status == "failed" || p.status == "mistrusted";
    transform += p.status == "transform";
    errors += p.status == "error";
    json d{{"index", p.index},
           {"engine", p.candidate.engine},
           {"knobs", p.candidate.knobs},
           {"source", p.candidate.source},
           {"numerical_notes", p.candidate.numerical_notes},
           {"behavior_notes", p.candidate.behavior_notes},
           {"workspace_bytes", p.candidate.workspace_bytes},
           {"status", p.status},
           {"reason", p.reason},
           {"median_ms", p.median_ms ? number_json(*p.median_ms) : json(nullptr)},
           {"worst_ratio", p.check ? number_json(p.check->metrics.worst_ratio) : json(nullptr)},
           {"mismatches", p.check ? json(p.check->metrics.mismatches) : json(nullptr)}};
    detail.push_back(std::move(d));
  }
  return json{{"plans", r.plans.size()},
              {"usable", usable},
              {"checked", checked},
              {"passed", passed},
              {"failed", failed},
              {"transform", transform},
              {"errors", errors},
              {"selected", r.selected},
              {"reason", r.reason},
              {"ms", number_json(r.ms)},
              {"rules", std::string("fastest plan whose full output passed the comparator") +
                            (rules.verify ? "" : " (verification off: fastest timed plan)") +
                            (rules.allow_transforms ? "; FFT/Winograd plans selectable when their output is finite"
                                                    : "; FFT/Winograd plans checked and timed, not selectable")},
              {"plans_detail", std::move(detail)}};
}

int take_autotune(const AutotuneResult& ar, const AutotuneRules& rules, PeerResult* pr) {
  pr->autotune = autotune_json(ar, rules);
  if (ar.selected < 0) {
    pr->status = "failed";
    pr->reason = ar.reason;
    return -1;
  }
  const PlanResult& sel = ar.plans[static_cast<std::size_t>(ar.selected)];
  pr->status = "timed";
  pr->algo = sel.candidate.engine;
  pr->math = sel.candidate.knobs;
  pr->source = sel.candidate.source;
  pr->numerical_notes = sel.candidate.numerical_notes;
  pr->behavior_notes = sel.candidate.behavior_notes;
  pr->workspace_bytes = sel.candidate.workspace_bytes;
  pr->transform = sel.candidate.transform;
  pr->deterministic = sel.candidate.deterministic;
  pr->check = sel.check;
  return sel.index;
}

}  // namespace hiprim::verify

#ifndef HIPRIM_WITH_GPU
namespace hiprim::verify {
std::unique_ptr<ConvPeer> open_conv_peer(PeerKind, const std::string&, std::string* why, int) {
  if (why) *why = "this build has no GPU backend";
  return nullptr;
}
}  // namespace hiprim::verify
#endif
