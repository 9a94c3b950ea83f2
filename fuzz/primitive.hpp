// A fuzz case given by its repro line, for every primitive: the corpus replay (hiprim check --suite
// corpus) and the campaign's printout ask this of the case's primitive instead of branching on conv.
// Conv's cases (fuzz/conv_target.hpp) carry a fill tier and special values; every other op's
// (fuzz/op_target.hpp) a fill seed only.
#pragma once
#include <string_view>

#include "core/op_solver.hpp"
#include "fuzz/corpus.hpp"
#include "fuzz/target.hpp"
#include "verify/report.hpp"

namespace hiprim::fuzz {

class FuzzPrimitive {
 public:
  virtual ~FuzzPrimitive() = default;
  // What CaseSpec::size() counts: "MACs" (conv), "elements" (the ops).
  virtual const char* size_unit() const = 0;
  // The case of a repro line (problem, seed and the primitive's data flags); InputError naming the
  // bad part.
  virtual CaseSpecPtr case_from_repro(const ReproLine& r) const = 0;
  // Runs c (a case_from_repro case) on s as the campaign does (CPU oracle); a refusal is a record
  // with status unsupported. s is of c's primitive (conv: a ConvOpSolver; InputError otherwise).
  virtual verify::CaseRecord run(const CaseSpec& c, const OpSolver& s, bool check_determinism = true) const = 0;
};

// Conv's for "conv", the op cases' for every other primitive.
const FuzzPrimitive& fuzz_primitive(std::string_view op);

}  // namespace hiprim::fuzz
