// The RNN reference of reference/rnn.hpp. Every sum has one fixed order, that of the naive loops
// over one sample: W x + bW and R h + bR from the bias, k ascending; dh_prev and the input gradient
// g ascending; the weight gradients per chunk of samples (reference/rnn_chunks.hpp). The sums over
// weights are evaluated for the whole batch at once by the ordered products of reference/rnn_gemm.hpp
// (each weight row read once per step, not once per sample), with the same bits.
#include "reference/rnn.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/rnn_chunks.hpp"
#include "reference/rnn_gemm.hpp"

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

// Step s's cells for samples [lo, hi): act [s][n] holds wx = W x + bW on entry, rh [n] = R h_prev + bR;
// the pre-activation a = wx + rh (GRU's n rows: wx + r rh).
void forward_cells(const RnnProblem& p, const Sizes& d, Trace& tr, const std::vector<double>& rh, const double* h0,
                   const double* c0, long long s, long long lo, long long hi) {
  const long long H = d.H, GH = d.G * d.H;
  for (long long n = lo; n < hi; ++n) {
    const double* hp = s == 0 ? h0 + n * H : &tr.h[((s - 1) * d.N + n) * H];
    const double* cp = s == 0 ? c0 + n * H : &tr.c[((s - 1) * d.N + n) * H];
    const double* rq = &rh[n * GH];
    double* act = &tr.act[(s * d.N + n) * GH];
    double* h = &tr.h[(s * d.N + n) * H];
    double* c = &tr.c[(s * d.N + n) * H];
    double* q = &tr.q[(s * d.N + n) * H];
    for (long long j = 0; j < H; ++j) {
      switch (p.mode) {
        case RnnMode::relu: h[j] = act[j] = std::max(act[j] + rq[j], 0.0); break;
        case RnnMode::tanh: h[j] = act[j] = std::tanh(act[j] + rq[j]); break;
        case RnnMode::lstm: {
          const double i = sigm(act[j] + rq[j]), f = sigm(act[H + j] + rq[H + j]), o = sigm(act[2 * H + j] + rq[2 * H + j]),
                       gg = std::tanh(act[3 * H + j] + rq[3 * H + j]);
          act[j] = i, act[H + j] = f, act[2 * H + j] = o, act[3 * H + j] = gg;
          c[j] = f * cp[j] + i * gg;
          h[j] = o * std::tanh(c[j]);
          break;
        }
        case RnnMode::gru: {
          const double z = sigm(act[j] + rq[j]), r = sigm(act[H + j] + rq[H + j]);
          q[j] = rq[2 * H + j];
          const double nn = std::tanh(act[2 * H + j] + r * rq[2 * H + j]);
          act[j] = z, act[H + j] = r, act[2 * H + j] = nn;
          h[j] = (1 - z) * nn + z * hp[j];
          break;
        }
      }
    }
  }
}

// Every row of v [rows][G*H] set to the bias [G*H] (nullptr: zeros).
void fill_bias(std::vector<double>& v, long long rows, const double* bias, long long GH) {
  for (long long i = 0; i < rows; ++i)
    for (long long g = 0; g < GH; ++g) v[i * GH + g] = bias ? bias[g] : 0.0;
}

Trace run_direction(const RnnProblem& p, const RnnLayerWeights& lw, long long in_dim, const std::vector<double>& in,
                    const double* h0, const double* c0, bool reverse) {
  const Sizes d(p);
  const long long GH = d.G * d.H;
  Trace tr;
  tr.act.assign(d.T * d.N * GH, 0), tr.h.assign(d.T * d.N * d.H, 0), tr.c.assign(tr.h.size(), 0), tr.q.assign(tr.h.size(), 0);
  // wx = bW + sum_k w[g][k] x[k] (k ascending) of every step at once (no recurrence in it): act [s][n][g].
  fill_bias(tr.act, d.T * d.N, p.bias ? lw.bw.data() : nullptr, GH);
  ordered_gemm(tr.act.data(), GH, d.T * d.N, {sequence_rows(in.data(), d.T, d.N, in_dim, reverse)},
               PackedB(GemmTerm::product, {rows_of(lw.w.data(), GH, in_dim, true)}, in_dim, GH));
  // rh = bR + sum_k r[g][k] h_prev[k] per step, then the cells.
  const PackedB rt(GemmTerm::product, {rows_of(lw.r.data(), GH, d.H, true)}, d.H, GH);
  std::vector<double> rh(d.N * GH);
  for (long long s = 0; s < d.T; ++s) {
    fill_bias(rh, d.N, p.bias ? lw.br.data() : nullptr, GH);
    ordered_gemm(rh.data(), GH, d.N, {rows_of(s == 0 ? h0 : &tr.h[(s - 1) * d.N * d.H], d.N, d.H)}, rt);
    for_rnn_parts(d.N, kRnnElementWork * d.N * GH, [&](long long lo, long long hi) { forward_cells(p, d, tr, rh, h0, c0, s, lo, hi); });
  }
  return tr;
}

