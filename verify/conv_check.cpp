#include "verify/conv_check.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/conv_solver.hpp"
#include "core/error.hpp"
#include "verify/case_check.hpp"
#include "reference/fft_conv.hpp"
#include "reference/winograd.hpp"
#include "verify/npy.hpp"

namespace hiprim::verify {
namespace {

class ConvCheck final : public CaseCheck {
 public:
  explicit ConvCheck(const RunOptions& o) : oracle_(o.hooks.oracle), judge_(o.hooks.judge), judge_bytes_(o.hooks.judge_bytes) {}

  FillTier fill_tier(const OpProblem& op, std::optional<FillTier> asked) const override {
    const ConvProblem& p = cast(op);
    auto errs = p.validate();
    if (!errs.empty()) throw InputError("invalid problem " + to_string(p) + ": " + errs.front());
    const FillTier tier = asked.value_or(exact_fill_range(p) > 0 ? FillTier::exact : FillTier::bounded);
    if (tier == FillTier::exact && exact_fill_range(p) == 0)
      throw InputError("--fill exact: the problem's reduction length " + std::to_string(p.reduction_length()) +
                       " is too long for exact integer sums in fp32");
    return tier;
  }
  bool takes_fill_tiers() const override { return true; }
  std::vector<HostTensor> fill(const OpProblem& op, FillTier tier, std::uint64_t seed) const override {
    const int range = exact_fill_range(cast(op));
    std::vector<HostTensor> data;
    for (const OpTensor& t : op.tensors()) {
      data.emplace_back(t.desc);
      if (t.role != OpTensor::Role::output) verify::fill(data.back(), tier, seed, conv_fill_tag(t.name), range);
    }
    return data;
  }
  std::string tolerance(const PreparedCase& c, const Solver& s) const override {
    const ConvErrorModel model = error_model_of(c, s);
    if (!transform_model(model)) return direct_tolerance(c, s, model).describe();
    if (model.fft_tile > 0)
      return transform_tolerance(c, s, model).describe() + "; FFT " + std::to_string(model.fft_tile) + "x" + std::to_string(model.fft_tile) +
             " tiles: abs_sum = S = sum_c ||x tile_c||_2 ||w_kc||_2, a normwise bound (reference/fft_conv.hpp)";
    return transform_tolerance(c, s, model).describe() + "; Winograd F(" + std::to_string(model.winograd_m) + "x" +
           std::to_string(model.winograd_m) + ",3x3): abs_sum = S, the algorithm on absolute values (reference/winograd.hpp)";
  }
  std::string expect(const PreparedCase& c, const Solver& s) const override {
    (void)expected(c, s.needs_independent_oracle());
    return tolerance(c, s);
  }
  Verdict judge(const PreparedCase& c, const Solver& s, const std::vector<std::vector<unsigned char>>& got) const override {
    const std::size_t out = output_index(c);
    const ref::ConvOutput& exp = expected(c, s.needs_independent_oracle());
    const ConvErrorModel model = error_model_of(c, s);
    if (const std::string why = model_defect(model); !why.empty()) return Verdict{Status::error, s.name() + " " + why, {}};
    if (transform_model(model)) {  // the derived bound with S; a hooks' judge (special values) gets S as abs_sum
      const HostTensor g = tensor_from_bytes(c.tensors()[out], got[out]);
      const std::vector<double>& s_sum = transform_abs_sum(c, model);
      if (judge_) {
        ref::ConvOutput with_s = exp;
        with_s.abs_sum = s_sum;
        return judge_(g, with_s, transform_tolerance(c, s, model));
      }
      return compare(g, exp.value, s_sum, exp.desc, transform_tolerance(c, s, model));
    }
    if (model.input_unit > 0 && conv_problem(c).math != ConvMath::tf32)  // a solver's defect, never a pass
      return Verdict{Status::error, s.name() + " declares inputs rounded below fp32 (TF32) on a problem without math=tf32", {}};
    const Tolerance tol = direct_tolerance(c, s, model);
    if (judge_bytes_) return judge_bytes_(got[out], tol);
    const HostTensor g = tensor_from_bytes(c.tensors()[out], got[out]);
    return judge_ ? judge_(g, exp, tol) : compare(g, exp.value, exp.abs_sum, exp.desc, tol);
  }
  void dump(const PreparedCase& c, const Solver& s, const std::vector<std::vector<unsigned char>>& got,
            const std::string& dir) const override {
    auto write = [&](const std::string& name, const TensorDesc& d, const std::vector<float>& values) {
      write_npy(dir + "/" + name + ".npy", d.dims, logical_values(d, values));
    };
    const auto& ts = c.tensors();
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].role != OpTensor::Role::output) write(ts[i].name, ts[i].desc, c.data()[i].data);
    const std::size_t out = output_index(c);
    write("output", ts[out].desc, tensor_from_bytes(ts[out], got[out]).data);
    const ref::ConvOutput& exp = expected(c, s.needs_independent_oracle());
    write_npy(dir + "/reference.npy", exp.desc.dims, logical_values(exp.desc, exp.value));
  }

