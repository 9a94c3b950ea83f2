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

double median_of(const json& c) {
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
  if (r.algo.empty()) return j;  // cuDNN never got to choose an algorithm
  j["algo"] = r.algo;
  j["math"] = r.math;
  j["workspace_bytes"] = r.workspace_bytes;
  j["transform"] = r.transform;
  j["deterministic"] = r.deterministic;
  j["find_ms"] = number_json(r.find_ms);
  put_rates(j, flops, bytes, r.timing);
  if (r.check) {
    json c = verdict_json(*r.check);
    c["algorithm_factor"] = r.algorithm_factor;
    c["bound_applies"] = !r.transform;
    j["check"] = std::move(c);
  } else {
    j["check"] = nullptr;
  }
  return j;
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
    const double m = median_of(c);
    if (c["status"] == "passed" && m > 0 && (!best || m < median_of(*best))) best = &c;
  }
  if (best) (*best)["best"] = true;
}

void attach_peer(json& cases, const json& peer) {
  for (json& c : cases) {
    c["peer"] = peer;
    const double mine = median_of(c), theirs = peer_median(c);
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

json performance_totals(const json& cases) {
  // Per problem: its group, count, best median and peer median.
  struct Problem {
    std::string dtype, layout, dir;
    std::int64_t count = 1;
    double best = -1, peer = -1, bytes = 0;
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
    if (c.value("best", false)) pr.best = median_of(c);
    if (pr.peer < 0) pr.peer = peer_median(c);
  }
  struct Total {
    std::int64_t problems = 0, layers = 0, hiprim_missing = 0, peer_missing = 0;
    double hiprim_ms = 0, peer_ms = 0, bytes = 0;
  };
  std::map<std::tuple<std::string, std::string, std::string>, Total> groups;
  for (auto& [key, pr] : problems)
    for (const std::string& dir : {pr.dir, std::string("all")}) {
      Total& t = groups[{pr.dtype, pr.layout, dir}];
      ++t.problems;
      t.layers += pr.count;
      t.bytes += static_cast<double>(pr.count) * pr.bytes;
      // A problem of count 0 (an extra outside the network) weighs nothing: it never makes a total partial.
      if (pr.best > 0) t.hiprim_ms += static_cast<double>(pr.count) * pr.best; else t.hiprim_missing += pr.count > 0;
      if (pr.peer > 0) t.peer_ms += static_cast<double>(pr.count) * pr.peer; else t.peer_missing += pr.count > 0;
    }
  json out = json::array();
  for (auto& [k, t] : groups) {
    const bool complete = t.hiprim_missing == 0 && t.peer_missing == 0 && t.hiprim_ms > 0;
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
                       {"bytes", t.bytes},
                       {"gbps", t.hiprim_missing == 0 && t.hiprim_ms > 0 ? json(t.bytes * 1e-9 / (t.hiprim_ms * 1e-3)) : json(nullptr)}});
  }
  return out;
}

json performance_report(const json& machine, const json& settings, const json& ceilings, const json& peer,
                        const json& cases, const std::string& command) {
  return json{{"schema", kReportSchema},
              {"schema_version", kReportSchemaVersion},
              {"kind", "performance"},
              {"created", utc_timestamp()},
              {"machine", machine},
              {"command", command},
              {"settings", settings},
              {"ceilings", ceilings},
              {"peer", peer},
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
  if (best && op)  // memory-bound: the rate that matters is bandwidth
    line += "hiprim " + (*best)["solver"].get<std::string>() + fmt(" %.4f ms", median_of(*best)) +
            fmt(" %.0f GB/s", (*best)["gbps"].get<double>()) +
            ((*best)["fraction_of_copy_ceiling"].is_number()
                 ? fmt(" (%.0f%% of copy)", 100 * (*best)["fraction_of_copy_ceiling"].get<double>()) : std::string());
  else if (best)
    line += "hiprim " + (*best)["solver"].get<std::string>() + fmt(" %.4f ms", median_of(*best)) +
            fmt(" %.1f TFLOP/s", (*best)["tflops"].get<double>());
  else
    line += "hiprim: no passed solver";
  const json* peer = member(first, "peer");
  if (peer && (*peer)["status"] == "timed") {
    line += "  | cuDNN " + (*peer)["algo"].get<std::string>() + fmt(" %.4f ms", peer_median(first));
    if (const json* ck = member(*peer, "check")) line += " [" + (*ck)["status"].get<std::string>() + "]";
    if (best && best->contains("speedup_vs_peer") && (*best)["speedup_vs_peer"].is_number())
      line += fmt("  | cuDNN/hiprim time %.2f", (*best)["speedup_vs_peer"].get<double>());
  } else if (peer) {
    line += "  | cuDNN " + (*peer)["status"].get<std::string>();
  }
  for (const std::string& b : bad) line += "\n   ! " + b;
  for (const json& c : cases)
    if (c.contains("peer_disagreement") && c["peer_disagreement"].is_string())
      line += "\n   ! disagreement: " + c["peer_disagreement"].get<std::string>();
  return line;
}

std::string totals_text(const json& totals) {
  std::string out;
  char b[256];
  std::snprintf(b, sizeof b, "%-5s %-6s %-16s %8s %7s %12s %9s %12s %10s\n", "dtype", "layout", "dir", "problems", "layers",
                "hiprim ms", "GB/s", "cuDNN ms", "cuDNN/hip");
  out += b;
  for (const json& t : totals) {
    auto ms = [&](const char* k, const char* missing) {
      if (t[missing] == t["problems"] || t[k].get<double>() == 0) return std::string("-");  // none timed (ops have no peer)
      std::string s = fmt("%.3f", t[k].get<double>());
      if (t[missing].get<std::int64_t>() > 0) s += "*";
      return s;
    };
    std::snprintf(b, sizeof b, "%-5s %-6s %-16s %8lld %7lld %12s %9s %12s %10s\n", t["dtype"].get<std::string>().c_str(),
                  t["layout"].get<std::string>().c_str(), t["dir"].get<std::string>().c_str(),
                  static_cast<long long>(t["problems"].get<std::int64_t>()),
                  static_cast<long long>(t["layers"].get<std::int64_t>()), ms("hiprim_ms", "hiprim_missing").c_str(),
                  t.contains("gbps") && t["gbps"].is_number() ? fmt("%.0f", t["gbps"].get<double>()).c_str() : "-",
                  ms("peer_ms", "peer_missing").c_str(),
                  t["speedup_vs_peer"].is_number() ? fmt("%.2f", t["speedup_vs_peer"].get<double>()).c_str() : "-");
    out += b;
  }
  out += "(ms: sum over layers of count x median; * = partial, some problems have no time)\n";
  return out;
}

}  // namespace hiprim::verify
