#include "fuzz/campaign.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "core/error.hpp"
#include "fuzz/corpus.hpp"
#include "verify/runner.hpp"

namespace hiprim::fuzz {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Failed, errored and mistrusted cases are failures of the campaign: a mistrusted case checked
// nothing (its expected output is mostly zeros), so it must not pass silently. The generator keeps
// them rare (structural zeros: conv_gen.hpp; data zeros: the conv target reseeds).
bool is_failure(verify::Status s) {
  return s == verify::Status::failed || s == verify::Status::error || s == verify::Status::mistrusted;
}

// The statuses a run case can have (unsupported ones are discards), each listed in the report.
constexpr verify::Status kRunStatuses[] = {verify::Status::passed, verify::Status::failed, verify::Status::mistrusted,
                                           verify::Status::error};

}  // namespace

std::uint64_t case_key(std::uint64_t seed, std::uint64_t case_index) { return splitmix64(splitmix64(seed) ^ case_index); }

double CampaignResult::cases_per_second() const {
  const double fuzz_s = seconds - shrink_seconds;
  return fuzz_s > 0 ? static_cast<double>(cases) / fuzz_s : 0.0;
}

ShrinkResult shrink_failure(const FuzzTarget& t, const rc::Shrinkable<CaseSpecPtr>& failing, const verify::CaseRecord& rec,
                            int max_runs, double max_seconds, const std::function<void(int)>& on_run) {
  const auto t0 = Clock::now();
  ShrinkResult r{failing, rec, 0, 0};
  bool budget_left = true;
  while (budget_left) {
    bool improved = false;
    auto children = r.minimal.shrinks();
    while (auto child = children.next()) {
      if (r.runs >= max_runs || since(t0) >= max_seconds) {
        budget_left = false;
        break;
      }
      const CaseSpecPtr spec = child->value();
      verify::CaseRecord cr = t.run(*spec);
      ++r.runs;
      if (on_run) on_run(r.runs);
      if (cr.verdict.status == rec.verdict.status) {
        r.minimal = *child;
        r.record = std::move(cr);
        ++r.steps;
        improved = true;
        break;
      }
    }
    if (!improved) break;
  }
  return r;
}

