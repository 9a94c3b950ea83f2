// The generator of rnn problems (core/rnn_problem.hpp): direction of work, mode (relu, tanh, LSTM,
// GRU), uni/bidirectional, bias or not, dtype (16-bit: math=h16 in half the cases); layers 1..3, seq, n, hidden, input corner-biased. Its
// corners: seq 1 (no recurrence), one sample, hidden 1, stacked bidirectional layers (layer 1 reads
// 2H), G*H and T*N past the GEMM's 64-wide tile. Shrinks seq, n, hidden, input and layers toward 1,
// fp32, fwd, relu, uni and bias first. The case cost (the double reference and its bound walk
// T*N*L*D*G*H*(X+H) products) is kept under max_elements * 64 by halving the largest size.
#include <rapidcheck/gen/Transform.h>
#include <rapidcheck/gen/Tuple.h>

#include "core/rnn_problem.hpp"
#include "fuzz/op_gen_typed.hpp"

namespace hiprim::fuzz {
namespace {

constexpr std::int64_t kTile = 64;  // the GEMM tile's M and N
constexpr RnnDir kDirs[] = {RnnDir::fwd, RnnDir::bwd_data, RnnDir::bwd_weights};
constexpr RnnMode kModes[] = {RnnMode::relu, RnnMode::tanh, RnnMode::lstm, RnnMode::gru};

double rnn_cost(const RnnProblem& p) {
  double c = 0;
  for (std::int64_t l = 0; l < p.layers; ++l)
    c += double(p.seq * p.n * p.directions()) * p.gates() * p.hidden * (p.layer_input(l) + p.hidden);
  return c;
}

void fit_rnn(RnnProblem& p, std::int64_t max_elements) {
  const double cap = 64.0 * static_cast<double>(max_elements);
  while (rnn_cost(p) > cap) {
    std::int64_t* big = &p.seq;
    for (std::int64_t* v : {&p.hidden, &p.input, &p.n})
      if (*v > *big) big = v;
    if (*big > 1) *big = std::max<std::int64_t>(1, *big / 2);
    else if (p.layers > 1) --p.layers;
    else break;
  }
}

class RnnGen final : public TypedOpGen<RnnProblem> {
 public:
  std::vector<OpAxis> axes() const override {
    return {{"dir", names_of(kDirs, rnn_dir_name)}, {"rnn", names_of(kModes, rnn_mode_name)}, {"rnn.direction", {"uni", "bidir"}},
            {"rnn.bias", {"bias", "nobias"}}, dtype_axis()};
  }
  std::vector<std::string> feature_classes(const OpDomain& d) const override {
    auto v = common_feature_classes();
    for (const char* c : {"rnn:seq1", "rnn:n1", "rnn:gates>tile", "rnn:rows>tile"}) v.push_back(c);
    if (d.allows("rnn.direction", "uni")) v.push_back("rnn:stacked");
    if (d.allows("rnn.direction", "bidir")) v.push_back("rnn:stacked_bidir");
    return v;
  }

 protected:
  std::optional<RnnProblem> anchor_typed(const OpChoice& c) const override {
    RnnProblem p;
    p.dir = value_named(kDirs, rnn_dir_name, c.at("dir"));
    p.mode = value_named(kModes, rnn_mode_name, c.at("rnn"));
    p.bidirectional = c.at("rnn.direction") == "bidir";
    p.bias = c.at("rnn.bias") == "bias";
    p.dtype = dtype_of(c.at("dtype"));
    p.layers = 2, p.hidden = 4, p.input = 3, p.seq = 3, p.n = 2;
    return p;
  }
  rc::Gen<RnnProblem> gen_typed(const OpDomain& d, const OpGenLimits& lim) const override {
    std::vector<bool> bidir, bias;
    for (const auto& v : d.values("rnn.direction")) bidir.push_back(v == "bidir");
    for (const auto& v : d.values("rnn.bias")) bias.push_back(v == "bias");
    using Sizes = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::int64_t>;
    const auto sizes = rc::gen::tuple(pick<std::int64_t>({{3, 1}, {2, 2}, {1, 3}}), corner_size(1, 2 * lim.max_n),
                                      corner_size(1, 80), corner_size(1, 80), corner_size(1, 40));
    return rc::gen::map(rc::gen::tuple(enum_gen(d, "dir", kDirs, rnn_dir_name), enum_gen(d, "rnn", kModes, rnn_mode_name), any_of(bidir),
                                       any_of(bias), op_dtype_gen(d), sizes, any_of(std::vector<bool>{false, true})),
                        [lim](const std::tuple<RnnDir, RnnMode, bool, bool, DType, Sizes, bool>& t) {
                          RnnProblem p;
                          std::tie(p.dir, p.mode, p.bidirectional, p.bias, p.dtype, std::ignore, std::ignore) = t;
                          std::tie(p.layers, p.n, p.hidden, p.input, p.seq) = std::get<5>(t);
                          if (std::get<6>(t) && p.dtype != DType::fp32) p.math = RnnMath::h16;  // half the 16-bit cases
                          fit_rnn(p, lim.max_elements);
                          return p;
                        });
  }
  std::optional<RnnProblem> repair_typed(const RnnProblem& p, int step) const override {
    RnnProblem r = p;  // halve the largest size; nothing left: no repair
    std::int64_t* big = &r.seq;
    for (std::int64_t* v : {&r.hidden, &r.input, &r.n})
      if (*v > *big) big = v;
    if (*big <= 1 || step > 40) return std::nullopt;
    *big /= 2;
    return r;
  }
  OpChoice choice_typed(const RnnProblem& p) const override {
    return {{"dir", std::string(rnn_dir_name(p.dir))}, {"rnn", std::string(rnn_mode_name(p.mode))},
            {"rnn.direction", p.bidirectional ? "bidir" : "uni"}, {"rnn.bias", p.bias ? "bias" : "nobias"},
            {"dtype", std::string(dtype_name(p.dtype))}};
  }
  std::vector<std::string> classes_typed(const RnnProblem& p) const override {
    std::vector<std::string> out;
    add_shape_classes({p.seq, p.n, p.hidden, p.input}, out);
    add_tail_classes(p.n * p.hidden, out);  // the step kernels' (n, j) range
    if (p.seq == 1) out.push_back("rnn:seq1");
    if (p.n == 1) out.push_back("rnn:n1");
    if (p.layers > 1) out.push_back(p.bidirectional ? "rnn:stacked_bidir" : "rnn:stacked");
    if (p.gates() * p.hidden > kTile) out.push_back("rnn:gates>tile");
    if (p.seq * p.n > kTile) out.push_back("rnn:rows>tile");
    return out;
  }
};

}  // namespace

OpGeneratorPtr make_rnn_gen() { return std::make_shared<RnnGen>(); }

}  // namespace hiprim::fuzz
