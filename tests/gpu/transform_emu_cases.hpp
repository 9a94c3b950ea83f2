// The conv transform solvers' emulation tests (Winograd, fused Winograd, tc Winograd, FFT): one case run through the
// runner, and the expectation every such test makes of it (a pass inside the solver's derived bound).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/conv_solver.hpp"
#include "fuzz/conv_primitive.hpp"
#include "verify/runner.hpp"
#include "emu/emulated_solver.hpp"

namespace hiprim {

using ConvSolvers = std::vector<std::shared_ptr<const ConvSolver>>;

// The solvers the factories make (the kernel sources' makers compiled for the emulation), each wrapped as
// EmulatedConvSolver, in order.
template <typename... Maker>
ConvSolvers emulated(Maker... makers) {
  return {std::make_shared<EmulatedConvSolver>(makers())...};
}

// The problem of `line` in dtype dt.
inline ConvProblem in_dtype(const char* line, DType dt) {
  ConvProblem p = parse_conv_problem(line);
  p.dtype = dt;
  return p;
}

// s on p through the runner with the given fill and seed.
inline verify::CaseRecord run_case_with(const ConvProblem& p, const ConvSolver& s, verify::FillTier tier, std::uint64_t seed) {
  verify::RunOptions o;
  o.seed = seed;
  o.fill = tier;
  verify::PreparedCase c(p, o);
  return verify::run_case(c, s, o);
}

// s takes p and passes it inside its derived bound (worst error/bound < 1, elements checked); the record for more.
inline verify::CaseRecord expect_within_derived_bound(const ConvProblem& p, const ConvSolver& s, verify::FillTier tier,
                                                      std::uint64_t seed) {
  SCOPED_TRACE(s.name() + " on " + to_string(p) + (tier == verify::FillTier::exact ? " (exact fill)" : " (bounded fill)"));
  const Applicability a = s.applicable(p);
  EXPECT_TRUE(a) << a.reason;
  if (!a) return {};
  const verify::CaseRecord r = run_case_with(p, s, tier, seed);
  EXPECT_EQ(r.verdict.status, verify::Status::passed) << r.verdict.reason;
  EXPECT_LT(r.verdict.metrics.worst_ratio, 1.0);
  EXPECT_GT(r.verdict.metrics.checked, 0);
  return r;
}

// s refuses `line` with a reason that names `why`, and asks no workspace for it.
inline void expect_refused(const ConvSolver& s, const char* line, const char* why) {
  const ConvProblem p = parse_conv_problem(line);
  const Applicability a = s.applicable(p);
  EXPECT_FALSE(a) << line;
  EXPECT_NE(a.reason.find(why), std::string::npos) << line << ": " << a.reason;
  EXPECT_EQ(s.workspace_bytes(p), 0u) << line;
}

// s on p with the fuzzer's special values of `kind` (bounded fill) and its judge (NaN / Inf spread as the solver's
// transforms spread them, the rest inside the derived bound).
inline verify::Verdict run_with_special_values(const ConvProblem& p, const ConvSolver& s, fuzz::Special kind, std::uint64_t seed) {
  fuzz::ConvCaseData d;
  d.seed = seed;
  d.fill = verify::FillTier::bounded;
  d.special = kind;
  const verify::RunOptions o = fuzz::conv_run_options(p, d, s, false);
  verify::PreparedCase c(p, o);
  return verify::run_case(c, s, o).verdict;
}

}  // namespace hiprim
