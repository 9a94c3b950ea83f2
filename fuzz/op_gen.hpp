// Generators of valid problems for the non-convolution primitives ("ops": bnorm, activ, softmax,
// dropout, pool, lrn, tensorop, reduce), one OpGenerator per op, used by the one op fuzz target
// (fuzz/op_primitive.hpp).
//
// An op is described by categorical axes (direction, mode, dtype, layout, ...; the first value of
// each is the simplest) and a RapidCheck generator of problems that are valid by construction,
// biased to the corners (size-1 dims, odd and prime sizes, tails past 4/32/256, long reductions,
// the op's own edges), sizes scaled by RapidCheck's size and capped by OpGenLimits. Shrinking comes
// from composing rc::gen generators: smaller dims, fp32 before fp16/bf16, channels first before
// channels last, 2D before 3D, the first mode/direction.
//
// The solver's domain (constrained generation) is probed through applicable(): every combination of
// axis values is tried on a small anchor problem, and an axis value is generated when some accepted
// combination has it. Refusals the anchors cannot see (channel multiples of vector solvers, row-length
// limits) are handled per case by repair(): channels rounded up to a multiple of 8, then the largest
// dim halved, until the solver accepts (the repair is deterministic, so shrinks stay inside too);
// what still is refused counts as a discard. Op problems are packed per layout (no strided tensors),
// so non-packed strides are a skipped class of every op.
//
// Coverage classes: "<axis>:<value>" for every axis value (e.g. dir:bwd, bnorm:spatial, dtype:bf16,
// layout:ndhwc), shape classes (size1, odd, prime) and tails (tail:4, tail:32, tail:256: a length the
// kernels split, past and not a multiple of a vector / warp / block), plus each op's own (e.g.
// bnorm:M>block, pool:pad>=half, lrn:window>c, tensorop:bcast_dim0, reduce:multi_dim).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <rapidcheck/Gen.h>

#include "core/op_grammar.hpp"
#include "core/op_problem.hpp"
#include "core/op_solver.hpp"
#include "fuzz/target.hpp"

