// What the campaign fuzzes: a FuzzTarget per (primitive, solver). The campaign (fuzz/campaign.hpp)
// knows nothing about any primitive; it draws cases from the target's RapidCheck generator, runs them
// through the target (which uses the verify runner), shrinks failures along the generator's shrink
// tree, and counts the coverage classes the cases hit.
//
// Every primitive's target is the one SolverFuzzTarget (fuzz/solver_target.hpp); a primitive
// provides only its part (fuzz/primitive.hpp): a CaseSpec subclass (its problem + data choice), a
// generator of rc::Shrinkable<CaseSpecPtr> biased to its corner cases inside the solver's
// applicability domain, the runner options of a case's data and the case of a repro line.
#pragma once
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck/Random.h>
#include <rapidcheck/Shrinkable.h>

#include "core/op_problem.hpp"
#include "verify/report.hpp"

namespace hiprim::fuzz {

// One generated case, opaque to the campaign.
class CaseSpec {
 public:
  virtual ~CaseSpec() = default;
  virtual std::string problem() const = 0;               // canonical problem string
  virtual OpProblemPtr op_problem() const = 0;           // the problem, as the runner takes it
  virtual std::vector<std::string> classes() const = 0;  // coverage classes the case belongs to
  // Size measure used to report shrinking (conv: multiply-accumulates); smaller is simpler.
  virtual double size() const = 0;
  // Short human description of the data (e.g. "seed 3, exact, special nan").
  virtual std::string data() const = 0;
  // A data class whose failure the campaign reports once and then asks the target to stop drawing
  // (conv: "special:nan" etc.), so that one contract question does not hide every other bug; "" for
  // failures of the solver proper, which count toward its retirement.
  virtual std::string failure_class() const { return ""; }
};
using CaseSpecPtr = std::shared_ptr<const CaseSpec>;

// A coverage class that the generator never produces, and why.
struct SkippedClass {
  std::string name, reason;
};

class FuzzTarget {
 public:
  virtual ~FuzzTarget() = default;
  virtual std::string op() const = 0;      // primitive, e.g. "conv"
  virtual std::string solver() const = 0;  // solver name
  // One line: the generation domain (what the solver accepts, as the generator sees it).
  virtual std::string domain() const = 0;
  // Every class the generator can produce for this solver (coverage denominator) and those it cannot.
  virtual std::vector<std::string> reachable_classes() const = 0;
  virtual std::vector<SkippedClass> skipped_classes() const = 0;
  // Draws one case; `size` in [0, 100] scales the dimensions (RapidCheck's size). The shrinks of the
  // returned Shrinkable are simpler cases, simplest first.
  virtual rc::Shrinkable<CaseSpecPtr> generate(const rc::Random& random, int size) const = 0;
  // Runs one case. Status unsupported means the solver refused it (a discard, not a result).
  virtual verify::CaseRecord run(const CaseSpec& c) const = 0;
  // Stop generating cases of a failure class (see CaseSpec::failure_class).
  virtual void exclude_failure_class(const std::string& failure_class) = 0;
};
using FuzzTargetPtr = std::shared_ptr<FuzzTarget>;

}  // namespace hiprim::fuzz
