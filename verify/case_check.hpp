// What the one runner (verify/runner.hpp) asks of a primitive besides its problem and solvers: how
// its inputs are filled, what its oracle expects, how a result is judged, the record's tolerance
// line and the dump. Conv's (verify/conv_check.hpp): fill tiers, ref::conv with the naive-oracle
// rule, compare() with a tolerance that scales by the solver's accumulation_error_factor(). Every
// other primitive's (verify/op_check.hpp): its registered fill, reference and per-element bounds.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/op_problem.hpp"
#include "core/solver.hpp"
#include "core/tensor.hpp"
#include "verify/compare.hpp"
#include "verify/fill.hpp"

namespace hiprim::verify {

class PreparedCase;
struct RunOptions;

class CaseCheck {
 public:
  virtual ~CaseCheck() = default;
  // Validates p (InputError naming the rule) and returns the case's fill tier: `asked` or the
  // primitive's default (InputError when p cannot take the tier asked for).
  virtual FillTier fill_tier(const OpProblem& p, std::optional<FillTier> asked) const = 0;
  // Whether the tier is the primitive's choice to make (then a given --fill goes into repro lines).
  virtual bool takes_fill_tiers() const = 0;
  // One HostTensor per tensors() entry: inputs and in_out tensors filled, outputs zero.
  virtual std::vector<HostTensor> fill(const OpProblem& p, FillTier tier, std::uint64_t seed) const = 0;
  // The record's tolerance line for solver s before its oracle ran (also that of refused cases).
  virtual std::string tolerance(const PreparedCase& c, const Solver& s) const = 0;
  // Computes the oracle's answer for s (cached in the case) and returns the tolerance line then.
  virtual std::string expect(const PreparedCase& c, const Solver& s) const = 0;
  // The verdict on s's result: got[i] holds the bytes of tensors()[i] as s left them (empty for inputs).
  virtual Verdict judge(const PreparedCase& c, const Solver& s, const std::vector<std::vector<unsigned char>>& got) const = 0;
  // Writes the inputs, s's outputs and the expected ones as .npy files under dir.
  virtual void dump(const PreparedCase& c, const Solver& s, const std::vector<std::vector<unsigned char>>& got,
                    const std::string& dir) const = 0;
};

// Conv's check for "conv" (verify/conv_check.cpp), the op check for every other primitive
// (verify/op_check.cpp; InputError when o has one of conv's hooks).
std::unique_ptr<const CaseCheck> make_case_check(const OpProblem& p, const RunOptions& o);
std::unique_ptr<const CaseCheck> make_conv_check(const RunOptions& o);
std::unique_ptr<const CaseCheck> make_op_check(const OpProblem& p, const RunOptions& o);

// tensors()[i]'s bytes (got[i]) as a HostTensor of its desc.
HostTensor tensor_from_bytes(const OpTensor& t, const std::vector<unsigned char>& bytes);

}  // namespace hiprim::verify
