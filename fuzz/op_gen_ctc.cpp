// The generator of ctc problems: T time steps, N sequences, C classes, label buffer width L, the
// blank's id, logits or probabilities, every dtype. The sequences themselves (lengths, labels,
// L_b = 0, T_b = 1, repeats) come from the fill (verify/ctc_fill.cpp) with the case's seed. Corners:
// T = 1, C = 2 (one label class: every neighbour repeats), the blank first, last or inside, more
// states than a block's threads (min(L, T) > 127: S = 2L_b + 1 > 256 for the longest sequence), class
// counts past a team's 32 lanes. Shrinks T, N, C and L toward 1 (C toward 2), the blank toward 0,
// fp32 and softmax first.
#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/gen/Tuple.h>

#include "core/ctc_problem.hpp"
#include "fuzz/op_gen_typed.hpp"

namespace hiprim::fuzz {
namespace {

constexpr std::int64_t kBlock = 256;
const char* kind_name(bool softmax) { return softmax ? "softmax" : "probs"; }

// Halves the largest of T, C (toward 2) and N until T*N*C <= max_elements, then L or T until the states fit.
void fit_ctc(CtcProblem& p, std::int64_t max_elements) {
  while (p.t * p.n * p.c > max_elements) {
    if (p.t >= p.c && p.t >= p.n) p.t = std::max<std::int64_t>(1, p.t / 2);
    else if (p.c >= p.n) p.c = std::max<std::int64_t>(2, p.c / 2);
    else p.n = std::max<std::int64_t>(1, p.n / 2);
  }
  // The recursions' states: T*N*(2L+1) <= 4 * max_elements (the reference keeps four doubles per state).
  while (p.t * p.n * (2 * p.l + 1) > 4 * max_elements) {
    if (p.l >= p.t && p.l > 1) p.l = std::max<std::int64_t>(1, p.l / 2);
    else p.t = std::max<std::int64_t>(1, p.t / 2);
  }
  p.blank = std::min(p.blank, p.c - 1);
}

class CtcGen final : public TypedOpGen<CtcProblem> {
 public:
  std::vector<OpAxis> axes() const override { return {{"ctc", {"softmax", "probs"}}, dtype_axis()}; }
  std::vector<std::string> feature_classes(const OpDomain&) const override {
    auto v = common_feature_classes();
    for (const char* c : {"ctc:T1", "ctc:C2", "ctc:blank_last", "ctc:blank_inside", "ctc:S>block", "ctc:C>team"}) v.push_back(c);
    return v;
  }

 protected:
  std::optional<CtcProblem> anchor_typed(const OpChoice& c) const override {
    CtcProblem p;
    p.softmax = c.at("ctc") == "softmax";
    p.dtype = dtype_of(c.at("dtype"));
    p.t = 6, p.n = 3, p.c = 5, p.l = 3, p.blank = 0;
    return p;
  }
  rc::Gen<CtcProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    std::vector<bool> kinds;
    for (const auto& v : d.values("ctc")) kinds.push_back(v == "softmax");
    // blank: 0 (first), the last class (c - 1) or one inside, as a fraction of C.
    return rc::gen::map(rc::gen::tuple(any_of(kinds), op_dtype_gen(d), corner_size(1, lim.max_row_c), corner_size(1, lim.max_n),
                                       corner_size(2, lim.max_c + 1), corner_size(1, lim.max_row_c), pick<int>({{3, 0}, {1, 2}, {1, 1}})),
                        [lim](const std::tuple<bool, DType, std::int64_t, std::int64_t, std::int64_t, std::int64_t, int>& t) {
                          CtcProblem p;
                          std::tie(p.softmax, p.dtype, p.t, p.n, p.c, p.l, std::ignore) = t;
                          const int where = std::get<6>(t);
                          p.blank = where == 0 ? 0 : where == 2 ? p.c - 1 : p.c / 2;
                          fit_ctc(p, lim.max_elements);
                          return p;
                        });
  }
  // ctc.alpha_beta refuses no valid problem: nothing to repair.
  std::optional<CtcProblem> repair_typed(const CtcProblem&, int) const override { return std::nullopt; }
  OpChoice choice_typed(const CtcProblem& p) const override {
    return {{"ctc", kind_name(p.softmax)}, {"dtype", std::string(dtype_name(p.dtype))}};
  }
  std::vector<std::string> classes_typed(const CtcProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes({p.t, p.n, p.c, p.l}, out);
    add_tail_classes(p.c, out);                          // the classes: team lanes, the gradient loop
    add_tail_classes(2 * std::min(p.l, p.t) + 1, out);  // S of the longest sequence (the fill's kind 0): the states over the block
    if (p.t == 1) out.push_back("ctc:T1");
    if (p.c == 2) out.push_back("ctc:C2");
    if (p.blank == p.c - 1) out.push_back("ctc:blank_last");
    if (p.blank > 0 && p.blank < p.c - 1) out.push_back("ctc:blank_inside");
    if (2 * std::min(p.l, p.t) + 1 > kBlock) out.push_back("ctc:S>block");
    if (p.c > 32) out.push_back("ctc:C>team");
    return out;
  }
};

}  // namespace

OpGeneratorPtr make_ctc_gen() { return std::make_shared<CtcGen>(); }

}  // namespace hiprim::fuzz
