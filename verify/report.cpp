#include "verify/report.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <cmath>
#include <ctime>
#include <fstream>
#include <limits>
#include <regex>
#include <thread>

#include "core/error.hpp"
#ifdef HIPRIM_WITH_GPU
#include "gpu/runtime/nvml.hpp"
#endif

namespace hiprim::verify {

using nlohmann::json;

json number_json(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

double number_from_json(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  throw InputError("expected a number or \"inf\"/\"-inf\"/\"nan\", got " + j.dump());
}

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string join_command(int argc, const char* const* argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                                         "_-./=:,+@%") == std::string::npos;
    if (!plain) {
      if (a.find_first_of("\"$`\\!") == std::string::npos) {
        a = "\"" + a + "\"";
      } else {  // single quotes; an embedded ' becomes '\''
        std::string q = "'";
        for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
        a = q + "'";
      }
    }
    out += (i ? " " : "") + a;
  }
  return out;
}

std::string repro_command(const std::string& problem, const std::string& solver, std::uint64_t seed) {
  return "hiprim repro \"" + problem + "\" --solver " + solver + " --seed " + std::to_string(seed);
}

json machine_json(const json& gpu) {
  char host[256] = "unknown";
  if (gethostname(host, sizeof host) != 0) host[0] = '\0';
  host[sizeof host - 1] = '\0';
  std::string os = "unknown";
  struct utsname u{};
  if (uname(&u) == 0) os = std::string(u.sysname) + " " + u.release + " " + u.machine;
#if defined(__clang__)
  const std::string compiler = std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  const std::string compiler = std::string("g++ ") + __VERSION__;
#else
  const std::string compiler = "unknown";
#endif
  const BuildProvenance prov = build_provenance();
  json g = gpu.is_object() ? gpu : json(nullptr);
  if (g.is_object()) {
    if (!g.contains("cuda_driver_api_version")) {  // gpu_json() carries cudaDriverGetVersion as driver_version
      const json d = g.contains("driver_version") ? g["driver_version"] : json("unknown");
      g["cuda_driver_api_version"] = d.is_string() ? d : json(d.dump());
    }
#ifdef HIPRIM_WITH_GPU
    g["driver_version"] = gpu::nvml_driver_version_or_reason();
#else
    g["driver_version"] = "unknown: this build has no GPU backend (no NVML)";
#endif
  }
  return json{{"host", host},
              {"os", os},
              {"compiler", compiler},
              {"cpu_cores", std::thread::hardware_concurrency()},
              {"git_commit", prov.commit},
              {"git_describe", prov.describe},
              {"git_dirty", prov.dirty},
              {"git_diff_sha256", prov.diff_sha256},
              {"provenance", "recorded at build time (cmake/provenance.cmake)" + (prov.note.empty() ? std::string() : ": " + prov.note)},
              {"gpu", g}};
}

json metrics_json(const Metrics& m) {
  json worst = json::array();
  for (const Element& e : m.worst)
    worst.push_back(json{{"offset", e.offset},
                         {"index", e.index},
                         {"got", number_json(e.got)},
                         {"expected", number_json(e.expected)},
                         {"error", number_json(e.error)},
                         {"bound", number_json(e.bound)}});
  return json{{"checked", m.checked},
              {"mismatches", m.mismatches},
              {"nonfinite_mismatches", m.nonfinite_mismatches},
              {"max_abs_error", number_json(m.max_abs_error)},
              {"max_rel_error", number_json(m.max_rel_error)},
              {"rms_rel_error", number_json(m.rms_rel_error)},
              {"worst_ratio", number_json(m.worst_ratio)},
              {"max_ulp", m.max_ulp},
              {"zero_fraction", number_json(m.zero_fraction)},
              {"worst", worst}};
}

json case_json(const CaseRecord& c) {
  return json{{"problem", c.problem},
              {"solver", c.solver},
              {"status", status_name(c.verdict.status)},
              {"reason", c.verdict.reason},
              {"seed", c.seed},
              {"fill", fill_tier_name(c.fill)},
              {"tolerance", c.tolerance},
              {"metrics", metrics_json(c.verdict.metrics)},
              {"time_ms", number_json(c.time_ms)},
              {"deterministic", c.deterministic ? json(*c.deterministic) : json(nullptr)},
              {"repro", c.repro}};
}

