#include "reference/rnn.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/rnn_chunks.hpp"

namespace hiprim::ref {
namespace {

double sigm(double a) { return 1.0 / (1.0 + std::exp(-a)); }

// The sizes of one problem, as plain integers.
struct Sizes {
  long long T, N, H, G, D, L;
  explicit Sizes(const RnnProblem& p)
      : T(p.seq), N(p.n), H(p.hidden), G(p.gates()), D(p.directions()), L(p.layers) {}
};

// One layer and direction over the whole sequence: what the backward pass needs per step s (in
// processing order: t = s forward, T-1-s reverse): the gate activations act [s][n][G*H] (relu/tanh:
// h itself; LSTM i f o g; GRU z r n), c [s][n][H] (LSTM), h [s][n][H], q = R_n h_prev + bR_n (GRU).
using Trace = RnnTrace;

Trace run_direction(const RnnProblem& p, const RnnLayerWeights& lw, long long in_dim, const std::vector<double>& in,
                    const double* h0, const double* c0, bool reverse) {
  const Sizes d(p);
  const long long GH = d.G * d.H;
  Trace tr;
  tr.act.assign(d.T * d.N * GH, 0), tr.h.assign(d.T * d.N * d.H, 0), tr.c.assign(tr.h.size(), 0), tr.q.assign(tr.h.size(), 0);
  for_rnn_chunks(d.N, [&](long long, long long n_lo, long long n_hi) {
  std::vector<double> a(GH), rq(d.H);
  for (long long s = 0; s < d.T; ++s) {
    const long long t = reverse ? d.T - 1 - s : s;
    for (long long n = n_lo; n < n_hi; ++n) {
      const double* x = &in[(t * d.N + n) * in_dim];
      const double* hp = s == 0 ? h0 + n * d.H : &tr.h[((s - 1) * d.N + n) * d.H];
      const double* cp = s == 0 ? c0 + n * d.H : &tr.c[((s - 1) * d.N + n) * d.H];
      for (long long g = 0; g < GH; ++g) {
        double wx = p.bias ? lw.bw[g] : 0.0, rh = p.bias ? lw.br[g] : 0.0;
        for (long long k = 0; k < in_dim; ++k) wx += lw.w[g * in_dim + k] * x[k];
        for (long long k = 0; k < d.H; ++k) rh += lw.r[g * d.H + k] * hp[k];
        a[g] = wx + rh;
        if (p.mode == RnnMode::gru && g >= 2 * d.H) a[g] = wx, rq[g - 2 * d.H] = rh;  // n's R part waits for r
      }
      double* act = &tr.act[(s * d.N + n) * GH];
      double* h = &tr.h[(s * d.N + n) * d.H];
      double* c = &tr.c[(s * d.N + n) * d.H];
      double* q = &tr.q[(s * d.N + n) * d.H];
      for (long long j = 0; j < d.H; ++j) {
        switch (p.mode) {
          case RnnMode::relu: h[j] = act[j] = std::max(a[j], 0.0); break;
          case RnnMode::tanh: h[j] = act[j] = std::tanh(a[j]); break;
          case RnnMode::lstm: {
            const double i = sigm(a[j]), f = sigm(a[d.H + j]), o = sigm(a[2 * d.H + j]), gg = std::tanh(a[3 * d.H + j]);
            act[j] = i, act[d.H + j] = f, act[2 * d.H + j] = o, act[3 * d.H + j] = gg;
            c[j] = f * cp[j] + i * gg;
            h[j] = o * std::tanh(c[j]);
            break;
          }
          case RnnMode::gru: {
            const double z = sigm(a[j]), r = sigm(a[d.H + j]);
            q[j] = rq[j];
            const double nn = std::tanh(a[2 * d.H + j] + r * rq[j]);
            act[j] = z, act[d.H + j] = r, act[2 * d.H + j] = nn;
            h[j] = (1 - z) * nn + z * hp[j];
            break;
          }
        }
      }
    }
  }
  });
  return tr;
}

using Pass = RnnForwardPass;

}  // namespace

RnnForwardPass rnn_forward_pass(const RnnProblem& p, const RnnInputs& in) {
  if (auto e = p.validate(); !e.empty()) throw InputError("rnn reference: invalid problem " + to_string(p) + ": " + e.front());
  const Sizes d(p);
  const long long states = d.L * d.D * d.N * d.H;
  if (static_cast<long long>(in.x.size()) != d.T * d.N * p.input) throw InputError("rnn reference: x has the wrong size");
  if (static_cast<long long>(in.weights.size()) != d.L * d.D) throw InputError("rnn reference: weights for the wrong layer count");
  const std::vector<double> zeros(states, 0.0);
  const std::vector<double>& hx = in.hx.empty() ? zeros : in.hx;
  const std::vector<double>& cx = in.cx.empty() ? zeros : in.cx;
  if (static_cast<long long>(hx.size()) != states || static_cast<long long>(cx.size()) != states)
    throw InputError("rnn reference: hx or cx has the wrong size");
  Pass ps;
  ps.out.hy.assign(states, 0);
  if (p.mode == RnnMode::lstm) ps.out.cy.assign(states, 0);
  std::vector<double> cur = in.x;
  for (long long l = 0; l < d.L; ++l) {
    const long long in_dim = p.layer_input(l);
    ps.layer_in.push_back(cur);
    std::vector<double> out(d.T * d.N * d.D * d.H);
    for (long long dir = 0; dir < d.D; ++dir) {
      const long long idx = l * d.D + dir;
      Trace tr = run_direction(p, in.weights[idx], in_dim, cur, &hx[idx * d.N * d.H], &cx[idx * d.N * d.H], dir == 1);
      for (long long s = 0; s < d.T; ++s) {
        const long long t = dir == 1 ? d.T - 1 - s : s;
        for (long long n = 0; n < d.N; ++n)
          for (long long j = 0; j < d.H; ++j) out[((t * d.N + n) * d.D + dir) * d.H + j] = tr.h[(s * d.N + n) * d.H + j];
      }
      for (long long k = 0; k < d.N * d.H; ++k) {
        ps.out.hy[idx * d.N * d.H + k] = tr.h[(d.T - 1) * d.N * d.H + k];
        if (p.mode == RnnMode::lstm) ps.out.cy[idx * d.N * d.H + k] = tr.c[(d.T - 1) * d.N * d.H + k];
      }
      ps.traces.push_back(std::move(tr));
    }
    cur = std::move(out);
  }
  ps.out.y = std::move(cur);
  return ps;
}

RnnWeights rnn_weights_like(const RnnProblem& p) {
  RnnWeights w(static_cast<std::size_t>(p.layers * p.directions()));
  const long long GH = p.gates() * p.hidden;
  for (long long l = 0; l < p.layers; ++l)
    for (int dir = 0; dir < p.directions(); ++dir) {
      RnnLayerWeights& lw = w[static_cast<std::size_t>(l * p.directions() + dir)];
      lw.w.assign(GH * p.layer_input(l), 0.0), lw.r.assign(GH * p.hidden, 0.0);
      if (p.bias) lw.bw.assign(GH, 0.0), lw.br.assign(GH, 0.0);
    }
  return w;
}

RnnOutputs rnn_forward(const RnnProblem& p, const RnnInputs& in) { return rnn_forward_pass(p, in).out; }

RnnGradients rnn_backward(const RnnProblem& p, const RnnInputs& in, const std::vector<double>& dy, const std::vector<double>& dhy,
                          const std::vector<double>& dcy) {
  const Pass ps = rnn_forward_pass(p, in);
  const Sizes d(p);
  const long long GH = d.G * d.H, states = d.L * d.D * d.N * d.H;
  if (dy.size() != ps.out.y.size()) throw InputError("rnn reference: dy has the wrong size");
  const std::vector<double> zeros(states, 0.0);
  const std::vector<double>& hx = in.hx.empty() ? zeros : in.hx;
  const std::vector<double>& cx = in.cx.empty() ? zeros : in.cx;
  RnnGradients gr;
  gr.dweights = rnn_weights_like(p);
  gr.dhx.assign(states, 0);
  if (p.mode == RnnMode::lstm) gr.dcx.assign(states, 0);
  std::vector<double> d_out = dy;  // the gradient of the current layer's output [T][N][D*H]
  for (long long l = d.L - 1; l >= 0; --l) {
    const long long in_dim = p.layer_input(l);
    const std::vector<double>& lin = ps.layer_in[l];
    std::vector<double> d_in(lin.size(), 0.0);
    for (long long dir = 0; dir < d.D; ++dir) {
      const long long idx = l * d.D + dir;
      const Trace& tr = ps.traces[idx];
      const RnnLayerWeights& lw = in.weights[idx];
      // The parameter gradients per chunk of samples, added in chunk order below (reference/rnn_chunks.hpp).
      std::vector<RnnLayerWeights> parts(rnn_chunks(d.N), gr.dweights[idx]);
      std::vector<double> dh_next(d.N * d.H, 0.0), dc_next(d.N * d.H, 0.0);
      for (long long k = 0; k < d.N * d.H; ++k) {
        if (!dhy.empty()) dh_next[k] = dhy[idx * d.N * d.H + k];
        if (!dcy.empty()) dc_next[k] = dcy[idx * d.N * d.H + k];
      }
      for_rnn_chunks(d.N, [&](long long chunk, long long n_lo, long long n_hi) {
      RnnLayerWeights& dw = parts[chunk];
      std::vector<double> da(GH);
      for (long long s = d.T - 1; s >= 0; --s) {
        const long long t = dir == 1 ? d.T - 1 - s : s;
        for (long long n = n_lo; n < n_hi; ++n) {
          const double* x = &lin[(t * d.N + n) * in_dim];
          const double* hp = s == 0 ? &hx[(idx * d.N + n) * d.H] : &tr.h[((s - 1) * d.N + n) * d.H];
          const double* cp = s == 0 ? &cx[(idx * d.N + n) * d.H] : &tr.c[((s - 1) * d.N + n) * d.H];
          const double* act = &tr.act[(s * d.N + n) * GH];
          const double* c = &tr.c[(s * d.N + n) * d.H];
          const double* q = &tr.q[(s * d.N + n) * d.H];
          double* dhn = &dh_next[n * d.H];
          double* dcn = &dc_next[n * d.H];
          std::vector<double> dq(d.H, 0.0), dh_direct(d.H, 0.0);
          for (long long j = 0; j < d.H; ++j) {
            const double dh = d_out[((t * d.N + n) * d.D + dir) * d.H + j] + dhn[j];
            switch (p.mode) {
              case RnnMode::relu: da[j] = act[j] > 0 ? dh : 0.0; break;
              case RnnMode::tanh: da[j] = dh * (1 - act[j] * act[j]); break;
              case RnnMode::lstm: {
                const double i = act[j], f = act[d.H + j], o = act[2 * d.H + j], g = act[3 * d.H + j], tc = std::tanh(c[j]);
                const double dc = dcn[j] + dh * o * (1 - tc * tc);
                da[j] = dc * g * i * (1 - i);
                da[d.H + j] = dc * cp[j] * f * (1 - f);
                da[2 * d.H + j] = dh * tc * o * (1 - o);
                da[3 * d.H + j] = dc * i * (1 - g * g);
                dcn[j] = dc * f;  // becomes dc_prev
                break;
              }
              case RnnMode::gru: {
                const double z = act[j], r = act[d.H + j], nn = act[2 * d.H + j];
                const double dn = dh * (1 - z) * (1 - nn * nn);  // the n gate's pre-activation
                da[j] = dh * (hp[j] - nn) * z * (1 - z);
                da[d.H + j] = dn * q[j] * r * (1 - r);
                da[2 * d.H + j] = dn;   // W_n's and bW_n's rows
                dq[j] = dn * r;         // R_n's and bR_n's rows
                dh_direct[j] = dh * z;
                break;
              }
            }
          }
          // The recurrent rows' pre-activation gradient: da, except GRU's n rows (r scales R_n h + bR_n): dq.
          std::vector<double> drec(da);
          if (p.mode == RnnMode::gru)
            for (long long j = 0; j < d.H; ++j) drec[2 * d.H + j] = dq[j];
          // Parameters and inputs: W x rows take da, R h rows drec.
          for (long long g = 0; g < GH; ++g) {
            const double dr = drec[g];
            for (long long k = 0; k < in_dim; ++k) {
              dw.w[g * in_dim + k] += da[g] * x[k];
              d_in[(t * d.N + n) * in_dim + k] += lw.w[g * in_dim + k] * da[g];
            }
            for (long long k = 0; k < d.H; ++k) dw.r[g * d.H + k] += dr * hp[k];
            if (p.bias) dw.bw[g] += da[g], dw.br[g] += dr;
          }
          for (long long k = 0; k < d.H; ++k) {
            double v = dh_direct[k];
            for (long long g = 0; g < GH; ++g) v += lw.r[g * d.H + k] * drec[g];
            dhn[k] = v;  // becomes dh_prev
          }
        }
      }
      });
      RnnLayerWeights& dw = gr.dweights[idx];
      for (const RnnLayerWeights& part : parts)
        for (auto [to, from] : {std::pair{&dw.w, &part.w}, std::pair{&dw.r, &part.r}, std::pair{&dw.bw, &part.bw}, std::pair{&dw.br, &part.br}})
          for (std::size_t i = 0; i < to->size(); ++i) (*to)[i] += (*from)[i];
      for (long long k = 0; k < d.N * d.H; ++k) {
        gr.dhx[idx * d.N * d.H + k] = dh_next[k];
        if (p.mode == RnnMode::lstm) gr.dcx[idx * d.N * d.H + k] = dc_next[k];
      }
    }
    d_out = std::move(d_in);
  }
  gr.dx = std::move(d_out);
  return gr;
}

}  // namespace hiprim::ref