// One layer and direction's backward recursion (steps T-1 .. 0): per step s the gradients of the
// pre-activations da [s][n][G*H] and of the recurrent rows' drec [s][n][G*H] (GRU: its n rows take
// r dn, r scaling R_n h + bR_n; the other modes' drec is da), GRU's direct term dh_direct [n][H] = z dh,
// and the running dh_next, dc_next [n][H] (the gradients of step s's h and c; dc_next turns into
// dc_prev in place, dh_next by dh_prev = dh_direct + R^T drec).
struct Backward {
  const RnnProblem& p;
  const Sizes& d;
  const Trace& tr;
  const std::vector<double>& d_out;  // the layer output's gradient [T][N][D*H]
  long long dir;
  const double *h0, *c0;  // [N][H]
  std::vector<double> dh_next, dc_next, da, drec, dh_direct;

  const double* h_prev(long long s, long long n) const { return s == 0 ? h0 + n * d.H : &tr.h[((s - 1) * d.N + n) * d.H]; }
  const double* rec(long long s, long long n) const { return &(p.mode == RnnMode::gru ? drec : da)[(s * d.N + n) * d.G * d.H]; }

  // Step s's cell derivatives for samples [lo, hi).
  void cells(long long s, long long lo, long long hi) {
    const long long H = d.H, GH = d.G * d.H, t = dir == 1 ? d.T - 1 - s : s;
    for (long long n = lo; n < hi; ++n) {
      const double* hp = h_prev(s, n);
      const double* cp = s == 0 ? c0 + n * H : &tr.c[((s - 1) * d.N + n) * H];
      const double* act = &tr.act[(s * d.N + n) * GH];
      const double* c = &tr.c[(s * d.N + n) * H];
      const double* q = &tr.q[(s * d.N + n) * H];
      double* dan = &da[(s * d.N + n) * GH];
      double* dhn = &dh_next[n * H];
      double* dcn = &dc_next[n * H];
      for (long long j = 0; j < H; ++j) {
        const double dh = d_out[((t * d.N + n) * d.D + dir) * H + j] + dhn[j];
        switch (p.mode) {
          case RnnMode::relu: dan[j] = act[j] > 0 ? dh : 0.0; break;
          case RnnMode::tanh: dan[j] = dh * (1 - act[j] * act[j]); break;
          case RnnMode::lstm: {
            const double i = act[j], f = act[H + j], o = act[2 * H + j], g = act[3 * H + j], tc = std::tanh(c[j]);
            const double dc = dcn[j] + dh * o * (1 - tc * tc);
            dan[j] = dc * g * i * (1 - i);
            dan[H + j] = dc * cp[j] * f * (1 - f);
            dan[2 * H + j] = dh * tc * o * (1 - o);
            dan[3 * H + j] = dc * i * (1 - g * g);
            dcn[j] = dc * f;  // becomes dc_prev
            break;
          }
          case RnnMode::gru: {
            const double z = act[j], r = act[H + j], nn = act[2 * H + j];
            const double dn = dh * (1 - z) * (1 - nn * nn);  // the n gate's pre-activation
            double* drn = &drec[(s * d.N + n) * GH];
            dan[j] = dh * (hp[j] - nn) * z * (1 - z);
            dan[H + j] = dn * q[j] * r * (1 - r);
            dan[2 * H + j] = dn;  // W_n's and bW_n's rows
            drn[j] = dan[j], drn[H + j] = dan[H + j];
            drn[2 * H + j] = dn * r;  // R_n's and bR_n's rows
            dh_direct[n * H + j] = dh * z;
            break;
          }
        }
      }
    }
  }
};

// total += the chunk sums in chunk order (reference/rnn_chunks.hpp); form(part, order) forms chunk
// c's sum over its (s, n) order into part (zeros on entry).
template <typename Form>
void add_chunk_sums(std::vector<double>& total, const Sizes& d, Form&& form) {
  std::vector<double> part;
  for (long long c = 0; c < rnn_chunks(d.N); ++c) {
    part.assign(total.size(), 0.0);
    form(part, rnn_chunk_order(d.T, d.N, c));
    for (std::size_t i = 0; i < total.size(); ++i) total[i] += part[i];
  }
}

