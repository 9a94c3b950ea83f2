#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <regex>

#include "core/error.hpp"
#include "verify/report.hpp"

using namespace hiprim;
using namespace hiprim::verify;
using nlohmann::json;

namespace {

bool mentions(const std::vector<std::string>& errs, const std::string& what) {
  for (const auto& e : errs)
    if (e.find(what) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& errs) {
  std::string s;
  for (const auto& e : errs) s += e + "\n";
  return s;
}

// Three cases: a failed comparison with a NaN (non-finite metrics), a passed one, an unsupported one.
std::vector<CaseRecord> sample_cases() {
  const std::string prob = "conv fwd fp32 nchw n1 c1 k1 in1x3 f1x1 pad0x0 str1x1 dil1x1 g1";
  HostTensor got(TensorDesc::packed(DType::fp32, {1, 1, 1, 3}, false));
  got.data = {1.0f, std::numeric_limits<float>::quiet_NaN(), 3.0f};
  Tolerance tol{FillTier::bounded, DType::fp32, 1, 1.0};
  Verdict bad = compare(got, {1.0, 2.0, 3.0}, {1.0, 2.0, 3.0}, got.desc, tol);
  got.data[1] = 2.0f;
  Verdict good = compare(got, {1.0, 2.0, 3.0}, {1.0, 2.0, 3.0}, got.desc, tol);
  Verdict unsup{Status::unsupported, "solver needs groups == 1", {}};
  return {
      {prob, "conv.naive.host", bad, 7, FillTier::bounded, tol.describe(), 1.5, true, repro_command(prob, "conv.naive.host", 7)},
      {prob, "conv.gemm.host", good, 7, FillTier::bounded, tol.describe(), 0.25, std::nullopt, repro_command(prob, "conv.gemm.host", 7)},
      {prob, "conv.direct.gpu", unsup, 7, FillTier::exact, "", 0.0, std::nullopt, repro_command(prob, "conv.direct.gpu", 7)},
  };
}

json sample_report() {
  json gpu{{"name", "NVIDIA H200"}, {"compute_capability", "9.0"}, {"sm_count", 132}, {"memory_bytes", 150000000000ull},
           {"driver_version", "13.0"}, {"runtime_version", "13.0"}, {"backend", "cuda"}};
  return conformance_report(machine_json(gpu), sample_cases(), "hiprim check --suite smoke");
}

}  // namespace

TEST(Report, ProducedReportConforms) {
  json r = sample_report();
  EXPECT_TRUE(check_report_schema(r).empty()) << joined(check_report_schema(r));
  EXPECT_EQ(r["schema"], "hiprim.report");
  EXPECT_EQ(r["schema_version"], kReportSchemaVersion);
  EXPECT_EQ(r["kind"], "conformance");
  EXPECT_EQ(r["summary"]["total"], 3);
  EXPECT_EQ(r["summary"]["failed"], 1);
  EXPECT_EQ(r["summary"]["passed"], 1);
  EXPECT_EQ(r["summary"]["unsupported"], 1);
  EXPECT_EQ(r["summary"]["mistrusted"], 0);
  const json& c0 = r["cases"][0];
  EXPECT_EQ(c0["status"], "failed");
  EXPECT_EQ(c0["metrics"]["worst_ratio"], "inf");  // JSON has no inf: written as a string
  EXPECT_EQ(c0["metrics"]["worst"][0]["got"], "nan");
  EXPECT_EQ(c0["metrics"]["worst"][0]["index"], json::array({0, 0, 0, 1}));
  EXPECT_EQ(c0["deterministic"], true);
  EXPECT_TRUE(r["cases"][1]["deterministic"].is_null());
  EXPECT_EQ(c0["repro"], "hiprim repro \"conv fwd fp32 nchw n1 c1 k1 in1x3 f1x1 pad0x0 str1x1 dil1x1 g1\" --solver conv.naive.host --seed 7");
  EXPECT_TRUE(std::regex_match(r["created"].get<std::string>(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_FALSE(r["machine"]["git_commit"].get<std::string>().empty());
  // Without a GPU the machine's gpu is null, which also conforms.
  json no_gpu = conformance_report(machine_json(nullptr), sample_cases(), "hiprim check");
  EXPECT_TRUE(no_gpu["machine"]["gpu"].is_null());
  EXPECT_TRUE(check_report_schema(no_gpu).empty()) << joined(check_report_schema(no_gpu));
}

TEST(Report, RoundTripsThroughText) {
  json r = sample_report();
  json back = json::parse(r.dump());
  EXPECT_EQ(back, r);
  EXPECT_TRUE(check_report_schema(back).empty());
  const auto p = std::filesystem::temp_directory_path() / ("hiprim_report_test_" + std::to_string(::getpid()) + ".json");
  write_json(p.string(), r);
  EXPECT_EQ(read_json(p.string()), r);
  std::filesystem::remove(p);
}

TEST(Report, NonFiniteNumbersAsStrings) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(number_json(inf), "inf");
  EXPECT_EQ(number_json(-inf), "-inf");
  EXPECT_EQ(number_json(std::nan("")), "nan");
  EXPECT_EQ(number_json(0.5), 0.5);
  EXPECT_EQ(number_from_json(json("inf")), inf);
  EXPECT_EQ(number_from_json(json("-inf")), -inf);
  EXPECT_TRUE(std::isnan(number_from_json(json("nan"))));
  EXPECT_EQ(number_from_json(json(3)), 3.0);
  EXPECT_THROW(number_from_json(json("Infinity")), InputError);
  EXPECT_THROW(number_from_json(json(nullptr)), InputError);
}

// Each mutation breaks the report in one way; the checker names the place.
TEST(Report, MutatedReportsFailTheSchema) {
  struct Mutation {
    const char* name;
    void (*apply)(json&);
    const char* where;
  };
  const Mutation mutations[] = {
      {"missing host", [](json& r) { r["machine"].erase("host"); }, "machine.host"},
      {"missing cases", [](json& r) { r.erase("cases"); }, "report.cases"},
      {"missing repro", [](json& r) { r["cases"][1].erase("repro"); }, "cases[1].repro"},
      {"missing metric", [](json& r) { r["cases"][0]["metrics"].erase("max_ulp"); }, "metrics.max_ulp"},
      {"version as string", [](json& r) { r["schema_version"] = "1"; }, "schema_version"},
      {"wrong schema", [](json& r) { r["schema"] = "hiprim.reports"; }, "report.schema"},
      {"unknown kind", [](json& r) { r["kind"] = "benchmark"; }, "report.kind"},
      {"bad time", [](json& r) { r["created"] = "2026-11-30 14:03"; }, "report.created"},
      {"gpu as number", [](json& r) { r["machine"]["gpu"] = 5; }, "machine.gpu"},
      {"gpu without name", [](json& r) { r["machine"]["gpu"].erase("name"); }, "gpu.name"},
      {"ratio as bool", [](json& r) { r["cases"][0]["metrics"]["worst_ratio"] = true; }, "worst_ratio"},
      {"bad non-finite spelling", [](json& r) { r["cases"][0]["metrics"]["worst_ratio"] = "Infinity"; }, "worst_ratio"},
      {"unknown status", [](json& r) { r["cases"][2]["status"] = "skipped"; }, "cases[2].status"},
      {"unknown fill", [](json& r) { r["cases"][0]["fill"] = "random"; }, "cases[0].fill"},
      {"negative seed", [](json& r) { r["cases"][0]["seed"] = -1; }, "cases[0].seed"},
      {"deterministic as string", [](json& r) { r["cases"][0]["deterministic"] = "yes"; }, "deterministic"},
      {"index of reals", [](json& r) { r["cases"][0]["metrics"]["worst"][0]["index"][1] = 0.5; }, "worst[0].index"},
      {"count mismatch", [](json& r) { r["summary"]["failed"] = 2; }, "summary.failed"},
      {"total mismatch", [](json& r) { r["summary"]["total"] = 4; }, "summary.total"},
      {"case dropped", [](json& r) { r["cases"].erase(2); }, "summary.unsupported"},
      {"not an object", [](json& r) { r = json::array(); }, "report"},
  };
  for (const Mutation& m : mutations) {
    json r = sample_report();
    m.apply(r);
    const auto errs = check_report_schema(r);
    EXPECT_FALSE(errs.empty()) << m.name;
    EXPECT_TRUE(mentions(errs, m.where)) << m.name << ":\n" << joined(errs);
  }
}

TEST(Report, WriteNamesThePathOnFailure) {
  const std::string path = "/nonexistent_dir_hiprim/sub/report.json";
  try {
    write_json(path, json{{"a", 1}});
    FAIL() << "no exception";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_json(path), InputError);
}

TEST(Report, CommandLineQuoting) {
  const char* argv[] = {"hiprim", "check", "conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3", "--out=r.json", "it's"};
  EXPECT_EQ(join_command(5, argv), "hiprim check \"conv fwd fp32 nchw n1 c3 k8 in8x8 f3x3\" --out=r.json \"it's\"");
  const char* argv2[] = {"a", "$HOME", ""};
  EXPECT_EQ(join_command(3, argv2), "a '$HOME' \"\"");
}

TEST(Report, MetricsJsonHoldsEveryField) {
  Metrics m;
  m.checked = 10;
  m.mismatches = 2;
  m.nonfinite_mismatches = 1;
  m.max_abs_error = 0.5;
  m.max_rel_error = std::numeric_limits<double>::infinity();
  m.rms_rel_error = 0.25;
  m.worst_ratio = 3;
  m.max_ulp = 17;
  m.zero_fraction = 0.1;
  m.worst.push_back(Element{4, {0, 1, 2, 3}, 1.0, 2.0, 1.0, 0.5});
  json j = metrics_json(m);
  EXPECT_EQ(j["checked"], 10);
  EXPECT_EQ(j["mismatches"], 2);
  EXPECT_EQ(j["nonfinite_mismatches"], 1);
  EXPECT_EQ(j["max_abs_error"], 0.5);
  EXPECT_EQ(j["max_rel_error"], "inf");
  EXPECT_EQ(j["rms_rel_error"], 0.25);
  EXPECT_EQ(j["worst_ratio"], 3.0);
  EXPECT_EQ(j["max_ulp"], 17);
  EXPECT_EQ(j["zero_fraction"], 0.1);
  EXPECT_EQ(j["worst"][0], (json{{"offset", 4}, {"index", {0, 1, 2, 3}}, {"got", 1.0}, {"expected", 2.0}, {"error", 1.0}, {"bound", 0.5}}));
}
