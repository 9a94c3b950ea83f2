// The RNN reference (reference/rnn.hpp): one step against the cell formulas written out, the
// reverse direction against a forward run over the reversed sequence, and the backward pass against
// central differences of J = sum(dy*y) + sum(dhy*hy) + sum(dcy*cy) over every input, initial state
// and parameter, for every mode, uni/bidirectional, 1 and 2 layers, with and without biases; and
// PyTorch's nn.RNN / nn.LSTM / nn.GRU in double on 12 problems (outputs, final states, every gradient):
// a committed fixture made by tests/reference/fixtures/make_rnn_torch_fixture.py (torch 1.13).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "tests/input_error.hpp"
#include "core/rnn_problem.hpp"
#include "reference/rnn.hpp"

namespace hiprim {
namespace {

double sigm(double a) { return 1 / (1 + std::exp(-a)); }

std::vector<double> randoms(std::size_t n, std::mt19937& g, double scale = 0.5) {
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(n);
  for (double& x : v) x = u(g);
  return v;
}

ref::RnnInputs random_inputs(const RnnProblem& p, unsigned seed) {
  std::mt19937 g(seed);
  ref::RnnInputs in;
  in.x = randoms(p.seq * p.n * p.input, g, 1.0);
  const std::size_t states = p.layers * p.directions() * p.n * p.hidden;
  in.hx = randoms(states, g);
  if (p.mode == RnnMode::lstm) in.cx = randoms(states, g);
  in.weights = ref::rnn_weights_like(p);
  for (auto& lw : in.weights)
    for (auto* v : {&lw.w, &lw.r, &lw.bw, &lw.br}) *v = randoms(v->size(), g, 0.6);
  return in;
}

TEST(RnnProblem, CanonicalStringRoundTripsAndBadOnesSayWhy) {
  const RnnProblem p = parse_rnn_problem("rnn gru bf16 n3 seq5 input8 hidden16 layers2 bidir nobias bwd-weights");
  EXPECT_EQ(to_string(p), "rnn bwd-weights gru bf16 layers2 hidden16 input8 seq5 n3 bidir nobias");
  EXPECT_EQ(parse_rnn_problem(to_string(p)), p);
  EXPECT_EQ(p.gates(), 3);
  EXPECT_EQ(p.layer_input(1), 32);
  const RnnProblem h = parse_rnn_problem("rnn fwd lstm bf16 math=h16 layers1 hidden4 input4 seq2 n1 uni bias");
  EXPECT_EQ(h.math, RnnMath::h16);
  EXPECT_EQ(to_string(h), "rnn fwd lstm bf16 layers1 hidden4 input4 seq2 n1 uni bias math=h16");
  EXPECT_EQ(parse_rnn_problem(to_string(h)), h);
  auto message = [](const char* s) { return test::input_error_of([&] { parse_rnn_problem(s); }); };
  EXPECT_NE(message("rnn fwd lstm fp32 layers1 hidden4 input4 seq2 n1 uni bias math=h16").find("fp16/bf16 data only"), std::string::npos);
  EXPECT_NE(message("rnn fwd lstm fp32 layers0 hidden4 input4 seq2 n1 uni bias").find("layers = 0"), std::string::npos);
  EXPECT_NE(message("rnn fwd lstm fp32 layers1 hidden4 input4 seq2 n1 bias").find("direction mode"), std::string::npos);
  EXPECT_NE(message("rnn fwd lstm gru fp32 layers1 hidden4 input4 seq2 n1 uni bias").find("mode"), std::string::npos);
  EXPECT_NE(message("rnn fwd lstm fp32 layers1 hidden4 input4 seq2 n1 uni bias x9").find("x9"), std::string::npos);
  EXPECT_NE(message("rnn lstm fp32 layers1 hidden4 input4 seq2 n1 uni bias").find("direction fwd|bwd-data|bwd-weights"), std::string::npos);
  EXPECT_NE(message("rnn fwd bwd-data lstm fp32 layers1 hidden4 input4 seq2 n1 uni bias").find("direction"), std::string::npos);
}

// One step (T = N = 1) of each cell, from the header's formulas with the gate rows written out.
TEST(RnnReference, OneStepIsTheCellFormula) {
  for (RnnMode m : {RnnMode::relu, RnnMode::tanh, RnnMode::lstm, RnnMode::gru}) {
    RnnProblem p;
    p.mode = m, p.hidden = 2, p.input = 3;
    const ref::RnnInputs in = random_inputs(p, 11);
    const ref::RnnOutputs out = ref::rnn_forward(p, in);
    const ref::RnnLayerWeights& w = in.weights[0];
    const long long H = 2, X = 3;
    auto wx = [&](long long row) {  // (W x + bW)[row]
      double s = w.bw[row];
      for (long long k = 0; k < X; ++k) s += w.w[row * X + k] * in.x[k];
      return s;
    };
    auto rh = [&](long long row) {  // (R h0 + bR)[row]
      double s = w.br[row];
      for (long long k = 0; k < H; ++k) s += w.r[row * H + k] * in.hx[k];
      return s;
    };
    for (long long j = 0; j < H; ++j) {
      double h = 0, c = 0;
      if (m == RnnMode::relu) h = std::max(wx(j) + rh(j), 0.0);
      if (m == RnnMode::tanh) h = std::tanh(wx(j) + rh(j));
      if (m == RnnMode::lstm) {
        const double i = sigm(wx(j) + rh(j)), f = sigm(wx(H + j) + rh(H + j)), o = sigm(wx(2 * H + j) + rh(2 * H + j));
        const double g = std::tanh(wx(3 * H + j) + rh(3 * H + j));
        c = f * in.cx[j] + i * g;
        h = o * std::tanh(c);
        EXPECT_NEAR(out.cy[j], c, 1e-15);
      }
      if (m == RnnMode::gru) {
        const double z = sigm(wx(j) + rh(j)), r = sigm(wx(H + j) + rh(H + j));
        const double n = std::tanh(wx(2 * H + j) + r * rh(2 * H + j));
        h = (1 - z) * n + z * in.hx[j];
      }
      EXPECT_NEAR(out.y[j], h, 1e-15) << rnn_mode_name(m) << " unit " << j;
      EXPECT_NEAR(out.hy[j], h, 1e-15);
    }
  }
}

// The reverse direction of a bidirectional layer is a forward run over the reversed sequence.
TEST(RnnReference, ReverseDirectionIsAForwardRunOverTheReversedSequence) {
  RnnProblem bi = parse_rnn_problem("rnn fwd lstm fp32 layers1 hidden3 input2 seq4 n2 bidir bias"), uni = bi;
  uni.bidirectional = false;
  const ref::RnnInputs in = random_inputs(bi, 5);
  ref::RnnInputs rev;
  rev.weights = {in.weights[1]};
  rev.hx.assign(in.hx.begin() + 6, in.hx.end()), rev.cx.assign(in.cx.begin() + 6, in.cx.end());
  for (long long t = 3; t >= 0; --t) rev.x.insert(rev.x.end(), in.x.begin() + t * 4, in.x.begin() + t * 4 + 4);
  const ref::RnnOutputs a = ref::rnn_forward(bi, in), b = ref::rnn_forward(uni, rev);
  for (long long t = 0; t < 4; ++t)
    for (long long n = 0; n < 2; ++n)
      for (long long j = 0; j < 3; ++j) ASSERT_NEAR(a.y[((t * 2 + n) * 2 + 1) * 3 + j], b.y[((3 - t) * 2 + n) * 3 + j], 1e-15);
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(a.hy[6 + k], b.hy[k], 1e-15);
}

double objective(const RnnProblem& p, const ref::RnnInputs& in, const std::vector<double>& dy, const std::vector<double>& dhy,
                 const std::vector<double>& dcy) {
  const ref::RnnOutputs o = ref::rnn_forward(p, in);
  double j = 0;
  for (std::size_t i = 0; i < o.y.size(); ++i) j += dy[i] * o.y[i];
  for (std::size_t i = 0; i < o.hy.size(); ++i) j += dhy[i] * o.hy[i];
  for (std::size_t i = 0; i < o.cy.size(); ++i) j += dcy[i] * o.cy[i];
  return j;
}

TEST(RnnReference, BackwardEqualsCentralDifferences) {
  int checked = 0;
  for (const char* mode : {"relu", "tanh", "lstm", "gru"})
    for (const char* shape : {"layers1 hidden3 input2 seq3 n2 uni bias", "layers2 hidden2 input3 seq3 n1 bidir bias",
                              "layers2 hidden2 input2 seq2 n2 uni nobias"}) {
      const RnnProblem p = parse_rnn_problem(std::string("rnn fwd ") + mode + " fp32 " + shape);
      ref::RnnInputs in = random_inputs(p, 17);
      std::mt19937 g(23);
      const ref::RnnOutputs o = ref::rnn_forward(p, in);
      const std::vector<double> dy = randoms(o.y.size(), g, 1.0), dhy = randoms(o.hy.size(), g, 1.0),
                                dcy = randoms(o.cy.size(), g, 1.0);
      const ref::RnnGradients gr = ref::rnn_backward(p, in, dy, dhy, dcy);
      // Every scalar the pass reads, with the gradient the backward pass gives for it.
      std::vector<std::pair<double*, double>> vars;
      for (std::size_t i = 0; i < in.x.size(); ++i) vars.push_back({&in.x[i], gr.dx[i]});
      for (std::size_t i = 0; i < in.hx.size(); ++i) vars.push_back({&in.hx[i], gr.dhx[i]});
      for (std::size_t i = 0; i < in.cx.size(); ++i) vars.push_back({&in.cx[i], gr.dcx[i]});
      for (std::size_t l = 0; l < in.weights.size(); ++l) {
        auto& w = in.weights[l];
        const auto& dw = gr.dweights[l];
        for (auto [v, dv] : {std::pair{&w.w, &dw.w}, std::pair{&w.r, &dw.r}, std::pair{&w.bw, &dw.bw}, std::pair{&w.br, &dw.br}})
          for (std::size_t i = 0; i < v->size(); ++i) vars.push_back({&(*v)[i], (*dv)[i]});
      }
      const double h = 1e-6;
      for (auto [ptr, grad] : vars) {
        const double x = *ptr;
        *ptr = x + h;
        const double up = objective(p, in, dy, dhy, dcy);
        *ptr = x - h;
        const double down = objective(p, in, dy, dhy, dcy);
        *ptr = x;
        const double fd = (up - down) / (2 * h);
        ASSERT_NEAR(grad, fd, 1e-7 * std::max(1.0, std::fabs(fd))) << to_string(p);
        ++checked;
      }
    }
  EXPECT_GT(checked, 500);
}

std::vector<double> doubles(const nlohmann::json& j) { return j.get<std::vector<double>>(); }

void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-12 * std::max(1.0, std::fabs(want[i]))) << what << "[" << i << "]";
}