CampaignResult run_campaign(const std::vector<FuzzTargetPtr>& targets, const CampaignOptions& o, const ProgressFn& progress,
                            double progress_interval_s) {
  if (targets.empty()) throw InputError("fuzz: no targets to fuzz");
  if (o.max_cases <= 0 && o.max_seconds <= 0) throw InputError("fuzz: give a case limit (--cases N) or a time limit (--time T)");
  if (o.shard.count < 1 || o.shard.index < 0 || o.shard.index >= o.shard.count)
    throw InputError("fuzz: shard " + o.shard.str() + " is not I/N with 0 <= I < N");
  const auto t0 = Clock::now();
  CampaignResult res;
  std::vector<int> failures(targets.size(), 0), consecutive_discards(targets.size(), 0);
  for (auto& t : targets) {
    TargetStats s;
    s.solver = t->solver();
    s.domain = t->domain();
    for (auto& c : t->reachable_classes()) s.coverage[c] = 0;
    s.skipped = t->skipped_classes();
    res.targets.push_back(std::move(s));
  }
  auto last_tick = Clock::now();
  std::string activity;
  auto report_progress = [&](bool final) {
    if (!progress) return;
    Progress p;
    p.cases = res.cases;
    p.discards = res.discards;
    p.failures = static_cast<std::int64_t>(res.failures.size());
    p.seconds = since(t0);
    const double fuzz_s = p.seconds - res.shrink_seconds;
    p.cases_per_second = fuzz_s > 0 ? static_cast<double>(res.cases) / fuzz_s : 0.0;
    for (auto& s : res.targets) {
      p.reachable += static_cast<std::int64_t>(s.coverage.size());
      for (auto& [cls, n] : s.coverage) p.covered += n > 0 ? 1 : 0;
    }
    p.activity = activity;
    p.final = final;
    progress(p);
    last_tick = Clock::now();
  };
  auto tick = [&] {
    if (since(last_tick) >= progress_interval_s) report_progress(false);
  };
  const auto T = static_cast<std::uint64_t>(targets.size());
  for (std::uint64_t i = 0;; ++i) {
    if (o.max_cases > 0 && i >= static_cast<std::uint64_t>(o.max_cases)) break;
    if (o.max_seconds > 0 && since(t0) >= o.max_seconds) break;
    if (std::all_of(res.targets.begin(), res.targets.end(), [](const TargetStats& s) { return s.retired; })) break;
    if (!o.shard.owns(i)) continue;
    res.last_case_index = i + 1;
    const std::uint64_t key = case_key(o.seed, i);
    const std::size_t ti = static_cast<std::size_t>(splitmix64(key ^ 0x7A26E7ULL) % T);
    TargetStats& st = res.targets[ti];
    if (st.retired) continue;
    const FuzzTarget& t = *targets[ti];
    rc::Shrinkable<CaseSpecPtr> sh = t.generate(rc::Random(key), 10 + static_cast<int>(key % 91));
    const CaseSpecPtr spec = sh.value();
    verify::CaseRecord rec = t.run(*spec);
    if (rec.verdict.status == verify::Status::unsupported) {
      ++res.discards;
      ++st.discards;
      if (++consecutive_discards[ti] >= o.max_consecutive_discards) {
        st.retired = true;
        st.retired_reason = std::to_string(consecutive_discards[ti]) + " consecutive cases refused; last: " + rec.verdict.reason;
      }
      tick();
      continue;
    }
    consecutive_discards[ti] = 0;
    ++res.cases;
    ++st.cases;
    ++st.statuses[std::string(verify::status_name(rec.verdict.status))];
    for (auto& c : spec->classes()) ++st.coverage[c];
    if (is_failure(rec.verdict.status)) {
      Failure f;
      f.target = st.solver;
      f.case_index = i;
      f.cases_to_catch = st.cases;
      f.found = rec;
      f.found_size = spec->size();
      const auto s0 = Clock::now();
      activity = "shrinking a failure of " + st.solver;
      ShrinkResult sr = shrink_failure(t, sh, rec, o.max_shrink_runs, o.max_shrink_seconds, [&](int) { tick(); });
      activity.clear();
      res.shrink_seconds += since(s0);
      res.shrink_runs += sr.runs;
      f.shrunk = sr.record;
      const CaseSpecPtr minimal = sr.minimal.value();
      f.shrunk_size = minimal->size();
      f.shrunk_data = minimal->data();
      f.failure_class = minimal->failure_class();
      f.shrink_steps = sr.steps;
      f.shrink_runs = sr.runs;
      if (!o.corpus_dir.empty()) f.corpus_file = save_to_corpus(o.corpus_dir, parse_repro_line(f.shrunk.repro));
      const std::string cls = f.failure_class;
      res.failures.push_back(std::move(f));
      if (!cls.empty()) {
        targets[ti]->exclude_failure_class(cls);
      } else if (++failures[ti] >= o.max_failures_per_target) {
        st.retired = true;
        st.retired_reason = std::to_string(failures[ti]) + " failures found (--max-failures)";
      }
    }
    tick();
  }
  res.seconds = since(t0);
  for (std::size_t i = 0; i < targets.size(); ++i) res.targets[i].skipped = targets[i]->skipped_classes();
  report_progress(true);
  return res;
}

