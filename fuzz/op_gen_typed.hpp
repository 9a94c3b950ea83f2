// Base of the per-op generators (op_gen_*.cpp): an OpGenerator over one problem struct P, so each
// op writes its axes, anchor, generator, repair and classes on P and this does the type erasure.
#pragma once
#include <optional>
#include <string_view>

#include <rapidcheck/gen/Transform.h>

#include "core/error.hpp"
#include "fuzz/gen_util.hpp"
#include "fuzz/op_gen.hpp"

namespace hiprim::fuzz {

// Enum axes: the names of an enum's values, the value of a name, a generator over d's values.
template <typename E, std::size_t N>
std::vector<std::string> names_of(const E (&values)[N], std::string_view (*name)(E)) {
  std::vector<std::string> v;
  for (E e : values) v.emplace_back(name(e));
  return v;
}

template <typename E, std::size_t N>
E value_named(const E (&values)[N], std::string_view (*name)(E), const std::string& s) {
  for (E e : values)
    if (name(e) == s) return e;
  return values[0];
}

// The axis values of d for an enum axis, as enums.
template <typename E, std::size_t N>
rc::Gen<E> enum_gen(const OpDomain& d, const std::string& axis, const E (&values)[N], std::string_view (*name)(E)) {
  std::vector<E> v;
  for (const auto& s : d.values(axis)) v.push_back(value_named(values, name, s));
  return any_of(v);
}

inline OpChoice shape_choice(const OpShape& s) { return {{"dtype", std::string(dtype_name(s.dtype))}, {"layout", s.layout_name()}}; }

template <OpProblemValue P>
class TypedOpGen : public OpGenerator {
 public:
  std::string op() const final { return std::string(P::kOp); }
  OpProblemPtr anchor(const OpChoice& c) const final { return checked(anchor_typed(c)); }
  rc::Gen<OpProblemPtr> problems(const OpDomain& d, const OpGenLimits& lim) const final {
    return rc::gen::map(gen_typed(d, lim), [](const P& p) -> OpProblemPtr { return make_op_problem(p); });
  }
  OpProblemPtr repair(const OpProblem& p, int step) const final {
    const P* q = op_problem_cast<P>(p);
    return q ? checked(repair_typed(*q, step)) : nullptr;
  }
  OpChoice choice_of(const OpProblem& p) const final { return choice_typed(cast(p)); }
  std::vector<std::string> classes(const OpProblem& p) const final { return classes_typed(cast(p)); }

 protected:
  virtual std::optional<P> anchor_typed(const OpChoice& c) const = 0;
  virtual rc::Gen<P> gen_typed(const OpDomain& d, const OpGenLimits& lim) const = 0;
  // Default for problems with an OpShape `shape`: repair_shape() on it (op_gen.hpp); others override.
  virtual std::optional<P> repair_typed(const P& p, int step) const {
    if constexpr (requires(P q) { repair_shape(q.shape, step); }) {
      P r = p;
      if (!repair_shape(r.shape, step)) return std::nullopt;
      return r;
    } else {
      return std::nullopt;
    }
  }
  virtual OpChoice choice_typed(const P& p) const = 0;
  virtual std::vector<std::string> classes_typed(const P& p) const = 0;

 private:
  static OpProblemPtr checked(const std::optional<P>& p) { return p && p->validate().empty() ? make_op_problem(*p) : nullptr; }
  static const P& cast(const OpProblem& p) {
    const P* q = op_problem_cast<P>(p);
    if (!q) throw InputError("fuzz generator of " + std::string(P::kOp) + " given a " + p.op() + " problem");
    return *q;
  }
};

}  // namespace hiprim::fuzz
