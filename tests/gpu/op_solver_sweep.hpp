// The op solver tests' sweep (GPU solvers on a device, or their kernels on the host emulation):
// every solver of a list on every problem of its op, through the runner against the CPU
// reference.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "verify/runner.hpp"
#include "verify/suite.hpp"

namespace hiprim::test_ops {

// The problems of `suite` (none when null) followed by the given problem strings.
inline std::vector<OpProblemPtr> op_problems(const std::vector<const char*>& lines, const char* suite = nullptr) {
  std::vector<OpProblemPtr> v;
  if (suite)
    for (const auto& sp : verify::load_suite(suite, {}, verify::SuitePart::ops)) v.push_back(sp.problem);
  for (const char* s : lines) v.push_back(parse_op_problem(s));
  return v;
}

// Each solver of `solvers` on each problem of its op: one that applies must pass in every perf config
// it offers for the problem (OpSolver::configs_for), one that refuses must come back unsupported
// (gtest failures with the repro line). Returns, per solver name, how many problems it applied to.
inline std::map<std::string, int> expect_solvers_pass(const std::vector<OpProblemPtr>& problems, const OpSolverList& solvers,
                                                      const verify::RunOptions& o = {}) {
  std::map<std::string, int> ran;
  for (const auto& p : problems) {
    verify::PreparedCase c(p, o);
    for (const auto& s : solvers) {
      if (s->op() != p->op()) continue;
      const verify::CaseRecord r = verify::run_case(c, *s, o);
      if (!s->applicable(*p)) {
        EXPECT_EQ(r.verdict.status, verify::Status::unsupported) << r.repro;
        continue;
      }
      ++ran[s->name()];
      EXPECT_EQ(r.verdict.status, verify::Status::passed) << r.repro << "\n  " << r.verdict.reason;
      const std::vector<std::string> configs = s->configs_for(*p);
      if (configs.size() < 2) continue;
      for (const std::string& config : configs) {
        verify::RunOptions oc = o;
        oc.config = config;
        const verify::CaseRecord rc = verify::run_case(c, *s, oc);
        EXPECT_EQ(rc.verdict.status, verify::Status::passed) << rc.repro << " (config " << config << ")\n  " << rc.verdict.reason;
      }
    }
  }
  return ran;
}

}  // namespace hiprim::test_ops