TEST(RnnReference, EqualsPyTorchInDouble) {
  std::ifstream f(HIPRIM_RNN_TORCH_FIXTURE);
  ASSERT_TRUE(f) << HIPRIM_RNN_TORCH_FIXTURE;
  const nlohmann::json fx = nlohmann::json::parse(f);
  ASSERT_EQ(fx["cases"].size(), 12u);
  for (const auto& c : fx["cases"]) {
    const RnnProblem p = parse_rnn_problem("rnn fwd " + c["problem"].get<std::string>().substr(4));  // the fixture predates dir
    const std::string name = to_string(p);
    ref::RnnInputs in;
    in.x = doubles(c["x"]), in.hx = doubles(c["hx"]), in.cx = doubles(c["cx"]);
    for (const auto& w : c["weights"]) in.weights.push_back({doubles(w["w"]), doubles(w["r"]), doubles(w["bw"]), doubles(w["br"])});
    const ref::RnnOutputs o = ref::rnn_forward(p, in);
    expect_close(o.y, doubles(c["y"]), name + " y");
    expect_close(o.hy, doubles(c["hy"]), name + " hy");
    expect_close(o.cy, doubles(c["cy"]), name + " cy");
    const ref::RnnGradients g = ref::rnn_backward(p, in, doubles(c["dy"]), doubles(c["dhy"]), doubles(c["dcy"]));
    expect_close(g.dx, doubles(c["dx"]), name + " dx");
    expect_close(g.dhx, doubles(c["dhx"]), name + " dhx");
    expect_close(g.dcx, doubles(c["dcx"]), name + " dcx");
    for (std::size_t l = 0; l < g.dweights.size(); ++l) {
      const auto& w = c["dweights"][l];
      expect_close(g.dweights[l].w, doubles(w["w"]), name + " dW " + std::to_string(l));
      expect_close(g.dweights[l].r, doubles(w["r"]), name + " dR " + std::to_string(l));
      expect_close(g.dweights[l].bw, doubles(w["bw"]), name + " dbW " + std::to_string(l));
      expect_close(g.dweights[l].br, doubles(w["br"]), name + " dbR " + std::to_string(l));
    }
  }
}

}  // namespace
}  // namespace hiprim
