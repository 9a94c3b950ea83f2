#include "bench/bench_report.hpp"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "core/error.hpp"
#include "core/op_problem.hpp"

namespace hiprim::verify {

using nlohmann::json;

namespace {

// a / b as a JSON number, null when b is not positive (nothing measured).
json ratio_or_null(double a, double b) { return b > 0 && a >= 0 ? json(a / b) : json(nullptr); }

// The rates of a timed run: TFLOP/s and GB/s of the problem's counts over the median.
void put_rates(json& j, double flops, double bytes, const std::optional<TimingStats>& t) {
  j["timing"] = t ? timing_json(*t) : json(nullptr);
  const double s = t ? t->median_ms * 1e-3 : 0;
  j["tflops"] = ratio_or_null(flops * 1e-12, s);
  j["gbps"] = ratio_or_null(bytes * 1e-9, s);
}

json verdict_json(const Verdict& v) {
  return json{{"status", status_name(v.status)},
              {"reason", v.reason},
              {"worst_ratio", number_json(v.metrics.worst_ratio)},
              {"max_rel_error", number_json(v.metrics.max_rel_error)},
              {"rms_rel_error", number_json(v.metrics.rms_rel_error)},
              {"max_ulp", v.metrics.max_ulp},
              {"checked", v.metrics.checked},
              {"mismatches", v.metrics.mismatches}};
}

const json* member(const json& j, const char* k) {
  auto it = j.find(k);
  return it == j.end() || it->is_null() ? nullptr : &*it;
}

double case_median(const json& c) {
  const json* t = member(c, "timing");
  return t ? number_from_json((*t)["median_ms"]) : -1;
}

double peer_median(const json& c) {
  const json* p = member(c, "peer");
  if (!p) return -1;
  const json* t = member(*p, "timing");
  return t ? number_from_json((*t)["median_ms"]) : -1;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

}  // namespace

json peer_result_json(const PeerResult& r, double flops, double bytes) {
  json j{{"name", r.name}, {"status", r.status}, {"reason", r.reason}};
  if (!r.autotune.is_null()) j["autotune"] = r.autotune;
  if (r.algo.empty()) return j;  // the peer never got to choose a candidate
  j["algo"] = r.algo;  // the engine (kept under the names version 1 readers know)
  j["math"] = r.math;  // its knobs
  j["engine"] = r.algo;
  j["knobs"] = r.math;
  j["source"] = r.source;
  j["numerical_notes"] = r.numerical_notes;
  j["behavior_notes"] = r.behavior_notes;
  j["workspace_bytes"] = r.workspace_bytes;
  j["transform"] = r.transform;
  j["deterministic"] = r.deterministic;
  j["setup_ms"] = number_json(r.setup_ms);
  put_rates(j, flops, bytes, r.timing);
  j["host_ms_per_call"] = r.timing && r.timing->host_ms_per_call ? number_json(*r.timing->host_ms_per_call) : json(nullptr);
  if (r.check) {
    json c = verdict_json(*r.check);
    c["algorithm_factor"] = r.algorithm_factor;
    c["bound_applies"] = !r.transform;
    c["tolerance"] = r.tolerance;
    c["bounded_passes"] = r.bounded_passes;
    j["check"] = std::move(c);
  } else {
    j["check"] = nullptr;
  }
  return j;
}

json timed_case_json(CaseRecord rec, PerfCaseInput in, const std::vector<ReplayTiming>& timing,
                     const std::string& timing_error) {
  in.timing_error = timing_error;
  if (!timing.empty()) {
    in.timing = combine_repeats(timing);
  } else if (!timing_error.empty() && rec.verdict.status == Status::passed) {
    rec.verdict.status = Status::error;
    rec.verdict.reason = "verified (" + rec.verdict.reason + "), but timing failed: " + timing_error;
  }
  return perf_case_json(rec, in);
}

json perf_case_json(const CaseRecord& rec, const PerfCaseInput& in) {
  json j = case_json(rec);
  j["time_ms"] = in.timing ? number_json(in.timing->median_ms) : json(0);
  j["verify"] = verify_mode_name(in.verify);
  j["count"] = in.count;
  j["flops"] = number_json(in.flops);
  j["bytes"] = number_json(in.bytes);
  j["intensity"] = ratio_or_null(in.flops, in.bytes);
  put_rates(j, in.flops, in.bytes, in.timing);
  const double tflops = j["tflops"].is_number() ? j["tflops"].get<double>() : -1;
  const double gbps = j["gbps"].is_number() ? j["gbps"].get<double>() : -1;
  j["fraction_of_gemm_ceiling"] = ratio_or_null(tflops, in.gemm_ceiling_tflops);
  j["fraction_of_copy_ceiling"] = ratio_or_null(gbps, in.copy_ceiling_gbps);
  j["host_ms_per_call"] = in.timing && in.timing->host_ms_per_call ? number_json(*in.timing->host_ms_per_call) : json(nullptr);
  const double r = in.fill_range, L = static_cast<double>(in.reduction_length);
  j["exact_fill"] = in.fill_range > 0 ? json{{"r", in.fill_range}, {"L", in.reduction_length}, {"max_partial_sum", number_json(L * r * r + r)}}
                                      : json(nullptr);
  j["timing_error"] = in.timing_error.empty() ? json(nullptr) : json(in.timing_error);
  j["best"] = false;
  j["peer"] = nullptr;
  j["speedup_vs_peer"] = nullptr;
  j["peer_disagreement"] = nullptr;
  return j;
}

void mark_best(json& cases) {
  json* best = nullptr;
  for (json& c : cases) {
    c["best"] = false;
    const double m = case_median(c);
    if (c["status"] == "passed" && m > 0 && (!best || m < case_median(*best))) best = &c;
  }
  if (best) (*best)["best"] = true;
}

void attach_peer(json& cases, const json& peer) {
  for (json& c : cases) {
    c["peer"] = peer;
    const double mine = case_median(c), theirs = peer_median(c);
    c["speedup_vs_peer"] = mine > 0 && theirs > 0 ? json(theirs / mine) : json(nullptr);
    c["peer_disagreement"] = nullptr;
    const json* check = peer.is_object() ? member(peer, "check") : nullptr;
    if (!check || !(*check)["bound_applies"].get<bool>() || c["verify"] == "none") continue;
    const std::string ours = c["status"], theirs_status = (*check)["status"];
    const bool ours_judged = ours == "passed" || ours == "failed" || ours == "mistrusted";
    const bool theirs_judged = theirs_status == "passed" || theirs_status == "failed" || theirs_status == "mistrusted";
    if (!ours_judged || !theirs_judged || (ours == "passed") == (theirs_status == "passed")) continue;
    c["peer_disagreement"] = "hiprim " + c["solver"].get<std::string>() + ": " + ours + " (worst err/bound " +
                             c["metrics"]["worst_ratio"].dump() + "); cuDNN " + peer["algo"].get<std::string>() + ": " +
                             theirs_status + " (worst err/bound " + (*check)["worst_ratio"].dump() +
                             "); both against the CPU reference in double";
  }
}

BenchGroup bench_group(const std::string& problem) {
  if (first_token(problem) == "conv") {
    const ConvProblem p = parse_conv_problem(problem);
    return {std::string(dtype_name(p.dtype)), p.layout_name(), std::string(conv_dir_name(p.dir)), false};
  }
  const OpProblemPtr p = parse_op_problem(problem);  // validates the string
  std::istringstream is(p->str());
  std::vector<std::string> toks;
  for (std::string w; is >> w;) toks.push_back(w);
  BenchGroup g{"-", "-", toks.size() > 1 ? toks[0] + " " + toks[1] : toks[0], true};
  for (const auto& t : toks) {
    if (g.dtype == "-" && parse_dtype(t)) g.dtype = t;
    if (g.layout == "-" && (t == "nchw" || t == "nhwc" || t == "ncdhw" || t == "ndhwc")) g.layout = t;
  }
  return g;
}

json summary_from_cases(const json& cases) {
  json s{{"total", 0}, {"passed", 0}, {"failed", 0}, {"mistrusted", 0}, {"unsupported", 0}, {"error", 0}};
  for (const json& c : cases) {
    s["total"] = s["total"].get<std::int64_t>() + 1;
    const std::string st = c.value("status", "");
    if (!s.contains(st) || st == "total") throw InputError("case with unknown status '" + st + "'");
    s[st] = s[st].get<std::int64_t>() + 1;
  }
  return s;
}

namespace {

// The per-repeat medians of a timing object: its repeats' medians, or [median] without repeats.
std::vector<double> repeat_medians(const json* timing) {
  std::vector<double> out;
  if (!timing) return out;
  if (const json* reps = member(*timing, "repeats"))
    for (const json& r : *reps) out.push_back(number_from_json(r["median_ms"]));
  if (out.empty()) out.push_back(number_from_json((*timing)["median_ms"]));
  return out;
}

double host_of(const json& owner) {
  const json* h = member(owner, "host_ms_per_call");
  return h ? number_from_json(*h) : -1;
}

}  // namespace

json performance_totals(const json& cases) {
  // Per problem: its group, count, best median and peer median, per repeat too, and host overheads.
  struct Problem {
    std::string dtype, layout, dir;
    std::int64_t count = 1;
    double best = -1, peer = -1, bytes = 0, best_host = -1, peer_host = -1;
    std::vector<double> best_reps, peer_reps;
  };
  std::map<std::string, Problem> problems;
  for (const json& c : cases) {
    const std::string key = c.at("problem");
    auto [it, fresh] = problems.try_emplace(key);
    Problem& pr = it->second;
    if (fresh) {
      const BenchGroup g = bench_group(key);
      pr.dtype = g.dtype;
      pr.layout = g.layout;
      pr.dir = g.dir;
    }
    pr.count = c.value("count", std::int64_t{1});
    if (c.contains("bytes")) pr.bytes = number_from_json(c["bytes"]);
    if (c.value("best", false)) {
      pr.best = case_median(c);
      pr.best_reps = repeat_medians(member(c, "timing"));
      pr.best_host = host_of(c);
    }
    if (pr.peer < 0) {
      pr.peer = peer_median(c);
      if (const json* p = member(c, "peer"); p && pr.peer > 0) {
        pr.peer_reps = repeat_medians(member(*p, "timing"));
        pr.peer_host = host_of(*p);
      }
    }
  }
  struct Total {
    std::int64_t problems = 0, layers = 0, hiprim_missing = 0, peer_missing = 0;
    double hiprim_ms = 0, peer_ms = 0, bytes = 0, hiprim_host = 0, peer_host = 0;
    bool hiprim_host_missing = false, peer_host_missing = false;
    std::vector<double> hiprim_reps, peer_reps;
    std::vector<bool> hiprim_reps_missing, peer_reps_missing;
    std::size_t repeats = 0;
  };
  std::size_t most = 1;
  for (auto& [key, pr] : problems) most = std::max({most, pr.best_reps.size(), pr.peer_reps.size()});
  std::map<std::tuple<std::string, std::string, std::string>, Total> groups;
  auto add_reps = [&](std::vector<double>& sum, std::vector<bool>& missing, const std::vector<double>& reps, std::int64_t count) {
    sum.resize(most, 0.0);
    missing.resize(most, false);
    for (std::size_t r = 0; r < most; ++r) {
      if (r < reps.size() && reps[r] > 0) sum[r] += static_cast<double>(count) * reps[r];
      else if (count > 0) missing[r] = true;
    }
  };
  for (auto& [key, pr] : problems)
    for (const std::string& dir : {pr.dir, std::string("all")}) {
      Total& t = groups[{pr.dtype, pr.layout, dir}];
      ++t.problems;
      t.layers += pr.count;
      t.bytes += static_cast<double>(pr.count) * pr.bytes;
      // A problem of count 0 (an extra outside the network) weighs nothing: it never makes a total partial.
      if (pr.best > 0) t.hiprim_ms += static_cast<double>(pr.count) * pr.best; else t.hiprim_missing += pr.count > 0;
      if (pr.peer > 0) t.peer_ms += static_cast<double>(pr.count) * pr.peer; else t.peer_missing += pr.count > 0;
      add_reps(t.hiprim_reps, t.hiprim_reps_missing, pr.best > 0 ? pr.best_reps : std::vector<double>{}, pr.count);
      add_reps(t.peer_reps, t.peer_reps_missing, pr.peer > 0 ? pr.peer_reps : std::vector<double>{}, pr.count);
      t.repeats = std::max({t.repeats, pr.best_reps.size(), pr.peer_reps.size()});
      if (pr.best_host >= 0) t.hiprim_host += static_cast<double>(pr.count) * pr.best_host; else t.hiprim_host_missing |= pr.count > 0;
      if (pr.peer_host >= 0) t.peer_host += static_cast<double>(pr.count) * pr.peer_host; else t.peer_host_missing |= pr.count > 0;
    }
  json out = json::array();
  for (auto& [k, t] : groups) {
    const bool complete = t.hiprim_missing == 0 && t.peer_missing == 0 && t.hiprim_ms > 0;
    json hr = json::array(), pr = json::array(), sr = json::array();
    for (std::size_t r = 0; r < std::max<std::size_t>(t.repeats, 1); ++r) {
      const bool h_ok = !t.hiprim_reps_missing[r] && t.hiprim_reps[r] > 0, p_ok = !t.peer_reps_missing[r] && t.peer_reps[r] > 0;
      hr.push_back(h_ok ? json(t.hiprim_reps[r]) : json(nullptr));
      pr.push_back(p_ok ? json(t.peer_reps[r]) : json(nullptr));
      sr.push_back(h_ok && p_ok ? json(t.peer_reps[r] / t.hiprim_reps[r]) : json(nullptr));
    }
    out.push_back(json{{"dtype", std::get<0>(k)},
                       {"layout", std::get<1>(k)},
                       {"dir", std::get<2>(k)},
                       {"problems", t.problems},
                       {"layers", t.layers},
                       {"hiprim_ms", t.hiprim_ms},
                       {"hiprim_missing", t.hiprim_missing},
                       {"peer_ms", t.peer_ms},
                       {"peer_missing", t.peer_missing},
                       {"speedup_vs_peer", complete ? json(t.peer_ms / t.hiprim_ms) : json(nullptr)},
                       {"repeats", std::max<std::size_t>(t.repeats, 1)},
                       {"hiprim_ms_repeats", hr},
                       {"peer_ms_repeats", pr},
                       {"speedup_vs_peer_repeats", sr},
                       {"hiprim_host_ms", t.hiprim_host_missing ? json(nullptr) : json(t.hiprim_host)},
                       {"peer_host_ms", t.peer_host_missing || t.peer_missing > 0 ? json(nullptr) : json(t.peer_host)},
                       {"bytes", t.bytes},
                       {"gbps", t.hiprim_missing == 0 && t.hiprim_ms > 0 ? json(t.bytes * 1e-9 / (t.hiprim_ms * 1e-3)) : json(nullptr)}});
  }
  return out;
}

json performance_report(const json& machine, const json& settings, const json& ceilings, const json& peer,
                        const json& cases, const std::string& command, const json& clocks) {
  return json{{"schema", kReportSchema},
              {"schema_version", kReportSchemaVersion},
              {"kind", "performance"},
              {"created", utc_timestamp()},
              {"machine", machine},
              {"command", command},
              {"settings", settings},
              {"ceilings", ceilings},
              {"peer", peer},
              {"clocks", clocks},
              {"cases", cases},
              {"totals", performance_totals(cases)},
              {"summary", summary_from_cases(cases)}};
}

std::string bench_problem_line(const json& cases) {
  if (cases.empty()) return "";
  const json& first = cases.front();
  std::string line = first["problem"].get<std::string>() + "\n   ";
  const json* best = nullptr;
  std::set<std::string> bad;
  for (const json& c : cases) {
    if (c.value("best", false)) best = &c;
    const std::string st = c["status"];
    if (st == "failed" || st == "error" || st == "mistrusted") bad.insert(c["solver"].get<std::string>() + " " + st);
  }
  const bool op = first_token(first["problem"].get<std::string>()) != "conv";
  auto host = [](const json& owner) {
    const double h = host_of(owner);
    return h >= 0 ? fmt(" (host %.1f us/call)", h * 1e3) : std::string();
  };
  if (best && op)  // memory-bound: the rate that matters is bandwidth
    line += "hiprim " + (*best)["solver"].get<std::string>() + fmt(" %.4f ms", case_median(*best)) +
            fmt(" %.0f GB/s", (*best)["gbps"].get<double>()) +
            ((*best)["fraction_of_copy_ceiling"].is_number()
                 ? fmt(" (%.0f%% of copy)", 100 * (*best)["fraction_of_copy_ceiling"].get<double>()) : std::string()) + host(*best);
  else if (best)
    line += "hiprim " + (*best)["solver"].get<std::string>() + fmt(" %.4f ms", case_median(*best)) +
            fmt(" %.1f TFLOP/s", (*best)["tflops"].get<double>()) + host(*best);
  else
    line += "hiprim: no passed solver";
  const json* peer = member(first, "peer");
  if (peer && (*peer)["status"] == "timed") {
    line += "  | " + (*peer)["name"].get<std::string>() + " " + (*peer)["algo"].get<std::string>() +
            fmt(" %.4f ms", peer_median(first)) + host(*peer);
    if (const json* ck = member(*peer, "check")) line += " [" + (*ck)["status"].get<std::string>() + "]";
    if (best && best->contains("speedup_vs_peer") && (*best)["speedup_vs_peer"].is_number())
      line += fmt("  | peer/hiprim time %.2f", (*best)["speedup_vs_peer"].get<double>());
  } else if (peer) {
    line += "  | " + peer->value("name", std::string("peer")) + " " + (*peer)["status"].get<std::string>();
    if ((*peer)["status"] != "unavailable" && !peer->value("reason", std::string()).empty())
      line += " (" + (*peer)["reason"].get<std::string>() + ")";
  }
  for (const std::string& b : bad) line += "\n   ! " + b;
  for (const json& c : cases) {
    if (c.contains("peer_disagreement") && c["peer_disagreement"].is_string())
      line += "\n   ! disagreement: " + c["peer_disagreement"].get<std::string>();
    if (c.value("status", "") == "error") line += "\n   ! " + c["solver"].get<std::string>() + ": " + c.value("reason", "");
  }
  return line;
}

std::string bench_repeat_line(const json& cases, int repeat) {
  if (cases.empty()) return "";
  const json& first = cases.front();
  std::string line = "repeat " + std::to_string(repeat) + ": " + first["problem"].get<std::string>() + ":";
  for (const json& c : cases) {
    const json* t = member(c, "timing");
    const std::vector<double> reps = repeat_medians(t);
    if (t && static_cast<int>(reps.size()) >= repeat) line.append(" ").append(c["solver"].get<std::string>()).append(fmt(" %.4f", reps[repeat - 1]));
  }
  if (const json* p = member(first, "peer"))
    if (const json* t = member(*p, "timing")) {
      const std::vector<double> reps = repeat_medians(t);
      if (static_cast<int>(reps.size()) >= repeat) line.append(" | peer").append(fmt(" %.4f", reps[repeat - 1]));
    }
  return line + " ms";
}

std::string totals_text(const json& totals) {
  std::string out;
  char b[512];
  std::snprintf(b, sizeof b, "%-5s %-6s %-16s %5s %6s %11s %9s %11s %9s %9s  %s\n", "dtype", "layout", "dir", "probs",
                "layers", "hiprim ms", "host ms", "peer ms", "host ms", "peer/hip", "per repeat: hiprim ms (peer/hip)");
  out += b;
  auto num = [](const json& v, const char* f) { return v.is_number() ? fmt(f, v.get<double>()) : std::string("-"); };
  for (const json& t : totals) {
    auto ms = [&](const char* k, const char* missing) {
      if (t[missing] == t["problems"] || t[k].get<double>() == 0) return std::string("-");  // none timed (ops have no peer)
      std::string s = fmt("%.3f", t[k].get<double>());
      if (t[missing].get<std::int64_t>() > 0) s += "*";
      return s;
    };
    std::string reps;
    if (t.contains("hiprim_ms_repeats"))
      for (std::size_t r = 0; r < t["hiprim_ms_repeats"].size(); ++r) {
        reps += (r ? "  " : "") + num(t["hiprim_ms_repeats"][r], "%.3f");
        if (t["speedup_vs_peer_repeats"][r].is_number()) reps += " (" + num(t["speedup_vs_peer_repeats"][r], "%.2f") + ")";
      }
    std::snprintf(b, sizeof b, "%-5s %-6s %-16s %5lld %6lld %11s %9s %11s %9s %9s  %s\n", t["dtype"].get<std::string>().c_str(),
                  t["layout"].get<std::string>().c_str(), t["dir"].get<std::string>().c_str(),
                  static_cast<long long>(t["problems"].get<std::int64_t>()),
                  static_cast<long long>(t["layers"].get<std::int64_t>()), ms("hiprim_ms", "hiprim_missing").c_str(),
                  num(t.value("hiprim_host_ms", json()), "%.3f").c_str(), ms("peer_ms", "peer_missing").c_str(),
                  num(t.value("peer_host_ms", json()), "%.3f").c_str(), num(t["speedup_vs_peer"], "%.2f").c_str(), reps.c_str());
    out += b;
  }
  out += "(ms: sum over layers of count x the median of the repeats' medians (GPU time by graph replay); host ms: "
         "count x host overhead per call; * = partial, some problems have no time)\n";
  return out;
}

}  // namespace hiprim::verify