nlohmann::json fuzz_report(const CampaignResult& r, const CampaignOptions& o, const std::string& op, const std::string& command,
                           const nlohmann::json& extra) {
  using nlohmann::json;
  std::vector<verify::CaseRecord> records;
  json cases = json::array();
  for (auto& f : r.failures) {
    json c = verify::case_json(f.shrunk);
    c["fuzz"] = {{"target", f.target},
                 {"case_index", f.case_index},
                 {"cases_to_catch", f.cases_to_catch},
                 {"found_problem", f.found.problem},
                 {"found_repro", f.found.repro},
                 {"found_reason", f.found.verdict.reason},
                 {"found_size", f.found_size},
                 {"shrunk_size", f.shrunk_size},
                 {"shrunk_data", f.shrunk_data},
                 {"failure_class", f.failure_class},
                 {"shrink_steps", f.shrink_steps},
                 {"shrink_runs", f.shrink_runs},
                 {"corpus_file", f.corpus_file}};
    cases.push_back(std::move(c));
    records.push_back(f.shrunk);
  }
  json targets = json::array();
  json statuses = json::object();
  for (verify::Status k : kRunStatuses) statuses[std::string(verify::status_name(k))] = std::int64_t{0};
  std::int64_t covered_all = 0, reachable_all = 0;
  for (auto& s : r.targets) {
    json cov = json::object();
    std::int64_t covered = 0;
    for (auto& [cls, n] : s.coverage) {
      cov[cls] = n;
      covered += n > 0 ? 1 : 0;
    }
    json skipped = json::array();
    for (auto& k : s.skipped) skipped.push_back({{"class", k.name}, {"reason", k.reason}});
    json st = json::object();
    for (verify::Status k : kRunStatuses) st[std::string(verify::status_name(k))] = std::int64_t{0};
    for (auto& [name, n] : s.statuses) {
      st[name] = n;
      statuses[name] = statuses.value(name, std::int64_t{0}) + n;
    }
    targets.push_back({{"solver", s.solver}, {"domain", s.domain}, {"cases", s.cases}, {"discards", s.discards},
                       {"statuses", st}, {"covered", covered}, {"reachable", static_cast<std::int64_t>(s.coverage.size())},
                       {"coverage", cov}, {"skipped_classes", skipped}, {"retired", s.retired}, {"retired_reason", s.retired_reason}});
    covered_all += covered;
    reachable_all += static_cast<std::int64_t>(s.coverage.size());
  }
  json campaign = {{"op", op},
                   {"seed", o.seed},
                   {"shard", {{"index", o.shard.index}, {"count", o.shard.count}}},
                   {"max_cases", o.max_cases},
                   {"max_seconds", o.max_seconds},
                   {"cases", r.cases},
                   {"discards", r.discards},
                   {"failures", static_cast<std::int64_t>(r.failures.size())},
                   {"last_case_index", r.last_case_index},
                   {"seconds", r.seconds},
                   {"shrink_seconds", r.shrink_seconds},
                   {"shrink_runs", r.shrink_runs},
                   {"cases_per_second", r.cases_per_second()},
                   {"statuses", statuses},
                   {"covered", covered_all},
                   {"reachable", reachable_all},
                   {"targets", targets}};
  for (auto& [k, v] : extra.items()) campaign[k] = v;
  if (auto errs = campaign_count_errors(campaign); !errs.empty()) throw RuntimeError("fuzz report: " + errs.front());
  return {{"schema", verify::kReportSchema},
          {"schema_version", verify::kReportSchemaVersion},
          {"kind", "fuzz"},
          {"created", verify::utc_timestamp()},
          {"machine", verify::machine_json(verify::gpu_json())},
          {"command", command},
          {"cases", cases},
          {"summary", verify::summary_json(records)},
          {"campaign", campaign}};
}

nlohmann::json merge_fuzz_campaigns(const std::vector<nlohmann::json>& campaigns) {
  using nlohmann::json;
  if (campaigns.empty()) throw InputError("merging fuzz campaigns: none given");
  for (const json& c : campaigns)
    if (!c.is_object()) throw InputError("merging fuzz campaigns: a \"campaign\" is not a JSON object");
  json out = campaigns.front();
  json shards = json::array();
  std::map<std::string, json> targets;  // by solver
  std::vector<std::string> order;
  const char* summed[] = {"cases", "discards", "failures", "shrink_runs"};
  for (const char* k : summed) out[k] = 0;
  out["seconds"] = 0.0;
  out["shrink_seconds"] = 0.0;
  out["cases_per_second"] = 0.0;
  out["statuses"] = json::object();
  try {
    for (const json& c : campaigns) {
      for (const char* k : summed) out[k] = out[k].get<std::int64_t>() + c.at(k).get<std::int64_t>();
      out["seconds"] = std::max(out["seconds"].get<double>(), c.at("seconds").get<double>());
      out["shrink_seconds"] = out["shrink_seconds"].get<double>() + c.at("shrink_seconds").get<double>();
      out["cases_per_second"] = out["cases_per_second"].get<double>() + c.at("cases_per_second").get<double>();
      for (auto& [st, n] : c.at("statuses").items()) out["statuses"][st] = out["statuses"].value(st, std::int64_t{0}) + n.get<std::int64_t>();
      // A campaign merged before (e.g. one --devices run) lists its shards; a single one has "shard".
      if (c.contains("shards"))
        for (const json& sh : c.at("shards")) shards.push_back(sh);
      else
        shards.push_back(c.at("shard"));
      if (c.contains("op") && out.contains("op") && c.at("op") != out.at("op")) {
        const std::string have = out.at("op").get<std::string>(), add = c.at("op").get<std::string>();
        if (("," + have + ",").find("," + add + ",") == std::string::npos) out["op"] = have + "," + add;
      }
      for (const json& t : c.at("targets")) {
        const std::string name = t.at("solver");
        if (!targets.count(name)) {
          targets[name] = t;
          order.push_back(name);
          continue;
        }
        json& m = targets[name];
        for (const char* k : {"cases", "discards"}) m[k] = m[k].get<std::int64_t>() + t.at(k).get<std::int64_t>();
        for (auto& [st, n] : t.at("statuses").items()) m["statuses"][st] = m["statuses"].value(st, std::int64_t{0}) + n.get<std::int64_t>();
        for (auto& [cls, n] : t.at("coverage").items()) m["coverage"][cls] = m["coverage"].value(cls, std::int64_t{0}) + n.get<std::int64_t>();
        m["retired"] = m["retired"].get<bool>() || t.at("retired").get<bool>();
      }
    }
  } catch (const json::exception& e) {
    throw InputError(std::string("merging fuzz campaigns: malformed campaign object (") + e.what() + ")");
  }
  json tl = json::array();
  std::int64_t covered_all = 0, reachable_all = 0;
  for (auto& name : order) {
    json& t = targets[name];
    std::int64_t covered = 0;
    for (auto& [cls, n] : t["coverage"].items()) covered += n.get<std::int64_t>() > 0 ? 1 : 0;
    t["covered"] = covered;
    t["reachable"] = static_cast<std::int64_t>(t["coverage"].size());
    covered_all += covered;
    reachable_all += static_cast<std::int64_t>(t["coverage"].size());
    tl.push_back(t);
  }
  out["targets"] = tl;
  out["covered"] = covered_all;
  out["reachable"] = reachable_all;
  out["shards"] = shards;
  out.erase("shard");
  out.erase("last_case_index");
  return out;
}