// dw [rows][cols] += sum over (s, n) of a(s, n)[g] b(s, n)[k] (rows g, columns k), summed per chunk.
template <typename A, typename B>
void add_outer_products(std::vector<double>& dw, long long rows, long long cols, const Sizes& d, A&& a, B&& b) {
  add_chunk_sums(dw, d, [&](std::vector<double>& part, const std::vector<std::pair<long long, long long>>& order) {
    const PackedB packed(GemmTerm::product, {rows_by(order, b)}, static_cast<long long>(order.size()), cols);
    ordered_gemm(part.data(), cols, rows, {rows_by(order, a, true)}, packed);
  });
}

// db [rows] += sum over (s, n) of a(s, n)[g], summed per chunk.
template <typename A>
void add_sums(std::vector<double>& db, long long rows, const Sizes& d, A&& a) {
  add_chunk_sums(db, d, [&](std::vector<double>& part, const std::vector<std::pair<long long, long long>>& order) {
    for (auto [s, n] : order)
      for (long long g = 0; g < rows; ++g) part[g] += a(s, n)[g];
  });
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
      const RnnLayerWeights& lw = in.weights[idx];
      Backward bw{p, d, ps.traces[idx], d_out, dir, &hx[idx * d.N * d.H], &cx[idx * d.N * d.H], {}, {}, {}, {}, {}};
      bw.dh_next.assign(d.N * d.H, 0.0), bw.dc_next.assign(d.N * d.H, 0.0), bw.dh_direct.assign(d.N * d.H, 0.0);
      for (long long k = 0; k < d.N * d.H; ++k) {
        if (!dhy.empty()) bw.dh_next[k] = dhy[idx * d.N * d.H + k];
        if (!dcy.empty()) bw.dc_next[k] = dcy[idx * d.N * d.H + k];
      }
      bw.da.assign(d.T * d.N * GH, 0.0);
      if (p.mode == RnnMode::gru) bw.drec.assign(d.T * d.N * GH, 0.0);
      const PackedB r_rows(GemmTerm::product, {rows_of(lw.r.data(), GH, d.H)}, GH, d.H);
      for (long long s = d.T - 1; s >= 0; --s) {
        for_rnn_parts(d.N, kRnnElementWork * d.N * GH, [&](long long lo, long long hi) { bw.cells(s, lo, hi); });
        // dh_prev[n][k] = dh_direct[n][k] + sum_g r[g][k] drec[n][g] (g ascending)
        bw.dh_next = bw.dh_direct;
        ordered_gemm(bw.dh_next.data(), d.H, d.N, {rows_of(bw.rec(s, 0), d.N, GH)}, r_rows);
      }
      // d_in[t][n][k] += sum_g w[g][k] da[s][n][g] (g ascending; the directions in turn).
      ordered_gemm(d_in.data(), in_dim, d.T * d.N, {sequence_rows(bw.da.data(), d.T, d.N, GH, dir == 1)},
                   PackedB(GemmTerm::product, {rows_of(lw.w.data(), GH, in_dim)}, GH, in_dim));
      // The parameters: W x rows take da, R h rows drec.
      auto da_row = [&](long long s, long long n) { return &bw.da[(s * d.N + n) * GH]; };
      auto rec_row = [&](long long s, long long n) { return bw.rec(s, n); };
      auto x_row = [&](long long s, long long n) { return &lin[((dir == 1 ? d.T - 1 - s : s) * d.N + n) * in_dim]; };
      auto h_row = [&](long long s, long long n) { return bw.h_prev(s, n); };
      RnnLayerWeights& dw = gr.dweights[idx];
      add_outer_products(dw.w, GH, in_dim, d, da_row, x_row);
      add_outer_products(dw.r, GH, d.H, d, rec_row, h_row);
      if (p.bias) add_sums(dw.bw, GH, d, da_row), add_sums(dw.br, GH, d, rec_row);
      for (long long k = 0; k < d.N * d.H; ++k) {
        gr.dhx[idx * d.N * d.H + k] = bw.dh_next[k];
        if (p.mode == RnnMode::lstm) gr.dcx[idx * d.N * d.H + k] = bw.dc_next[k];
      }
    }
    d_out = std::move(d_in);
  }
  gr.dx = std::move(d_out);
  return gr;
}

}  // namespace hiprim::ref