  const ref::ConvOutput& expected(const PreparedCase& c, bool naive_only) const {
    const ConvProblem& p = conv_problem(c);
    if (oracle_) {
      if (!auto_) auto_ = oracle_(c);
      return *auto_;
    }
    const ref::ConvInputs in = conv_inputs(c);
    if (naive_only || p.macs() < ref::kFastThresholdMacs) {
      if (!naive_) naive_ = ref::conv_naive(p, in);
      return *naive_;
    }
    if (!auto_) auto_ = ref::conv(p, in);
    return *auto_;
  }

  // The solver's declared model for the case's problem (a conv solver, or one seen as an OpSolver).
  static ConvErrorModel error_model_of(const PreparedCase& c, const Solver& s) {
    const ConvSolver* cs = dynamic_cast<const ConvSolver*>(&s);
    if (const auto* op = dynamic_cast<const ConvOpSolver*>(&s)) cs = &op->conv_solver();
    return cs ? cs->error_model(conv_problem(c)) : ConvErrorModel{};
  }
  // The direct sum's bound with the solver's accumulation factor and input rounding (TF32).
  static Tolerance direct_tolerance(const PreparedCase& c, const Solver& s, const ConvErrorModel& model) {
    Tolerance t = conv_tolerance(c, s.accumulation_error_factor());
    t.input_unit = model.input_unit;
    return t;
  }
  // What a declared model cannot mean (a solver's defect, never a pass): "" when it is consistent.
  static std::string model_defect(const ConvErrorModel& m) {
    if (m.winograd_operands != DType::fp32 && m.winograd_m == 0)
      return "declares 16-bit transformed operands without a Winograd tile";
    if (m.winograd_m > 0 && m.input_unit > 0)
      return "declares an input unit with a Winograd model (its 16-bit operands go in winograd_operands)";
    return "";
  }
  // A transform's model (Winograd or FFT): its own S and L in place of the direct sum's.
  static bool transform_model(const ConvErrorModel& m) { return m.winograd_m > 0 || m.fft_tile > 0; }
  static Tolerance transform_tolerance(const PreparedCase& c, const Solver& s, const ConvErrorModel& model) {
    return model.fft_tile > 0 ? verify::fft_tolerance(conv_problem(c), model.fft_tile)
                              : verify::winograd_tolerance(conv_problem(c), model.winograd_m, s.accumulation_error_factor(),
                                                           model.winograd_operands);
  }
  // S of reference/winograd.hpp or reference/fft_conv.hpp on the case's data, computed once per model
  // (key: m and the operands' dtype for Winograd F(m x m), -T for FFT T x T).
  const std::vector<double>& transform_abs_sum(const PreparedCase& c, const ConvErrorModel& model) const {
    const int key = model.fft_tile > 0 ? -model.fft_tile : model.winograd_m * 8 + static_cast<int>(model.winograd_operands);
    auto it = transform_s_.find(key);
    if (it == transform_s_.end()) {
      const ref::ConvInputs in = conv_inputs(c);
      const ConvProblem& p = conv_problem(c);
      const int m = model.winograd_m;
      const HostTensor& src = p.dir == ConvDir::bwd_data ? *in.y : *in.x;  // the convolution's input (dy for bwd-data)
      it = transform_s_.emplace(key, model.fft_tile > 0              ? ref::fft_conv_abs_sum(p, model.fft_tile, src, *in.w)
                                     : p.dir == ConvDir::bwd_weights
                                         ? ref::winograd_wgrad_abs_sum(p, winograd_f3(m), *in.x, *in.y, model.winograd_operands)
                                         : ref::winograd_abs_sum(p, winograd_f3(m), src, *in.w, model.winograd_operands))
               .first;
    }
    return it->second;
  }

