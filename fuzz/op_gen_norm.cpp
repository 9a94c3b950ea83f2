// Generators of the normalizing ops: bnorm (groups of M = N*D*H*W or N values), softmax (rows of
// C or C*D*H*W values) and lrn (windows across channels or within a channel). Their corners are the
// reduction extents: a group or row of one element, past one block (256), not a multiple of
// 4/32/256, and lrn windows wider than the data they slide over.
#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/gen/Tuple.h>

#include "core/bnorm_problem.hpp"
#include "core/lrn_problem.hpp"
#include "core/softmax_problem.hpp"
#include "fuzz/gen_util.hpp"
#include "fuzz/op_gen_typed.hpp"

namespace hiprim::fuzz {
namespace {

constexpr std::int64_t kBlock = 256;  // the extent one thread block covers in one pass

// ---- bnorm ----
constexpr BnormDir kBnormDirs[] = {BnormDir::fwd_train, BnormDir::fwd_infer, BnormDir::bwd};
constexpr BnormMode kBnormModes[] = {BnormMode::spatial, BnormMode::per_activation};

// fwd-train needs M >= 2 values per group: n = 2 when n = 1 would leave fewer.
BnormProblem fix_bnorm(BnormProblem p) {
  if (p.dir != BnormDir::fwd_train) p.momentum.reset();
  else if (!p.momentum) p.momentum = kBnormDefaultMomentum;
  if (p.dir == BnormDir::fwd_train && p.group_size() < 2) p.shape.n = 2;
  return p;
}

class BnormGen final : public TypedOpGen<BnormProblem> {
 public:
  std::vector<OpAxis> axes() const override {
    return {{"dir", names_of(kBnormDirs, bnorm_dir_name)}, {"bnorm", names_of(kBnormModes, bnorm_mode_name)}, dtype_axis(), shape_layout_axis()};
  }
  std::vector<std::string> feature_classes(const OpDomain& d) const override {
    auto v = common_feature_classes();
    if (d.allows("bnorm", "spatial")) v.push_back("bnorm:M>block");  // per-activation: M = N, a few
    v.push_back("bnorm:M<=2");
    return v;
  }
  std::vector<SkippedClass> skipped_classes(const OpDomain& d) const override {
    if (d.allows("bnorm", "spatial")) return {};
    return {{"bnorm:M>block", "per-activation groups have M = N values (at most max_n), and the solver refuses spatial mode"}};
  }

 protected:
  std::optional<BnormProblem> anchor_typed(const OpChoice& c) const override {
    BnormProblem p;
    p.dir = value_named(kBnormDirs, bnorm_dir_name, c.at("dir"));
    p.mode = value_named(kBnormModes, bnorm_mode_name, c.at("bnorm"));
    p.shape = anchor_shape(c);
    return fix_bnorm(p);
  }
  rc::Gen<BnormProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "dir", kBnormDirs, bnorm_dir_name), enum_gen(d, "bnorm", kBnormModes, bnorm_mode_name),
                                       op_shape_gen(d, lim, lim.max_c), pick<double>({{3, 1e-5}, {1, 1e-3}, {1, 0.5}}),
                                       pick<double>({{3, 0.1}, {1, 0.0}, {1, 1.0}, {1, 0.5}})),
                        [lim](const std::tuple<BnormDir, BnormMode, OpShape, double, double>& t) {
                          BnormProblem p;
                          std::tie(p.dir, p.mode, p.shape, p.epsilon, std::ignore) = t;
                          p.momentum = std::get<4>(t);
                          fit_shape(p.shape, lim.max_elements);
                          return fix_bnorm(p);
                        });
  }
  std::optional<BnormProblem> repair_typed(const BnormProblem& p, int step) const override {
    BnormProblem r = p;
    if (!repair_shape(r.shape, step)) return std::nullopt;
    return fix_bnorm(r);
  }
  OpChoice choice_typed(const BnormProblem& p) const override {
    OpChoice c = shape_choice(p.shape);
    c["dir"] = bnorm_dir_name(p.dir);
    c["bnorm"] = bnorm_mode_name(p.mode);
    return c;
  }
  std::vector<std::string> classes_typed(const BnormProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.shape.dims(), out);
    add_tail_classes(p.group_size(), out);
    add_tail_classes(p.shape.elements(), out);  // the elementwise pass over x
    if (p.group_size() > kBlock) out.push_back("bnorm:M>block");
    if (p.group_size() <= 2) out.push_back("bnorm:M<=2");
    return out;
  }
};

// ---- softmax ----
constexpr SoftmaxDir kSoftmaxDirs[] = {SoftmaxDir::fwd, SoftmaxDir::bwd};
constexpr SoftmaxAlgo kSoftmaxAlgos[] = {SoftmaxAlgo::accurate, SoftmaxAlgo::fast, SoftmaxAlgo::log};
constexpr SoftmaxMode kSoftmaxModes[] = {SoftmaxMode::channel, SoftmaxMode::instance};

class SoftmaxGen final : public TypedOpGen<SoftmaxProblem> {
 public:
  std::vector<OpAxis> axes() const override {
    return {{"dir", names_of(kSoftmaxDirs, softmax_dir_name)},
            {"softmax", names_of(kSoftmaxAlgos, softmax_algo_name)},
            {"softmax.mode", names_of(kSoftmaxModes, softmax_mode_name)},
            dtype_axis(),
            shape_layout_axis()};
  }
  std::vector<std::string> feature_classes(const OpDomain&) const override {
    auto v = common_feature_classes();
    for (const char* c : {"softmax:row1", "softmax:row>block", "softmax:rows>=4"}) v.push_back(c);
    return v;
  }