namespace {
constexpr Status kAllStatuses[] = {Status::passed, Status::failed, Status::mistrusted, Status::unsupported, Status::error};
}

bool not_run_no_device(Status status, std::string_view reason) {
  return status == Status::unsupported && (reason.starts_with("no GPU device: ") || reason == "built without a GPU backend");
}

bool not_run_no_device(const CaseRecord& c) { return not_run_no_device(c.verdict.status, c.verdict.reason); }

std::int64_t count_not_run_no_device(const json& cases) {
  std::int64_t n = 0;
  for (const json& c : cases) {
    if (!c.is_object() || !c.contains("status") || !c["status"].is_string() || !c.contains("reason") || !c["reason"].is_string()) continue;
    const auto st = parse_status(c["status"].get_ref<const std::string&>());
    n += st && not_run_no_device(*st, c["reason"].get_ref<const std::string&>()) ? 1 : 0;
  }
  return n;
}

json summary_json(const std::vector<CaseRecord>& cases) {
  json s{{"total", cases.size()}};
  for (Status st : kAllStatuses) s[std::string(status_name(st))] = 0;
  std::int64_t not_run = 0;
  for (const CaseRecord& c : cases) {
    s[std::string(status_name(c.verdict.status))] = s[std::string(status_name(c.verdict.status))].get<std::int64_t>() + 1;
    not_run += not_run_no_device(c) ? 1 : 0;
  }
  s["not_run_no_device"] = not_run;
  return s;
}

json conformance_report(const json& machine, const std::vector<CaseRecord>& cases, const std::string& command) {
  json list = json::array();
  for (const CaseRecord& c : cases) list.push_back(case_json(c));
  return json{{"schema", kReportSchema},
              {"schema_version", kReportSchemaVersion},
              {"kind", "conformance"},
              {"created", utc_timestamp()},
              {"machine", machine},
              {"command", command},
              {"cases", std::move(list)},
              {"summary", summary_json(cases)}};
}

void write_json(const std::string& path, const json& j) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw RuntimeError("cannot open report file '" + path + "' for writing");
  f << j.dump(2) << "\n";
  f.flush();
  if (!f) throw RuntimeError("failed writing report file '" + path + "'");
}

json read_json(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError("cannot open JSON file '" + path + "'");
  try {
    return json::parse(f);
  } catch (const json::parse_error& e) {
    throw InputError("file '" + path + "' is not valid JSON: " + e.what());
  }
}

// ---- schema check ----

namespace {

class SchemaCheck {
 public:
  std::vector<std::string> errors;
  int version = kReportSchemaVersion;  // the report's schema_version (1 or 2)

  // The member key of obj, or nullptr after recording that it is missing.
  const json* get(const json& obj, const std::string& path, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end()) {
      errors.push_back(path + "." + key + ": missing");
      return nullptr;
    }
    return &*it;
  }
  bool expect(bool ok, const std::string& path, const std::string& what) {
    if (!ok) errors.push_back(path + ": " + what);
    return ok;
  }
  const json* string(const json& o, const std::string& p, const char* k, bool nonempty = false) {
    const json* v = get(o, p, k);
    if (v && expect(v->is_string(), p + "." + k, "must be a string") && nonempty)
      expect(!v->get_ref<const std::string&>().empty(), p + "." + k, "must not be empty");
    return v && v->is_string() ? v : nullptr;
  }
  void count(const json& o, const std::string& p, const char* k) {
    const json* v = get(o, p, k);
    if (v) expect(v->is_number_unsigned() || (v->is_number_integer() && v->get<std::int64_t>() >= 0), p + "." + k,
                  "must be a non-negative integer");
  }
  void real(const json& o, const std::string& p, const char* k) {
    const json* v = get(o, p, k);
    if (!v) return;
    bool ok = v->is_number() || (v->is_string() && (*v == "inf" || *v == "-inf" || *v == "nan"));
    expect(ok, p + "." + k, "must be a number or one of \"inf\", \"-inf\", \"nan\"");
  }
  void one_of(const json& o, const std::string& p, const char* k, std::initializer_list<std::string_view> allowed) {
    const json* v = string(o, p, k);
    if (!v) return;
    bool ok = false;
    std::string list;
    for (auto a : allowed) {
      ok = ok || *v == a;
      if (!list.empty()) list += '|';
      list += a;
    }
    expect(ok, p + "." + k, "must be one of " + list + " (got " + v->dump() + ")");
  }
  const json* object(const json& o, const std::string& p, const char* k) {
    const json* v = get(o, p, k);
    return v && expect(v->is_object(), p + "." + k, "must be an object") ? v : nullptr;
  }
  const json* array(const json& o, const std::string& p, const char* k) {
    const json* v = get(o, p, k);
    return v && expect(v->is_array(), p + "." + k, "must be an array") ? v : nullptr;
  }

