// What is truly per primitive in fuzzing; everything else is written once (fuzz/solver_target.hpp,
// fuzz/campaign.hpp). Two parts:
//   FuzzPrimitive  one object per primitive (fuzz_primitive(op)): the unit of CaseSpec::size(), the
//                  case of a repro line, the runner options of a case's data on a solver, and the
//                  primitive's solvers matching a glob. run() is the one path of a case on a solver.
//   CaseSource     one object per (primitive, solver): the generator inside the solver's domain, the
//                  coverage classes it can and cannot reach, the failure classes it stops drawing, and
//                  what the campaign adds to a drawn case's run (conv: the GPU oracle, reseeds).
// Conv's parts are in fuzz/conv_primitive.hpp, the other ops' (one per op, sharing a class) in
// fuzz/op_primitive.hpp.
#pragma once
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rapidcheck/Random.h>
#include <rapidcheck/Shrinkable.h>

#include "core/op_solver.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/target.hpp"
#include "verify/report.hpp"
#include "verify/runner.hpp"

namespace hiprim::fuzz {

class CaseSource;

class FuzzPrimitive {
 public:
  virtual ~FuzzPrimitive() = default;
  // What CaseSpec::size() counts: "MACs" (conv), "elements" (the ops).
  virtual const char* size_unit() const = 0;
  // The case of a repro line (problem, seed and the primitive's data flags); InputError naming the
  // bad part.
  virtual CaseSpecPtr case_from_repro(const ReproLine& r) const = 0;
  // The runner options of c's data on s as its repro line reruns it (CPU oracle): conv: seed, fill
  // tier, special-value hooks (s must be a ConvOpSolver: InputError otherwise); ops: the seed.
  virtual verify::RunOptions run_options(const CaseSpec& c, const OpSolver& s, bool check_determinism) const = 0;
  // The primitive's solvers of verify::all_solvers() matching the comma-separated globs, in that
  // order; InputError naming the globs and the known solvers when none matches.
  virtual OpSolverList solvers(const std::string& globs) const = 0;

  // Runs c (of this primitive) on s as the campaign does with the CPU oracle: s of another op or
  // refusing the problem gives a record with status unsupported (and c's repro line); else the
  // runner's record.
  verify::CaseRecord run(const CaseSpec& c, const OpSolver& s, bool check_determinism = true) const;
  // Same for a case drawn from `source`: its prepare() makes the prepared case.
  verify::CaseRecord run(const CaseSpec& c, const OpSolver& s, bool check_determinism, const CaseSource& source) const;
};

class CaseSource {
 public:
  virtual ~CaseSource() = default;
  // One line: the generation domain (what the solver accepts, as the generator sees it).
  virtual std::string domain() const = 0;
  virtual std::vector<std::string> reachable_classes() const = 0;
  virtual std::vector<SkippedClass> skipped_classes() const = 0;
  // See FuzzTarget::generate and FuzzTarget::exclude_failure_class.
  virtual rc::Shrinkable<CaseSpecPtr> generate(const rc::Random& random, int size) const = 0;
  virtual void exclude_failure_class(const std::string&) {}
  // The prepared case a drawn case runs on (s accepts it; o: the primitive's run_options): by default
  // c's problem on o. May change o and the data it runs (conv: the GPU oracle's hook, the next seed
  // for mostly-zero outputs) and set `note`, appended to the verdict's reason.
  virtual verify::PreparedCase prepare(const CaseSpec& c, const OpSolver& s, verify::RunOptions& o, std::string& note) const;
};
using CaseSourcePtr = std::shared_ptr<CaseSource>;

// Conv's part for "conv", op `op`'s for every other name (its case_from_repro names an unknown one).
const FuzzPrimitive& fuzz_primitive(std::string_view op);
// fuzz_primitive(op) of a fuzzed primitive (conv and fuzzed_ops()); InputError naming op and listing
// them otherwise.
const FuzzPrimitive& fuzzed_primitive(const std::string& op);

}  // namespace hiprim::fuzz