std::vector<std::string> campaign_count_errors(const nlohmann::json& c) {
  using nlohmann::json;
  std::vector<std::string> e;
  auto count = [](const json& o, const char* k) { return o.contains(k) && o[k].is_number_integer() ? o[k].get<std::int64_t>() : -1; };
  auto sum = [](const json& st) {
    std::int64_t n = 0;
    for (auto& [k, v] : st.items()) n += v.is_number_integer() ? v.get<std::int64_t>() : 0;
    return n;
  };
  if (!c.is_object() || !c.contains("statuses") || !c["statuses"].is_object() || !c.contains("targets") || !c["targets"].is_array())
    return {"campaign object without statuses or targets"};
  const json& st = c["statuses"];
  const std::int64_t cases = count(c, "cases"), discards = count(c, "discards"), failures = count(c, "failures");
  if (sum(st) != cases) e.push_back("statuses add up to " + std::to_string(sum(st)) + " but cases is " + std::to_string(cases));
  auto n_of = [&](const char* k) { return std::max<std::int64_t>(0, count(st, k)); };
  const std::int64_t failing = n_of("failed") + n_of("error") + n_of("mistrusted");
  if (failing != failures)
    e.push_back("failures is " + std::to_string(failures) + " but " + std::to_string(failing) + " cases failed, errored or were mistrusted");
  std::int64_t t_cases = 0, t_discards = 0;
  for (const json& t : c["targets"]) {
    const std::string name = t.value("solver", std::string("?"));
    if (t.contains("statuses") && sum(t["statuses"]) != count(t, "cases"))
      e.push_back("target " + name + ": statuses add up to " + std::to_string(sum(t["statuses"])) + " but cases is " +
                  std::to_string(count(t, "cases")));
    t_cases += count(t, "cases");
    t_discards += count(t, "discards");
  }
  if (t_cases != cases) e.push_back("the targets' cases add up to " + std::to_string(t_cases) + " but cases is " + std::to_string(cases));
  if (t_discards != discards)
    e.push_back("the targets' discards add up to " + std::to_string(t_discards) + " but discards is " + std::to_string(discards));
  return e;
}

std::string progress_line(const Progress& p, const Shard& shard) {
  char buf[256];
  const double discard_pct = p.cases + p.discards > 0 ? 100.0 * static_cast<double>(p.discards) / static_cast<double>(p.cases + p.discards) : 0.0;
  std::snprintf(buf, sizeof buf, "%lld cases (%.1f/s), %lld failure%s, coverage %lld/%lld, %.0f%% discarded, %.0fs", static_cast<long long>(p.cases),
                p.cases_per_second, static_cast<long long>(p.failures), p.failures == 1 ? "" : "s", static_cast<long long>(p.covered),
                static_cast<long long>(p.reachable), discard_pct, p.seconds);
  std::string s = buf;
  if (shard.count > 1) s += ", shard " + shard.str();
  if (!p.activity.empty()) s += " [" + p.activity + "]";
  return s;
}

}  // namespace hiprim::fuzz
