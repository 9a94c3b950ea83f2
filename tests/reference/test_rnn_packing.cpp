// rnn's weight layouts (core/rnn_problem.hpp: RnnProblem::packing, reference/rnn_packing.hpp):
// MIOpen's offsets against a transcription of MIOpen's own arithmetic (src/rnn.cpp,
// paramsOffsetCalculation / biasOffsetCalculation with the bias block after every matrix, linear
// input mode), PyTorch's gate permutation against its documented order, round trips; and the bound
// pass of reference/rnn_bound.hpp evaluates the same model as the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.hpp"
#include "core/rnn_problem.hpp"
#include "reference/rnn.hpp"
#include "reference/rnn_bound.hpp"
#include "reference/rnn_packing.hpp"

namespace hiprim {
namespace {

// MIOpen's paramsOffsetCalculation(xDesc, layer, paramID) (pseudo layer = layer*D + direction;
// paramID < G: the input matrix of gate paramID, else the hidden matrix of gate paramID - G),
// written out from its source for the linear input mode.
long long miopen_param_offset(bool bidir, long long X, long long H, long long G, long long layer, long long id) {
  long long j = 0;
  if (bidir) {
    if (layer > 1) {
      j += (X * H + H * H) * G * 2;
      j += (H * H * 2 + H * H) * G * (layer / 2 - 1) * 2;
      if (id >= G) {
        j += H * H * 2 * G * 2;
        j += layer % 2 == 1 ? G * H * H : 0;
        j += H * H * (id - G);
      } else {
        j += layer % 2 == 1 ? G * (2 * H * H) : 0;
        j += 2 * H * H * id;
      }
    } else if (id >= G) {
      j += X * H * G * 2;
      j += layer == 1 ? G * H * H : 0;
      j += H * H * (id - G);
    } else {
      j += layer == 1 ? G * X * H : 0;
      j += X * H * id;
    }
  } else if (layer > 0) {
    j += (X * H + H * H) * G;
    j += H * H * 2 * G * (layer - 1);
    j += H * H * id;
  } else if (id >= G) {
    j += X * H * G;
    j += H * H * (id - G);
  } else {
    j += X * H * id;
  }
  return j;
}

// biasOffsetCalculation + paramsOffsetCalculation(xDesc, L*D, 0) (GetLayerBias).
long long miopen_bias_offset(bool bidir, long long X, long long H, long long G, long long L, long long layer, long long id) {
  long long j = miopen_param_offset(bidir, X, H, G, L * (bidir ? 2 : 1), 0);
  if (bidir) {
    if (layer > 1) j += (H + H) * G * 2 + (H * 2) * G * (layer / 2 - 1) * 2;
    if (id >= G) j += H * G;
    j += layer % 2 == 1 ? G * H : 0;
    j += H * id;
  } else {
    if (layer > 0) j += (H + H) * G + (H * 2) * G * (layer - 1);
    j += H * id;
  }
  return j;
}

TEST(RnnPacking, OffsetsAreMIOpens) {
  int checked = 0;
  for (RnnMode m : {RnnMode::relu, RnnMode::lstm, RnnMode::gru})
    for (bool bidir : {false, true})
      for (long long L : {1, 2, 3})
        for (auto [X, H] : {std::pair{3LL, 5LL}, std::pair{7LL, 2LL}}) {
          RnnProblem p;
          p.mode = m, p.bidirectional = bidir, p.layers = L, p.input = X, p.hidden = H;
          const long long G = p.gates();
          long long size = 0;
          for (long long l = 0; l < L; ++l)
            for (int d = 0; d < p.directions(); ++d) {
              const RnnPacking k = p.packing(l, d);
              const long long pseudo = l * p.directions() + d, in = p.layer_input(l);
              for (long long g = 0; g < G; ++g) {
                EXPECT_EQ(k.w + g * H * in, miopen_param_offset(bidir, X, H, G, pseudo, g)) << to_string(p) << " l" << l << " d" << d;
                EXPECT_EQ(k.r + g * H * H, miopen_param_offset(bidir, X, H, G, pseudo, G + g)) << to_string(p);
                EXPECT_EQ(k.bw + g * H, miopen_bias_offset(bidir, X, H, G, L, pseudo, g)) << to_string(p);
                EXPECT_EQ(k.br + g * H, miopen_bias_offset(bidir, X, H, G, L, pseudo, G + g)) << to_string(p);
                ++checked;
              }
              size += G * H * (in + H) + 2 * G * H;
            }
          EXPECT_EQ(p.weights(), size) << to_string(p);
          p.bias = false;
          EXPECT_EQ(p.weights(), size - 2 * G * H * L * p.directions());
        }
  EXPECT_GT(checked, 100);
}

ref::RnnWeights numbered(const RnnProblem& p) {  // every parameter a distinct value
  ref::RnnWeights w = ref::rnn_weights_like(p);
  double v = 1;
  for (auto& lw : w)
    for (auto* x : {&lw.w, &lw.r, &lw.bw, &lw.br})
      for (auto& e : *x) e = v++;
  return w;
}

TEST(RnnPacking, TorchGateOrderAndRoundTrips) {
  // LSTM: PyTorch stacks (i, f, g, o), MIOpen (i, f, o, g); GRU: PyTorch (r, z, n), MIOpen (z, r, n).
  const char* const torch_names[2][4] = {{"i", "f", "g", "o"}, {"r", "z", "n", ""}};
  const char* const miopen_names[2][4] = {{"i", "f", "o", "g"}, {"z", "r", "n", ""}};
  for (int mi = 0; mi < 2; ++mi) {
    const RnnMode mode = mi == 0 ? RnnMode::lstm : RnnMode::gru;
    const RnnProblem p = parse_rnn_problem(std::string("rnn fwd ") + (mi == 0 ? "lstm" : "gru") + " fp32 layers2 hidden3 input4 seq2 n1 bidir bias");
    const ref::RnnWeights w = numbered(p);
    const auto params = ref::to_torch_params(p, w);
    ASSERT_EQ(params.size(), 16u);
    EXPECT_EQ(params[0].name, "weight_ih_l0");
    EXPECT_EQ(params[5].name, "weight_hh_l0_reverse");
    EXPECT_EQ(params[15].name, "bias_hh_l1_reverse");
    const long long H = 3, G = p.gates();
    for (long long tg = 0; tg < G; ++tg) {  // PyTorch gate tg holds MIOpen's gate of the same name
      long long mg = 0;
      while (std::string(miopen_names[mi][mg]) != torch_names[mi][tg]) ++mg;
      EXPECT_EQ(ref::torch_gate_of_miopen(mode, static_cast<int>(mg)), tg);
      const auto& wih = params[4].value;  // weight_ih_l0_reverse [G*H][4]
      for (long long k = 0; k < H * 4; ++k) EXPECT_EQ(wih[tg * H * 4 + k], w[1].w[mg * H * 4 + k]);
      const auto& bhh = params[15].value;  // bias_hh_l1_reverse
      for (long long k = 0; k < H; ++k) EXPECT_EQ(bhh[tg * H + k], w[3].br[mg * H + k]);
    }
    const ref::RnnWeights back = ref::from_torch_params(p, params);
    for (std::size_t i = 0; i < w.size(); ++i) {
      EXPECT_EQ(back[i].w, w[i].w);
      EXPECT_EQ(back[i].r, w[i].r);
      EXPECT_EQ(back[i].bw, w[i].bw);
      EXPECT_EQ(back[i].br, w[i].br);
    }
    const auto packed = ref::pack_miopen_weights(p, w);
    const ref::RnnWeights un = ref::unpack_miopen_weights(p, packed);
    for (std::size_t i = 0; i < w.size(); ++i) EXPECT_EQ(un[i].w, w[i].w);
    EXPECT_EQ(packed[p.packing(1, 1).br], w[3].br[0]);
    EXPECT_EQ(packed[p.packing(0, 1).r + 1], w[1].r[1]);
  }
  const RnnProblem p = parse_rnn_problem("rnn fwd tanh fp32 layers1 hidden2 input2 seq1 n1 uni nobias");
  auto params = ref::to_torch_params(p, numbered(p));
  EXPECT_EQ(params.size(), 2u);
  params.pop_back();
  EXPECT_THROW(ref::from_torch_params(p, params), InputError);
}

// The bound pass evaluates the model in double in its own order: its values equal the reference's.
TEST(RnnBound, ValuesAreTheReferencesAndBoundsAreFinite) {
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> U(-1, 1);
  for (const char* s : {"rnn fwd lstm fp32 layers2 hidden3 input2 seq3 n2 bidir bias", "rnn fwd gru fp32 layers2 hidden2 input3 seq4 n2 bidir bias",
                        "rnn fwd relu fp32 layers2 hidden3 input2 seq3 n2 uni nobias", "rnn fwd tanh fp32 layers1 hidden4 input2 seq2 n3 bidir bias"}) {
    const RnnProblem p = parse_rnn_problem(s);
    ref::RnnInputs in;
    auto rnd = [&](std::size_t n) {
      std::vector<double> v(n);
      for (auto& x : v) x = U(g);
      return v;
    };
    const long long states = p.layers * p.directions() * p.n * p.hidden;
    in.x = rnd(p.seq * p.n * p.input), in.hx = rnd(states);
    if (p.lstm()) in.cx = rnd(states);
    in.weights = ref::rnn_weights_like(p);
    for (auto& lw : in.weights)
      for (auto* v : {&lw.w, &lw.r, &lw.bw, &lw.br}) *v = rnd(v->size());
    const std::vector<double> dy = rnd(p.seq * p.n * p.directions() * p.hidden), dhy = rnd(states), dcy = p.lstm() ? rnd(states) : std::vector<double>{};
    const ref::RnnOutputs o = ref::rnn_forward(p, in);
    const ref::RnnGradients gr = ref::rnn_backward(p, in, dy, dhy, dcy);
    const ref::RnnBounds b = ref::rnn_bounds(p, in, true, dy, dhy, dcy);
    auto same = [&](const std::vector<double>& a, const std::vector<double>& e, const std::vector<double>& bound, const char* what) {
      ASSERT_EQ(a.size(), e.size()) << s << what;
      ASSERT_EQ(bound.size(), e.size()) << s << what;
      for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_NEAR(a[i], e[i], 1e-13 * std::max(1.0, std::fabs(e[i]))) << s << " " << what << i;
        EXPECT_TRUE(bound[i] >= 0 && std::isfinite(bound[i])) << s << " " << what << i;
      }
    };
    same(b.fwd_values.y, o.y, b.fwd.y, "y");
    same(b.fwd_values.hy, o.hy, b.fwd.hy, "hy");
    same(b.fwd_values.cy, o.cy, b.fwd.cy, "cy");
    same(b.bwd_values.dx, gr.dx, b.bwd.dx, "dx");
    same(b.bwd_values.dhx, gr.dhx, b.bwd.dhx, "dhx");
    same(b.bwd_values.dcx, gr.dcx, b.bwd.dcx, "dcx");
    for (std::size_t l = 0; l < gr.dweights.size(); ++l) {
      same(b.bwd_values.dweights[l].w, gr.dweights[l].w, b.bwd.dweights[l].w, "dW");
      same(b.bwd_values.dweights[l].r, gr.dweights[l].r, b.bwd.dweights[l].r, "dR");
      same(b.bwd_values.dweights[l].bw, gr.dweights[l].bw, b.bwd.dweights[l].bw, "dbW");
      same(b.bwd_values.dweights[l].br, gr.dweights[l].br, b.bwd.dweights[l].br, "dbR");
    }
  }
}

}  // namespace
}  // namespace hiprim