  void machine(const json& m, const std::string& p) {
    string(m, p, "host");
    string(m, p, "os");
    string(m, p, "compiler");
    count(m, p, "cpu_cores");
    string(m, p, "git_commit", true);
    if (version >= 2) {  // build-time provenance
      string(m, p, "git_describe", true);
      const json* dirty = get(m, p, "git_dirty");
      if (dirty) expect(dirty->is_boolean(), p + ".git_dirty", "must be true or false");
      if (const json* h = string(m, p, "git_diff_sha256")) {
        static const std::regex hex64("[0-9a-f]{64}");
        const std::string& v = h->get_ref<const std::string&>();
        if (dirty && dirty->is_boolean())
          expect(dirty->get<bool>() ? std::regex_match(v, hex64) : v.empty(), p + ".git_diff_sha256",
                 "must be 64 lowercase hex digits for a dirty tree and empty for a clean one");
      }
      string(m, p, "provenance");
    }
    const json* g = get(m, p, "gpu");
    if (!g || g->is_null() || !expect(g->is_object(), p + ".gpu", "must be an object or null")) return;
    const std::string gp = p + ".gpu";
    string(*g, gp, "name", true);
    string(*g, gp, "compute_capability");
    count(*g, gp, "sm_count");
    count(*g, gp, "memory_bytes");
    string(*g, gp, "driver_version");
    if (version >= 2) string(*g, gp, "cuda_driver_api_version");
    string(*g, gp, "runtime_version");
    string(*g, gp, "backend", true);
  }

  void metrics(const json& m, const std::string& p) {
    for (const char* k : {"checked", "mismatches", "nonfinite_mismatches", "max_ulp"}) count(m, p, k);
    for (const char* k : {"max_abs_error", "max_rel_error", "rms_rel_error", "worst_ratio", "zero_fraction"}) real(m, p, k);
    const json* w = array(m, p, "worst");
    if (!w) return;
    for (std::size_t i = 0; i < w->size(); ++i) {
      const json& e = (*w)[i];
      const std::string ep = p + ".worst[" + std::to_string(i) + "]";
      if (!expect(e.is_object(), ep, "must be an object")) continue;
      count(e, ep, "offset");
      if (const json* idx = array(e, ep, "index"))
        for (const json& d : *idx) expect(d.is_number_integer(), ep + ".index", "must hold integers");
      for (const char* k : {"got", "expected", "error", "bound"}) real(e, ep, k);
    }
  }

  // A timing object (performance reports): null, or median/min/max and the run counts; version 2
  // adds the method and, for graph replay, the replay counts, the repeats and the host overhead.
  void timing(const json& o, const std::string& p, const char* k) {
    const json* t = get(o, p, k);
    if (!t || t->is_null() || !expect(t->is_object(), p + "." + k, "must be an object or null")) return;
    const std::string tp = p + "." + k;
    for (const char* r : {"median_ms", "min_ms", "max_ms"}) real(*t, tp, r);
    for (const char* n : {"runs", "warmup", "sets"}) count(*t, tp, n);
    if (version < 2 || !t->contains("method")) return;
    one_of(*t, tp, "method", {"graph_replay", "events"});
    if ((*t)["method"] != "graph_replay") return;
    for (const char* n : {"runs_per_replay", "replays", "host_calls"}) count(*t, tp, n);
    real_or_null(*t, tp, "spread");
    real_or_null(*t, tp, "host_ms_per_call");
    if (const json* reps = array(*t, tp, "repeats")) {
      expect(!reps->empty(), tp + ".repeats", "must hold at least one repeat");
      for (std::size_t i = 0; i < reps->size(); ++i) {
        const json& r = (*reps)[i];
        const std::string rp = tp + ".repeats[" + std::to_string(i) + "]";
        if (!expect(r.is_object(), rp, "must be an object")) continue;
        for (const char* x : {"median_ms", "min_ms", "max_ms"}) real(r, rp, x);
        for (const char* n : {"replays", "runs_per_replay"}) count(r, rp, n);
      }
    }
  }
  void real_or_null(const json& o, const std::string& p, const char* k) {
    if (const json* v = get(o, p, k); v && !v->is_null()) real(o, p, k);
  }