  static const ConvProblem& cast(const OpProblem& op) {
    const ConvProblem* p = op_problem_cast<ConvProblem>(op);
    if (!p) throw InputError("not a conv problem: " + op.str());
    return *p;
  }

 private:
  static std::size_t output_index(const PreparedCase& c) {
    const auto& ts = c.tensors();
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i].role == OpTensor::Role::output) return i;
    throw RuntimeError("conv problem " + c.problem().str() + " without an output tensor");
  }

  std::function<ref::ConvOutput(const PreparedCase&)> oracle_;
  std::function<Verdict(const HostTensor&, const ref::ConvOutput&, const Tolerance&)> judge_;
  std::function<Verdict(const std::vector<unsigned char>&, const Tolerance&)> judge_bytes_;
  mutable std::optional<ref::ConvOutput> auto_, naive_;
  mutable std::map<int, std::vector<double>> transform_s_;
};

const ConvCheck& conv_check(const PreparedCase& c) {
  auto* k = dynamic_cast<const ConvCheck*>(&c.check());
  if (!k) throw InputError("not a conv case: " + c.problem().str());
  return *k;
}

}  // namespace

std::unique_ptr<const CaseCheck> make_conv_check(const RunOptions& o) { return std::make_unique<ConvCheck>(o); }

std::uint64_t conv_fill_tag(std::string_view name) {
  switch (conv_slot(name)) {
    case ConvSlot::x: return kTagX;
    case ConvSlot::w: return kTagW;
    case ConvSlot::y: return kTagY;
    case ConvSlot::bias: return kTagBias;
  }
  return 0;
}

const ConvProblem& conv_problem(const PreparedCase& c) { return ConvCheck::cast(c.problem()); }

ref::ConvInputs conv_inputs(const PreparedCase& c) {
  ref::ConvInputs in;
  const auto& ts = c.tensors();
  for (std::size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].role == OpTensor::Role::output) continue;
    const HostTensor* t = &c.data()[i];
    switch (conv_slot(ts[i].name)) {
      case ConvSlot::x: in.x = t; break;
      case ConvSlot::w: in.w = t; break;
      case ConvSlot::y: in.y = t; break;
      case ConvSlot::bias: in.bias = t; break;
    }
  }
  return in;
}

const ref::ConvOutput& conv_expected(const PreparedCase& c, bool naive_only) { return conv_check(c).expected(c, naive_only); }

Tolerance conv_tolerance(const PreparedCase& c, double algorithm_factor) {
  return tolerance_for(conv_problem(c), c.fill(), algorithm_factor);
}

Tolerance winograd_tolerance(const ConvProblem& p, int m, double algorithm_factor, DType operands) {
  Tolerance t = tolerance_for(p, FillTier::bounded, algorithm_factor);
  t.input_unit = operands == DType::fp32 ? 0.0 : unit_roundoff(operands);
  t.reduction_length = p.dir == ConvDir::bwd_weights
                           ? ref::winograd_wgrad_depth(winograd_f3(m), ref::winograd_wgrad_terms(p, m))
                           : ref::winograd_depth(winograd_f3(m), winograd_fwd_equivalent(p).c / p.groups);  // bwd-data: K/G
  return t;
}

Tolerance fft_tolerance(const ConvProblem& p, int t) {
  Tolerance tol = tolerance_for(p, FillTier::bounded);
  tol.reduction_length = ref::fft_conv_depth(p, t);
  return tol;
}

}  // namespace hiprim::verify
