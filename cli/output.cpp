#include "cli/output.hpp"

#include <cstdio>
#include <map>
#include <set>

#include "verify/runner.hpp"

namespace hiprim::cli {

using verify::Status;

bool is_bad(const verify::CaseRecord& r) {
  return r.verdict.status == Status::failed || r.verdict.status == Status::error || r.verdict.status == Status::mistrusted;
}

void print_case_line(const verify::CaseRecord& r) {
  const auto& m = r.verdict.metrics;
  std::printf("%-11s %-22s %s", std::string(verify::status_name(r.verdict.status)).c_str(), r.solver.c_str(), r.problem.c_str());
  if (r.verdict.status == Status::passed || r.verdict.status == Status::failed || r.verdict.status == Status::mistrusted)
    std::printf("  [%s, worst err/bound %.3g, max ulp %llu, %.3f ms]", verify::fill_tier_name(r.fill).data(), m.worst_ratio,
                static_cast<unsigned long long>(m.max_ulp), r.time_ms);
  std::printf("\n");
  if (r.verdict.status != Status::passed) {
    if (!r.verdict.reason.empty()) std::printf("            reason: %s\n", r.verdict.reason.c_str());
    if (is_bad(r)) std::printf("            repro:  %s\n", r.repro.c_str());
  }
}

void print_summary(const std::vector<verify::CaseRecord>& cases) {
  std::map<std::string, std::map<Status, int>> by_solver;
  std::map<Status, int> total;
  for (auto& c : cases) {
    by_solver[c.solver][c.verdict.status]++;
    total[c.verdict.status]++;
  }
  const Status cols[] = {Status::passed, Status::failed, Status::mistrusted, Status::unsupported, Status::error};
  std::printf("\n%-24s %8s %8s %11s %12s %7s\n", "solver", "passed", "failed", "mistrusted", "unsupported", "error");
  auto row = [&](const std::string& name, std::map<Status, int>& m) {
    std::printf("%-24s %8d %8d %11d %12d %7d\n", name.c_str(), m[cols[0]], m[cols[1]], m[cols[2]], m[cols[3]], m[cols[4]]);
  };
  for (auto& [name, m] : by_solver) row(name, m);
  row("total", total);
  if (const std::string line = not_run_line(cases); !line.empty()) std::printf("\n%s (--require-gpu makes this exit 1)\n", line.c_str());
}

std::string not_run_line(std::size_t count, const std::string& noun, const std::string& reason, const std::vector<std::string>& solvers,
                         const std::string& verb) {
  std::string names;
  for (auto& s : solvers) names += (names.empty() ? "" : ", ") + s;
  const bool one = solvers.size() == 1;
  return std::to_string(count) + " " + noun + " did not run: " + reason + (one ? "; the GPU solver (" : "; the GPU solvers (") + names +
         (one ? ") was NOT " : ") were NOT ") + verb;
}

std::string not_run_line(const std::vector<verify::CaseRecord>& cases) {
  std::size_t count = 0;
  std::string reason;
  std::set<std::string> solvers;
  for (auto& c : cases)
    if (verify::not_run_no_device(c)) {
      if (count++ == 0) reason = c.verdict.reason;
      solvers.insert(c.solver);
    }
  return count ? not_run_line(count, "cases", reason, {solvers.begin(), solvers.end()}, "checked") : "";
}

int require_gpu_exit(bool require_gpu, const std::string& line) {
  if (!require_gpu || line.empty()) return 0;
  std::fflush(stdout);  // the summary first
  std::fprintf(stderr, "hiprim: --require-gpu: %s\n", line.c_str());
  return 1;
}

int exit_code_for(const std::vector<verify::CaseRecord>& cases, bool require_gpu) {
  for (auto& c : cases)
    if (is_bad(c)) return 1;
  return require_gpu_exit(require_gpu, not_run_line(cases));
}

namespace {
std::string& command_line_storage() {
  static std::string s;
  return s;
}
std::vector<std::string>& command_args_storage() {
  static std::vector<std::string> a;
  return a;
}
}  // namespace

void set_command_line(int argc, char** argv) {
  command_args_storage().assign(argv, argv + argc);
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.find(' ') != std::string::npos) a = "\"" + a + "\"";
    s += (i ? " " : "") + (i == 0 ? std::string("hiprim") : a);
  }
  command_line_storage() = s;
}

const std::string& command_line() { return command_line_storage(); }
const std::vector<std::string>& command_args() { return command_args_storage(); }

void write_report_if_asked(const std::string& path, const std::vector<verify::CaseRecord>& cases) {
  if (path.empty()) return;
  auto report = verify::conformance_report(verify::machine_json(verify::gpu_json()), cases, command_line());
  verify::write_json(path, report);
  std::printf("report: %s\n", path.c_str());
}

}  // namespace hiprim::cli