  // The keys a performance case adds to a conformance case (reports/README.md).
  void perf_case(const json& c, const std::string& p) {
    if (version >= 2)
      one_of(c, p, "verify", {"full", "quick", "none"});
    else
      one_of(c, p, "verify", {"full", "sampled", "none"});
    count(c, p, "count");
    for (const char* k : {"flops", "bytes"}) real(c, p, k);
    for (const char* k : {"intensity", "tflops", "gbps", "fraction_of_gemm_ceiling", "fraction_of_copy_ceiling", "speedup_vs_peer"})
      real_or_null(c, p, k);
    timing(c, p, "timing");
    if (const json* b = get(c, p, "best")) expect(b->is_boolean(), p + ".best", "must be true or false");
    if (const json* d = get(c, p, "peer_disagreement")) expect(d->is_null() || d->is_string(), p + ".peer_disagreement", "must be a string or null");
    if (version >= 2) {
      real_or_null(c, p, "host_ms_per_call");
      if (const json* e = get(c, p, "timing_error")) expect(e->is_null() || e->is_string(), p + ".timing_error", "must be a string or null");
      if (const json* f = get(c, p, "exact_fill"); f && !f->is_null() && expect(f->is_object(), p + ".exact_fill", "must be an object or null")) {
        count(*f, p + ".exact_fill", "r");
        count(*f, p + ".exact_fill", "L");
        real(*f, p + ".exact_fill", "max_partial_sum");
      }
    }
    const json* peer = get(c, p, "peer");
    if (!peer || peer->is_null() || !expect(peer->is_object(), p + ".peer", "must be an object or null")) return;
    string(*peer, p + ".peer", "name", true);
    if (version >= 2)
      one_of(*peer, p + ".peer", "status", {"timed", "unavailable", "unsupported", "failed", "error"});
    else
      one_of(*peer, p + ".peer", "status", {"timed", "unavailable", "unsupported", "error"});
    string(*peer, p + ".peer", "reason");
    if (peer->contains("timing")) timing(*peer, p + ".peer", "timing");
  }

  void one_case(const json& c, const std::string& p, const std::string& kind) {
    if (!expect(c.is_object(), p, "must be an object")) return;
    string(c, p, "problem", true);
    string(c, p, "solver", true);
    one_of(c, p, "status", {"passed", "failed", "mistrusted", "unsupported", "error"});
    string(c, p, "reason");
    string(c, p, "repro", true);
    if (kind != "conformance" && kind != "performance") return;
    if (kind == "performance") perf_case(c, p);
    count(c, p, "seed");
    one_of(c, p, "fill", {"exact", "bounded"});
    string(c, p, "tolerance");
    if (const json* m = object(c, p, "metrics")) metrics(*m, p + ".metrics");
    real(c, p, "time_ms");
    if (const json* d = get(c, p, "deterministic")) expect(d->is_boolean() || d->is_null(), p + ".deterministic", "must be true, false or null");
  }