namespace hiprim::fuzz {

struct OpGenLimits {
  std::int64_t max_elements = 1 << 15;  // of the largest tensor of a case (fill, reference, comparison cost)
  std::int64_t max_n = 4, max_c = 64, max_spatial = 40, max_spatial_3d = 10;
  std::int64_t max_row_c = 300;  // channel count of ops that reduce over C (softmax channel mode, lrn across)
  std::int64_t max_dim = 80;     // each dim of tensorop / reduce tensors
};
OpGenLimits small_op_limits();  // the defaults: cheap for the CPU reference
OpGenLimits large_op_limits();  // bigger tensors (up to 2^18 elements), for GPU solvers

struct OpAxis {
  std::string name;                 // "dir", "dtype", "layout" or the op's name for its mode axis
  std::vector<std::string> values;  // first = simplest
  bool operator==(const OpAxis&) const = default;
};
using OpChoice = std::map<std::string, std::string>;  // axis name -> value

struct OpDomain {
  std::vector<OpAxis> axes;   // the values generated (the solver's accepted ones when probed)
  bool found_anchor = true;   // false: no anchor was accepted (the full domain is used)
  const std::vector<std::string>& values(const std::string& axis) const;  // InputError for an unknown axis
  bool allows(const std::string& axis, const std::string& value) const;
  std::string describe() const;  // "dir fwd,bwd; dtype fp32,fp16,bf16; layout nchw,nhwc"
  bool operator==(const OpDomain&) const = default;
};

class OpGenerator {
 public:
  virtual ~OpGenerator() = default;
  virtual std::string op() const = 0;
  virtual std::vector<OpAxis> axes() const = 0;
  // A small valid problem with these axis values; nullptr when the combination is invalid.
  virtual OpProblemPtr anchor(const OpChoice& c) const = 0;
  // Valid problems whose axis values are in d.
  virtual rc::Gen<OpProblemPtr> problems(const OpDomain& d, const OpGenLimits& lim) const = 0;
  // Step `step` (0, 1, ...) of making a refused problem acceptable: a simpler valid variant, or
  // nullptr when there is none.
  virtual OpProblemPtr repair(const OpProblem& p, int step) const = 0;
  virtual OpChoice choice_of(const OpProblem& p) const = 0;  // p's value on every axis
  // Shape, tail and op-specific classes of p (axis classes are added by the target).
  virtual std::vector<std::string> classes(const OpProblem& p) const = 0;
  virtual std::vector<std::string> feature_classes(const OpDomain& d) const = 0;  // those reachable in d
  virtual std::vector<SkippedClass> skipped_classes(const OpDomain&) const { return {}; }
};
using OpGeneratorPtr = std::shared_ptr<const OpGenerator>;

// The ops with a generator (every primitive of core/primitives.def, sorted) and the generator of
// one (nullptr when none).
std::vector<std::string> fuzzed_ops();
OpGeneratorPtr op_generator(const std::string& op);

OpDomain full_op_domain(const OpGenerator& g);
OpDomain probe_op_domain(const OpGenerator& g, const OpSolver& s);
// Every class of the domain: axis classes and the generator's feature classes.
std::vector<std::string> op_reachable_classes(const OpGenerator& g, const OpDomain& d);
// Axis values out of the domain, non-packed strides, and the generator's own skipped classes.
std::vector<SkippedClass> op_skipped_classes(const OpGenerator& g, const OpDomain& d);
// Axis classes of p plus g.classes(p).
std::vector<std::string> op_case_classes(const OpGenerator& g, const OpProblem& p);
// Size measure of a case: the elements of all its tensors.
double op_case_size(const OpProblem& p);

// ---- helpers for the per-op generators (op_gen_*.cpp) ----

// The layout axis of OpShape ops: nchw, nhwc (2D), ncdhw, ndhwc (3D).
OpAxis shape_layout_axis();
OpAxis dtype_axis();  // fp32, fp16, bf16
DType dtype_of(const std::string& name);
// A dtype of d's "dtype" axis, fp32 twice as likely (and first: shrinking prefers it).
rc::Gen<DType> op_dtype_gen(const OpDomain& d);
// Random OpShape with dtype and layout from d's "dtype"/"layout" axes: n in [1, max_n], c in
// [1, max_c] (corner-biased, plus the tile sizes up to 257), spatial sizes up to max_spatial (2D)
// or max_spatial_3d (3D). Not yet fitted to the element budget.
rc::Gen<OpShape> op_shape_gen(const OpDomain& d, const OpGenLimits& lim, std::int64_t max_c);
// A small shape of the given dtype/layout names (anchors): n2 c8 in 5x6 (or 3x5x6).
OpShape anchor_shape(const OpChoice& c);
// Halves n, then the largest of c and the spatial sizes, until elements() * factor <= max_elements.
void fit_shape(OpShape& s, std::int64_t max_elements, std::int64_t factor = 1);
// Repair steps of OpShape ops: step 0 rounds c up to a multiple of 8, later steps halve the largest
// of n, c, spatial; false when nothing is left to change.
bool repair_shape(OpShape& s, int step);
// Same for a dims vector (tensorop, reduce): step 0 rounds the innermost storage dim up to a multiple of 8.
bool repair_dims(Dims& dims, bool channels_last, int step);
// The layout axis of tensorop/reduce tensors: nchw, nhwc, ncdhw, ndhwc (ranks 4, 5), rank1..rank3.
OpAxis nd_layout_axis();
int nd_layout_rank(const std::string& layout);
bool nd_layout_channels_last(const std::string& layout);
std::string nd_layout_of(int rank, bool channels_last);
// Dims of a tensorop/reduce tensor: the layout (from d's "layout" axis) and five corner-biased sizes
// in [1, max_dim], of which the layout's rank are used; nd_dims fits them to the element budget
// (halving the largest).
using NdGenome = std::tuple<std::string, std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
rc::Gen<NdGenome> nd_genome_gen(const OpDomain& d, const OpGenLimits& lim);
Dims nd_dims(const NdGenome& g, std::int64_t max_elements);
// Classes of a dims vector: size1, odd (> 1), prime (>= 5).
void add_shape_classes(const Dims& dims, std::vector<std::string>& out);
// tail:4, tail:32, tail:256 for a length past and not a multiple of 4, 32, 256.
void add_tail_classes(std::int64_t length, std::vector<std::string>& out);
// The shape and tail classes every op can reach.
std::vector<std::string> common_feature_classes();

// Per-op generators (op_gen_norm.cpp, op_gen_elementwise.cpp, op_gen_window.cpp): make_<name>_gen
// for every row of core/primitives.def.
#define HIPRIM_PRIMITIVE(name, fill) OpGeneratorPtr make_##name##_gen();
#include "core/primitives.def"

}  // namespace hiprim::fuzz
