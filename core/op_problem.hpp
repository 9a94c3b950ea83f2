// Problems of every primitive, type-erased by op name: conv (core/conv_problem.hpp) and the
// non-convolution primitives ("ops": bnorm, activ, softmax, dropout, pool, lrn, tensorop, reduce,
// ctc, rnn, fusion).
// Conv's solvers, references and runner still take the ConvProblem itself.
//
// Each primitive writes a plain value struct P in core/<prim>_problem.{hpp,cpp} (named fields,
// operator==, validate(), tensors(), flops(), to_string(P) and a parser) and wraps it with
// make_op_problem(P) into an OpProblem; solvers, references and fills get the struct back with
// op_problem_cast<P>(problem).
//
// Canonical strings follow conv's grammar rules (core/op_grammar.hpp has the shared token reader):
//   <op> <direction/mode tokens> <dtype> <layout> n<N> c<C> in<HxW> <op-specific tokens>
// the first token is the op name; parse(print(p)) == p for every valid problem.
//
// Adding a primitive "foo": a row HIPRIM_PRIMITIVE(foo, own_fill|default_fill) in core/primitives.def
// (every catalog, registry, CMake source list and CLI listing expands it), one include in
// core/op_catalog.cpp, and the functions the row names, in foo's own files: parse_foo_problem_unchecked,
// ref::foo_expected, verify::foo_fill (own_fill), gpu::foo_solvers, fuzz::make_foo_gen,
// mdriver::translate_foo and mdriver::foo_flags (not for a HIPRIM_PRIMITIVE_WITHOUT_DRIVER row: a
// primitive MIOpenDriver has no command for, e.g. fusion); its GPU kernels in gpu/CMakeLists.txt; its lines in
// verify/suites/smoke_ops.txt; its name in the two MIOpenDriver command lists kept in MIOpen's order
// (cli/main.cpp's help footer, mdriver::help_text). tests/cli/test_primitive_table.cpp checks every
// row against all of them.
#pragma once
#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"

namespace hiprim {

// One tensor a solver receives. Buffers are passed in tensors() order, each holding desc's dtype
// with desc's strides. input: read only; output: written (poisoned before the run); in_out: read
// and updated in place (e.g. bnorm's running mean/variance).
struct OpTensor {
  enum class Role { input, output, in_out };
  std::string name;  // short, stable: "x", "y", "dy", "dx", "scale", "running_mean", ...
  TensorDesc desc;
  Role role = Role::input;
  bool operator==(const OpTensor&) const = default;
};

std::string_view op_tensor_role_name(OpTensor::Role r);  // "input", "output", "in_out"

class OpProblem {
 public:
  virtual ~OpProblem() = default;
  virtual std::string op() const = 0;   // "bnorm", "activ", ...: the first token of str()
  virtual std::string str() const = 0;  // the canonical string
  // Every violated rule, each naming the quantity and the rule; empty when valid.
  virtual std::vector<std::string> validate() const = 0;
  bool valid() const { return validate().empty(); }
  // The tensors in the order solvers receive their buffers.
  virtual std::vector<OpTensor> tensors() const = 0;
  virtual double flops() const = 0;
  // Bytes a one-pass kernel moves: inputs read once, outputs written once, in_out both (default),
  // unless the primitive defines bytes() itself.
  virtual double bytes() const = 0;
  virtual std::shared_ptr<const OpProblem> clone() const = 0;
  // Same op and equal fields.
  virtual bool equals(const OpProblem& other) const = 0;
};

using OpProblemPtr = std::shared_ptr<const OpProblem>;

// bytes() of a tensor list as described above.
double op_tensor_bytes(const std::vector<OpTensor>& tensors);

// What a primitive's value struct provides.
template <typename P>
concept OpProblemValue = std::equality_comparable<P> && std::copy_constructible<P> && requires(const P& p) {
  { P::kOp } -> std::convertible_to<std::string_view>;
  { p.validate() } -> std::same_as<std::vector<std::string>>;
  { p.tensors() } -> std::same_as<std::vector<OpTensor>>;
  { p.flops() } -> std::convertible_to<double>;
  { to_string(p) } -> std::same_as<std::string>;
};

// P as an OpProblem (a value copy).
template <OpProblemValue P>
class OpProblemOf final : public OpProblem {
 public:
  explicit OpProblemOf(P p) : p_(std::move(p)) {}
  const P& value() const { return p_; }
  std::string op() const override { return std::string(P::kOp); }
  std::string str() const override { return to_string(p_); }
  std::vector<std::string> validate() const override { return p_.validate(); }
  std::vector<OpTensor> tensors() const override { return p_.tensors(); }
  double flops() const override { return static_cast<double>(p_.flops()); }
  double bytes() const override {
    if constexpr (requires { p_.bytes(); })
      return static_cast<double>(p_.bytes());
    else
      return op_tensor_bytes(p_.tensors());
  }
  std::shared_ptr<const OpProblem> clone() const override { return std::make_shared<OpProblemOf>(p_); }
  bool equals(const OpProblem& o) const override {
    auto* other = dynamic_cast<const OpProblemOf*>(&o);
    return other && other->p_ == p_;
  }

 private:
  P p_;
};

template <OpProblemValue P>
OpProblemPtr make_op_problem(P p) {
  return std::make_shared<const OpProblemOf<P>>(std::move(p));
}

// The value struct inside, or nullptr when the problem is of another type.
template <OpProblemValue P>
const P* op_problem_cast(const OpProblem& p) {
  auto* w = dynamic_cast<const OpProblemOf<P>*>(&p);
  return w ? &w->value() : nullptr;
}

// ---- parser registry ----
// A parser takes the whole string (first token included) and returns a validated problem; it
// throws InputError naming the bad token or the violated rule.
using OpParser = std::function<OpProblemPtr(std::string_view)>;

// Adds (or replaces) the parser of an op. The built-in ones (conv and core/primitives.def, registered
// by core/op_catalog.cpp) are registered before the first lookup.
void register_op_parser(std::string op, OpParser parse);
// Dispatches on the first token ("conv ..." gives an OpProblemOf<ConvProblem>, with
// parse_conv_problem's messages); InputError naming the token and the known ops when unknown.
OpProblemPtr parse_op_problem(std::string_view s);
// Registered op names, sorted: conv and the primitives of core/primitives.def (primitive_names()).
std::vector<std::string> op_names();
// The first whitespace-separated token of s ("" when none).
std::string first_token(std::string_view s);

// InputError "invalid <op> problem "<source>":\n  - <error>..." (source may be empty).
[[noreturn]] void throw_invalid_problem(std::string_view op, std::string_view source, const std::vector<std::string>& errors);

// p when it is valid; else throw_invalid_problem with p.validate()'s messages.
template <OpProblemValue P>
P validated(P p, std::string_view source) {
  auto errors = p.validate();
  if (!errors.empty()) throw_invalid_problem(P::kOp, source, errors);
  return p;
}

// Wraps a struct parser (throws on bad tokens, returns the unvalidated struct) into an OpParser
// that also validates: InputError "invalid <op> problem "<s>":\n  - <rule>...".
template <OpProblemValue P>
OpParser validating_op_parser(P (*parse_unchecked)(std::string_view)) {
  return [parse_unchecked](std::string_view s) -> OpProblemPtr {
    P p = parse_unchecked(s);
    return make_op_problem(validated(std::move(p), s));
  };
}


// Registers the built-in ops (core/op_catalog.cpp); called once by the registry itself.
void register_builtin_op_parsers();

}  // namespace hiprim