  void summary(const json& s, const json* cases) {
    const std::string p = "report.summary";
    count(s, p, "total");
    for (Status st : kAllStatuses) count(s, p, std::string(status_name(st)).c_str());
    if (s.contains("not_run_no_device")) count(s, p, "not_run_no_device");  // optional: older version 2 reports lack it
    if (!cases) return;
    auto as_count = [&](const char* k) -> std::int64_t {
      auto it = s.find(k);
      return it != s.end() && it->is_number_integer() ? it->get<std::int64_t>() : -1;
    };
    const auto total = static_cast<std::int64_t>(cases->size());
    if (as_count("total") >= 0)
      expect(as_count("total") == total, p + ".total", "is " + std::to_string(as_count("total")) + " but there are " + std::to_string(total) + " cases");
    for (Status st : kAllStatuses) {
      const std::string name(status_name(st));
      std::int64_t n = 0;
      for (const json& c : *cases)
        if (c.is_object() && c.contains("status") && c["status"] == name) ++n;
      if (as_count(name.c_str()) >= 0)
        expect(as_count(name.c_str()) == n, p + "." + name, "is " + std::to_string(as_count(name.c_str())) + " but " + std::to_string(n) + " cases have status " + name);
    }
    if (as_count("not_run_no_device") >= 0) {
      const std::int64_t n = count_not_run_no_device(*cases);
      expect(as_count("not_run_no_device") == n, p + ".not_run_no_device", "is " + std::to_string(as_count("not_run_no_device")) + " but " +
                                                                              std::to_string(n) + " cases did not run for want of a GPU");
    }
  }
};

}  // namespace

std::vector<std::string> check_report_schema(const json& r) {
  SchemaCheck ck;
  if (!ck.expect(r.is_object(), "report", "must be a JSON object")) return ck.errors;
  const std::string p = "report";
  if (const json* s = ck.string(r, p, "schema")) ck.expect(*s == kReportSchema, p + ".schema", "must be \"hiprim.report\"");
  if (const json* v = ck.get(r, p, "schema_version")) {
    const bool ok = v->is_number_integer() && v->get<std::int64_t>() >= kOldestReportSchemaVersion &&
                    v->get<std::int64_t>() <= kReportSchemaVersion;
    if (ck.expect(ok, p + ".schema_version", "must be an integer from " + std::to_string(kOldestReportSchemaVersion) + " to " +
                                                 std::to_string(kReportSchemaVersion)))
      ck.version = static_cast<int>(v->get<std::int64_t>());
  }
  ck.one_of(r, p, "kind", {"conformance", "performance", "fuzz"});
  if (const json* c = ck.string(r, p, "created")) {
    static const std::regex iso(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
    ck.expect(std::regex_match(c->get_ref<const std::string&>(), iso), p + ".created", "must be a UTC ISO-8601 time like 2026-11-30T14:03:09Z");
  }
  if (const json* m = ck.object(r, p, "machine")) ck.machine(*m, p + ".machine");
  ck.string(r, p, "command");
  const json* cases = ck.array(r, p, "cases");
  const std::string kind = r.contains("kind") && r["kind"].is_string() ? r["kind"].get<std::string>() : "";
  if (cases)
    for (std::size_t i = 0; i < cases->size(); ++i) ck.one_case((*cases)[i], "report.cases[" + std::to_string(i) + "]", kind);
  if (kind == "performance") {  // settings, ceilings, peer and totals (reports/README.md)
    ck.object(r, p, "settings");
    if (const json* c = ck.object(r, p, "ceilings")) {
      ck.get(*c, p + ".ceilings", "copy");
      ck.object(*c, p + ".ceilings", "gemm");
    }
    if (const json* peer = ck.get(r, p, "peer")) ck.expect(peer->is_null() || peer->is_object(), p + ".peer", "must be an object or null");
    const json* totals = ck.array(r, p, "totals");
    if (ck.version >= 2) {
      if (const json* clk = ck.get(r, p, "clocks"); clk && !clk->is_null() &&
                                                    ck.expect(clk->is_object(), p + ".clocks", "must be an object or null")) {
        if (const json* a = ck.get(*clk, p + ".clocks", "available")) ck.expect(a->is_boolean(), p + ".clocks.available", "must be true or false");
        ck.string(*clk, p + ".clocks", "reason");
        ck.array(*clk, p + ".clocks", "samples");
      }
      if (totals)
        for (std::size_t i = 0; i < totals->size(); ++i) {
          const json& t = (*totals)[i];
          const std::string tp = p + ".totals[" + std::to_string(i) + "]";
          if (!ck.expect(t.is_object(), tp, "must be an object")) continue;
          ck.count(t, tp, "repeats");
          ck.array(t, tp, "hiprim_ms_repeats");
          ck.array(t, tp, "peer_ms_repeats");
        }
    }
  }
  if (const json* s = ck.object(r, p, "summary")) ck.summary(*s, cases);
  return ck.errors;
}

}  // namespace hiprim::verify