 protected:
  std::optional<SoftmaxProblem> anchor_typed(const OpChoice& c) const override {
    SoftmaxProblem p;
    p.dir = value_named(kSoftmaxDirs, softmax_dir_name, c.at("dir"));
    p.algo = value_named(kSoftmaxAlgos, softmax_algo_name, c.at("softmax"));
    p.mode = value_named(kSoftmaxModes, softmax_mode_name, c.at("softmax.mode"));
    p.shape = anchor_shape(c);
    return p;
  }
  rc::Gen<SoftmaxProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "dir", kSoftmaxDirs, softmax_dir_name), enum_gen(d, "softmax", kSoftmaxAlgos, softmax_algo_name),
                                       enum_gen(d, "softmax.mode", kSoftmaxModes, softmax_mode_name), op_shape_gen(d, lim, lim.max_row_c)),
                        [lim](const std::tuple<SoftmaxDir, SoftmaxAlgo, SoftmaxMode, OpShape>& t) {
                          SoftmaxProblem p;
                          std::tie(p.dir, p.algo, p.mode, p.shape) = t;
                          fit_shape(p.shape, lim.max_elements);
                          return p;
                        });
  }
  OpChoice choice_typed(const SoftmaxProblem& p) const override {
    OpChoice c = shape_choice(p.shape);
    c["dir"] = softmax_dir_name(p.dir);
    c["softmax"] = softmax_algo_name(p.algo);
    c["softmax.mode"] = softmax_mode_name(p.mode);
    return c;
  }
  std::vector<std::string> classes_typed(const SoftmaxProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.shape.dims(), out);
    add_tail_classes(p.row_length(), out);
    if (p.row_length() == 1) out.push_back("softmax:row1");
    if (p.row_length() > kBlock) out.push_back("softmax:row>block");
    if (p.rows() >= 4) out.push_back("softmax:rows>=4");  // the fill scales every 4th row to magnitude 1e4
    return out;
  }
};

// ---- lrn ----
constexpr LrnDir kLrnDirs[] = {LrnDir::fwd, LrnDir::bwd};
constexpr LrnMode kLrnModes[] = {LrnMode::across, LrnMode::within};

class LrnGen final : public TypedOpGen<LrnProblem> {
 public:
  std::vector<OpAxis> axes() const override {
    return {{"dir", names_of(kLrnDirs, lrn_dir_name)}, {"lrn", names_of(kLrnModes, lrn_mode_name)}, dtype_axis(), shape_layout_axis()};
  }
  std::vector<std::string> feature_classes(const OpDomain& d) const override {
    auto v = common_feature_classes();
    v.push_back("lrn:window1");
    if (d.allows("lrn", "across")) v.push_back("lrn:window>c");
    if (d.allows("lrn", "within")) v.push_back("lrn:window>spatial");
    return v;
  }

 protected:
  std::optional<LrnProblem> anchor_typed(const OpChoice& c) const override {
    LrnProblem p;
    p.dir = value_named(kLrnDirs, lrn_dir_name, c.at("dir"));
    p.mode = value_named(kLrnModes, lrn_mode_name, c.at("lrn"));
    p.shape = anchor_shape(c);
    p.size = 3;
    return p;
  }
  rc::Gen<LrnProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "dir", kLrnDirs, lrn_dir_name), enum_gen(d, "lrn", kLrnModes, lrn_mode_name),
                                       op_shape_gen(d, lim, lim.max_c), pick<std::int64_t>({{2, 1}, {3, 3}, {3, 5}, {1, 7}, {1, 9}, {1, 13}, {1, 17}}),
                                       pick<double>({{2, 1e-4}, {1, 1.0}, {1, 0.01}}), pick<double>({{2, 0.75}, {1, 0.5}, {1, 1.0}, {1, 2.0}}),
                                       pick<double>({{2, 1.0}, {1, 2.0}, {1, 0.5}})),
                        [lim](const std::tuple<LrnDir, LrnMode, OpShape, std::int64_t, double, double, double>& t) {
                          LrnProblem p;
                          std::tie(p.dir, p.mode, p.shape, p.size, p.alpha, p.beta, p.k) = t;
                          // within: a box of size^rank per element; 3D boxes are kept small.
                          if (p.mode == LrnMode::within && p.shape.rank() == 3) p.size = std::min<std::int64_t>(p.size, 5);
                          fit_shape(p.shape, lim.max_elements, std::max<std::int64_t>(1, p.area() / 16));
                          return p;
                        });
  }
  OpChoice choice_typed(const LrnProblem& p) const override {
    OpChoice c = shape_choice(p.shape);
    c["dir"] = lrn_dir_name(p.dir);
    c["lrn"] = lrn_mode_name(p.mode);
    return c;
  }
  std::vector<std::string> classes_typed(const LrnProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes(p.shape.dims(), out);
    add_tail_classes(p.shape.elements(), out);
    if (p.size == 1) out.push_back("lrn:window1");
    if (p.mode == LrnMode::across && p.size > p.shape.c) out.push_back("lrn:window>c");
    bool wider = false;
    for (auto v : p.shape.in) wider = wider || p.size > v;
    if (p.mode == LrnMode::within && wider) out.push_back("lrn:window>spatial");
    return out;
  }
};

}  // namespace

OpGeneratorPtr make_bnorm_gen() { return std::make_shared<BnormGen>(); }
OpGeneratorPtr make_softmax_gen() { return std::make_shared<SoftmaxGen>(); }
OpGeneratorPtr make_lrn_gen() { return std::make_shared<LrnGen>(); }

}  // namespace hiprim::fuzz
