#include "report/report_diff.hpp"

#include <cmath>
#include <cstdio>
#include <map>

#include "core/error.hpp"
#include "bench/bench_report.hpp"
#include "verify/report.hpp"

namespace hiprim::verify {

using nlohmann::json;

double parse_slowdown(const std::string& text) {
  std::string t = text;
  if (!t.empty() && t.back() == '%') t.pop_back();
  std::size_t used = 0;
  double v = -1;
  try {
    v = std::stod(t, &used);
  } catch (...) {
    used = 0;
  }
  if (t.empty() || used != t.size() || !std::isfinite(v) || v < 0)
    throw InputError("--max-slowdown '" + text + "': expected a non-negative percentage such as 5% or 2.5");
  return v / 100.0;
}

namespace {

void require_valid(const json& r, const std::string& name) {
  auto errs = check_report_schema(r);
  if (errs.empty()) return;
  std::string msg = name + " is not a valid hiprim report (" + std::to_string(errs.size()) + " schema violations; first: " + errs.front() + ")";
  throw InputError(msg);
}

// Statuses from best to worst, for keys that occur more than once.
int badness(const std::string& s) {
  if (s == "passed") return 0;
  if (s == "unsupported") return 1;
  if (s == "mistrusted") return 2;
  if (s == "failed") return 3;
  return 4;  // error, or anything unknown
}

struct Entry {
  std::string status, reason, repro;
  double median = -1;  // the slowest median among the key's cases; -1: untimed
};

std::map<std::pair<std::string, std::string>, Entry> index_cases(const json& r) {
  std::map<std::pair<std::string, std::string>, Entry> out;
  for (const json& c : r["cases"]) {
    auto key = std::make_pair(c["problem"].get<std::string>(), c["solver"].get<std::string>());
    const std::string st = c["status"];
    double m = -1;
    if (auto t = c.find("timing"); t != c.end() && t->is_object()) m = number_from_json((*t)["median_ms"]);
    auto [it, fresh] = out.try_emplace(key, Entry{st, c.value("reason", ""), c.value("repro", ""), m});
    if (fresh) continue;
    Entry& e = it->second;
    if (badness(st) > badness(e.status)) e = Entry{st, c.value("reason", ""), c.value("repro", ""), std::max(e.median, m)};
    else e.median = std::max(e.median, m);
  }
  return out;
}

std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * v);
  return b;
}

std::string ms(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f ms", v);
  return b;
}

}  // namespace

DiffResult diff_reports(const json& old_r, const json& new_r, double max_slowdown) {
  require_valid(old_r, "OLD");
  require_valid(new_r, "NEW");
  if (old_r["kind"] != new_r["kind"])
    throw InputError("OLD is a " + old_r["kind"].get<std::string>() + " report but NEW is a " + new_r["kind"].get<std::string>() + " report");
  const auto before = index_cases(old_r), after = index_cases(new_r);
  DiffResult d;
  for (const auto& [key, o] : before) {
    const std::string what = key.first + " [" + key.second + "]";
    auto it = after.find(key);
    if (it == after.end()) {
      if (o.status == "passed") d.regressions.push_back("passed -> missing: " + what + " (the case is not in NEW)");
      continue;
    }
    const Entry& n = it->second;
    ++d.compared;
    if (o.status == "passed" && n.status != "passed")
      d.regressions.push_back("passed -> " + n.status + ": " + what + ": " + n.reason + "\n    repro: " + n.repro);
    else if (o.status != "passed" && n.status == "passed")
      d.notes.push_back(o.status + " -> passed: " + what);
    if (o.median > 0 && n.median > 0) {
      ++d.timed;
      const double change = n.median / o.median - 1;
      if (change > max_slowdown)
        d.regressions.push_back("slower " + pct(change) + " (" + ms(o.median) + " -> " + ms(n.median) + ", limit " +
                                pct(max_slowdown) + "): " + what);
      else if (change < -max_slowdown)
        d.notes.push_back("faster " + pct(change) + " (" + ms(o.median) + " -> " + ms(n.median) + "): " + what);
    }
  }
  for (const auto& [key, n] : after)
    if (!before.count(key)) d.notes.push_back("new case (" + n.status + "): " + key.first + " [" + key.second + "]");
  return d;
}

json merge_reports(const std::vector<json>& reports, const std::vector<std::string>& names, const std::string& command) {
  if (reports.empty()) throw InputError("report merge: no reports given");
  if (names.size() != reports.size()) throw InputError("report merge: " + std::to_string(names.size()) + " names for " + std::to_string(reports.size()) + " reports");
  for (std::size_t i = 0; i < reports.size(); ++i) require_valid(reports[i], names[i]);
  const std::string kind = reports[0]["kind"];
  json out = reports[0];
  json cases = json::array(), sources = json::array();
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const json& r = reports[i];
    if (r["kind"] != kind)
      throw InputError(names[i] + " is a " + r["kind"].get<std::string>() + " report but " + names[0] + " is a " + kind +
                       " report: merge needs one kind");
    for (const json& c : r["cases"]) cases.push_back(c);
    const json& gpu = r["machine"]["gpu"];
    json src{{"name", names[i]},
             {"created", r["created"]},
             {"command", r["command"]},
             {"cases", r["cases"].size()},
             {"host", r["machine"]["host"]},
             {"gpu", gpu.is_object() ? gpu["name"] : json(nullptr)}};
    if (r.contains("settings") && r["settings"].is_object())  // a bench stopped by its time limit says so
      for (const char* k : {"problems_planned", "problems_run"})
        if (r["settings"].contains(k)) src[k] = r["settings"][k];
    sources.push_back(std::move(src));
  }
  if (kind == "performance") {  // one best case per problem over all sources
    std::map<std::string, json> by_problem;
    for (const json& c : cases) by_problem[c["problem"].get<std::string>()].push_back(c);
    json remarked = json::array();
    std::map<std::string, std::size_t> seen;
    for (auto& [p, cs] : by_problem) mark_best(cs);
    for (const json& c : cases) {  // keep the sources' order
      const std::string p = c["problem"];
      remarked.push_back(by_problem[p][seen[p]++]);
    }
    cases = std::move(remarked);
    out["totals"] = performance_totals(cases);
    // Each source measured the GEMM ceilings of its own dtypes: keep every dtype (the first source wins).
    for (const json& r : reports)
      if (r["ceilings"].is_object() && r["ceilings"]["gemm"].is_object())
        for (auto& [dt, g] : r["ceilings"]["gemm"].items())
          if (!out["ceilings"]["gemm"].contains(dt)) out["ceilings"]["gemm"][dt] = g;
  }
  out["created"] = utc_timestamp();
  out["command"] = command;
  out["cases"] = cases;
  out["summary"] = summary_from_cases(cases);
  out["summary"]["not_run_no_device"] = count_not_run_no_device(cases);
  out["merged_from"] = std::move(sources);
  return out;
}

}  // namespace hiprim::verify
