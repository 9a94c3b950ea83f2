// The running error bound of reference/rnn_bound.hpp: the model evaluated in double with, for every
// quantity, its value v and the bound e on the fp32 solver's deviation from it.
#include "reference/rnn_bound.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/error_model.hpp"
#include "reference/rnn_chunks.hpp"

namespace hiprim::ref {
namespace {

constexpr double u = kUnitFp32, tiny = kFp32TinyNormal;
constexpr double kSigmaUlps = 8, kTanhUlps = 6;  // relative evaluation errors in units of u

struct Ev {
  double v = 0, e = 0;
};
double mag(const Ev& a) { return std::fabs(a.v) + a.e; }  // bounds |computed value|
Ev add(Ev a, Ev b) {
  const double v = a.v + b.v;
  return {v, a.e + b.e + u * (std::fabs(v) + a.e + b.e)};
}
Ev sub(Ev a, Ev b) { return add(a, Ev{-b.v, b.e}); }
Ev mul(Ev a, Ev b) { return {a.v * b.v, a.e * std::fabs(b.v) + std::fabs(a.v) * b.e + a.e * b.e + u * mag(a) * mag(b)}; }
Ev one_minus(Ev a) { return add(Ev{1.0, 0.0}, Ev{-a.v, a.e}); }
double sigma(double a) { return 1.0 / (1.0 + std::exp(-a)); }
// f(a~) with f' <= L on the interval, evaluated with relative error k u.
Ev apply(double fv, double L, Ev a, double k) { return {fv, L * a.e + k * u * (std::fabs(fv) + L * a.e) + tiny}; }
Ev sig(Ev a) {
  const double s = sigma(std::max(0.0, std::fabs(a.v) - a.e));
  return apply(sigma(a.v), s * (1 - s), a, kSigmaUlps);
}
Ev tnh(Ev a) {
  const double t = std::tanh(std::max(0.0, std::fabs(a.v) - a.e));
  return apply(std::tanh(a.v), 1 - t * t, a, kTanhUlps);
}
Ev relu(Ev a) { return {std::max(a.v, 0.0), a.v + a.e > 0 ? a.e : 0.0}; }
// dh through relu's derivative at a: the mask is certain unless |a| <= e_a.
Ev relu_back(Ev a, Ev dh) {
  if (std::fabs(a.v) <= a.e) return {a.v > 0 ? dh.v : 0.0, mag(dh)};
  return a.v > 0 ? dh : Ev{};
}

// A GEMM row: sum_k w[k*ws] x[k] + extra (exact weights, Ev operands, an optional bias or partial).
struct Sum {
  double v = 0, prop = 0, abs = 0;
  long long terms = 0;
  void term(double w, Ev x) {
    v += w * x.v, prop += std::fabs(w) * x.e, abs += std::fabs(w) * mag(x), ++terms;
  }
  void term(Ev a, Ev b) {  // a product of two perturbed values
    v += a.v * b.v, prop += a.e * std::fabs(b.v) + std::fabs(a.v) * b.e + a.e * b.e, abs += mag(a) * mag(b), ++terms;
  }
  void plus(Ev x) { v += x.v, prop += x.e, abs += mag(x), ++terms; }
  void merge(const Sum& o) { v += o.v, prop += o.prop, abs += o.abs, terms += o.terms; }
  Ev done() const { return {v, terms ? prop + gamma_n(terms, u) * abs + terms * tiny : 0.0}; }
};

struct Sizes {
  long long T, N, H, G, D, L, GH;
  explicit Sizes(const RnnProblem& p)
      : T(p.seq), N(p.n), H(p.hidden), G(p.gates()), D(p.directions()), L(p.layers), GH(p.gates() * p.hidden) {}
};

// One layer and direction's forward with bounds; per step s (processing order): pre-activations
// a [s][n][G*H] (GRU n rows: P_n + r Q_n), gates act, c, h, q (GRU: R_n h + bR_n).
struct EvTrace {
  std::vector<Ev> a, act, c, h, q;
};

std::vector<Ev> exact(const std::vector<double>& v) {
  std::vector<Ev> r(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) r[i].v = v[i];
  return r;
}

EvTrace forward_direction(const RnnProblem& p, const RnnLayerWeights& lw, long long in_dim, const std::vector<Ev>& in,
                          const Ev* h0, const Ev* c0, bool reverse) {
  const Sizes d(p);
  EvTrace tr;
  tr.a.resize(d.T * d.N * d.GH), tr.act.resize(tr.a.size());
  tr.h.resize(d.T * d.N * d.H), tr.c.resize(tr.h.size()), tr.q.resize(tr.h.size());
  for_rnn_chunks(d.N, [&](long long, long long n_lo, long long n_hi) {
  std::vector<Ev> P(d.GH), Q(d.GH);
  for (long long s = 0; s < d.T; ++s) {
    const long long t = reverse ? d.T - 1 - s : s;
    for (long long n = n_lo; n < n_hi; ++n) {
      const Ev* x = &in[(t * d.N + n) * in_dim];
      const Ev* hp = s == 0 ? h0 + n * d.H : &tr.h[((s - 1) * d.N + n) * d.H];
      const Ev* cp = s == 0 ? c0 + n * d.H : &tr.c[((s - 1) * d.N + n) * d.H];
      for (long long g = 0; g < d.GH; ++g) {
        Sum sp, sq;
        for (long long k = 0; k < in_dim; ++k) sp.term(lw.w[g * in_dim + k], x[k]);
        for (long long k = 0; k < d.H; ++k) sq.term(lw.r[g * d.H + k], hp[k]);
        if (p.bias) sp.plus(Ev{lw.bw[g], 0}), sq.plus(Ev{lw.br[g], 0});
        P[g] = sp.done(), Q[g] = sq.done();
      }
      Ev* a = &tr.a[(s * d.N + n) * d.GH];
      Ev* act = &tr.act[(s * d.N + n) * d.GH];
      const long long o = (s * d.N + n) * d.H;
      for (long long j = 0; j < d.H; ++j) {
        const long long H = d.H;
        switch (p.mode) {
          case RnnMode::relu:
          case RnnMode::tanh:
            a[j] = add(P[j], Q[j]);
            tr.h[o + j] = act[j] = p.mode == RnnMode::relu ? relu(a[j]) : tnh(a[j]);
            break;
          case RnnMode::lstm: {
            for (int k = 0; k < 4; ++k) a[k * H + j] = add(P[k * H + j], Q[k * H + j]);
            const Ev i = sig(a[j]), f = sig(a[H + j]), og = sig(a[2 * H + j]), g = tnh(a[3 * H + j]);
            act[j] = i, act[H + j] = f, act[2 * H + j] = og, act[3 * H + j] = g;
            tr.c[o + j] = add(mul(f, cp[j]), mul(i, g));
            tr.h[o + j] = mul(og, tnh(tr.c[o + j]));
            break;
          }
          case RnnMode::gru: {
            a[j] = add(P[j], Q[j]), a[H + j] = add(P[H + j], Q[H + j]);
            const Ev z = sig(a[j]), r = sig(a[H + j]);
            tr.q[o + j] = Q[2 * H + j];
            a[2 * H + j] = add(P[2 * H + j], mul(r, Q[2 * H + j]));
            const Ev nn = tnh(a[2 * H + j]);
            act[j] = z, act[H + j] = r, act[2 * H + j] = nn;
            tr.h[o + j] = add(mul(one_minus(z), nn), mul(z, hp[j]));
            break;
          }
        }
      }
    }
  }
  });
  return tr;
}

struct EvPass {
  std::vector<std::vector<Ev>> layer_in;
  std::vector<EvTrace> traces;
  std::vector<Ev> y, hy, cy, h0, c0;
};

EvPass forward(const RnnProblem& p, const RnnInputs& in) {
  const Sizes d(p);
  const long long states = d.L * d.D * d.N * d.H;
  EvPass ps;
  ps.h0 = in.hx.empty() ? std::vector<Ev>(states) : exact(in.hx);
  ps.c0 = in.cx.empty() ? std::vector<Ev>(states) : exact(in.cx);
  if (static_cast<long long>(ps.h0.size()) != states || static_cast<long long>(ps.c0.size()) != states)
    throw InputError("rnn bound: hx or cx has the wrong size");
  ps.hy.resize(states);
  if (p.lstm()) ps.cy.resize(states);
  std::vector<Ev> cur = exact(in.x);
  for (long long l = 0; l < d.L; ++l) {
    ps.layer_in.push_back(cur);
    std::vector<Ev> out(d.T * d.N * d.D * d.H);
    for (long long dir = 0; dir < d.D; ++dir) {
      const long long idx = l * d.D + dir, so = idx * d.N * d.H;
      EvTrace tr = forward_direction(p, in.weights[idx], p.layer_input(l), cur, &ps.h0[so], &ps.c0[so], dir == 1);
      for (long long s = 0; s < d.T; ++s) {
        const long long t = dir == 1 ? d.T - 1 - s : s;
        for (long long k = 0; k < d.N * d.H; ++k) out[(t * d.N + k / d.H) * d.D * d.H + dir * d.H + k % d.H] = tr.h[s * d.N * d.H + k];
      }
      for (long long k = 0; k < d.N * d.H; ++k) {
        ps.hy[so + k] = tr.h[(d.T - 1) * d.N * d.H + k];
        if (p.lstm()) ps.cy[so + k] = tr.c[(d.T - 1) * d.N * d.H + k];
      }
      ps.traces.push_back(std::move(tr));
    }
    cur = std::move(out);
  }
  ps.y = std::move(cur);
  return ps;
}

void split(const std::vector<Ev>& v, std::vector<double>& values, std::vector<double>& bounds) {
  values.resize(v.size()), bounds.resize(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) values[i] = v[i].v, bounds[i] = v[i].e;
}
std::vector<Ev> maybe(const std::vector<double>& v, std::size_t size) { return v.empty() ? std::vector<Ev>(size) : exact(v); }

// ---- backward ----

void rnn_backward_bounds(const RnnProblem& p, const RnnInputs& in, const std::vector<Ev>& dy, const std::vector<Ev>& dhy,
                         const std::vector<Ev>& dcy, const EvPass& ps, RnnBounds& out) {
  const Sizes d(p);
  const long long H = d.H, GH = d.GH;
  std::vector<Ev> dhx(ps.h0.size()), dcx(p.lstm() ? ps.h0.size() : 0);
  RnnWeights dvals = rnn_weights_like(p), dbounds = rnn_weights_like(p);
  std::vector<Ev> d_out = dy;
  for (long long l = d.L - 1; l >= 0; --l) {
    const long long in_dim = p.layer_input(l);
    const std::vector<Ev>& lin = ps.layer_in[l];
    std::vector<Sum> d_in(lin.size());  // over both directions: D*GH terms each
    for (long long dir = 0; dir < d.D; ++dir) {
      const long long idx = l * d.D + dir, so = idx * d.N * H;
      const EvTrace& tr = ps.traces[idx];
      const RnnLayerWeights& lw = in.weights[idx];
      // Weight gradients: sums over (t, n) of T*N products, per chunk of samples, merged in chunk order.
      struct Sums {
        std::vector<Sum> w, r, bw, br;
      };
      std::vector<Sums> parts(rnn_chunks(d.N), Sums{std::vector<Sum>(GH * in_dim), std::vector<Sum>(GH * H), std::vector<Sum>(GH), std::vector<Sum>(GH)});
      std::vector<Ev> dh_next(dhy.begin() + so, dhy.begin() + so + d.N * H);
      std::vector<Ev> dc_next = p.lstm() ? std::vector<Ev>(dcy.begin() + so, dcy.begin() + so + d.N * H) : std::vector<Ev>(d.N * H);
      for_rnn_chunks(d.N, [&](long long chunk, long long n_lo, long long n_hi) {
      std::vector<Sum>&sw = parts[chunk].w, &sr = parts[chunk].r, &sbw = parts[chunk].bw, &sbr = parts[chunk].br;
      std::vector<Ev> da(GH), drec(GH), dh_direct(H);
      for (long long s = d.T - 1; s >= 0; --s) {
        const long long t = dir == 1 ? d.T - 1 - s : s;
        for (long long n = n_lo; n < n_hi; ++n) {
          const Ev* x = &lin[(t * d.N + n) * in_dim];
          const Ev* hp = s == 0 ? &ps.h0[so + n * H] : &tr.h[((s - 1) * d.N + n) * H];
          const Ev* cp = s == 0 ? &ps.c0[so + n * H] : &tr.c[((s - 1) * d.N + n) * H];
          const Ev* a = &tr.a[(s * d.N + n) * GH];
          const Ev* act = &tr.act[(s * d.N + n) * GH];
          const long long o = (s * d.N + n) * H;
          Ev* dhn = &dh_next[n * H];
          Ev* dcn = &dc_next[n * H];
          for (long long j = 0; j < H; ++j) {
            const Ev dh = add(d_out[(t * d.N + n) * d.D * H + dir * H + j], dhn[j]);
            switch (p.mode) {
              case RnnMode::relu: da[j] = relu_back(a[j], dh); break;
              case RnnMode::tanh: da[j] = mul(dh, one_minus(mul(act[j], act[j]))); break;
              case RnnMode::lstm: {
                const Ev i = act[j], f = act[H + j], og = act[2 * H + j], g = act[3 * H + j], tc = tnh(tr.c[o + j]);
                const Ev dc = add(dcn[j], mul(mul(dh, og), one_minus(mul(tc, tc))));
                da[j] = mul(mul(dc, g), mul(i, one_minus(i)));
                da[H + j] = mul(mul(dc, cp[j]), mul(f, one_minus(f)));
                da[2 * H + j] = mul(mul(dh, tc), mul(og, one_minus(og)));
                da[3 * H + j] = mul(mul(dc, i), one_minus(mul(g, g)));
                dcn[j] = mul(dc, f);
                break;
              }
              case RnnMode::gru: {
                const Ev z = act[j], r = act[H + j], nn = act[2 * H + j];
                const Ev dn = mul(mul(dh, one_minus(z)), one_minus(mul(nn, nn)));
                da[j] = mul(mul(dh, sub(hp[j], nn)), mul(z, one_minus(z)));
                da[H + j] = mul(mul(dn, tr.q[o + j]), mul(r, one_minus(r)));
                da[2 * H + j] = dn;
                drec[2 * H + j] = mul(dn, r);
                dh_direct[j] = mul(dh, z);
                break;
              }
            }
          }
          for (long long g = 0; g < GH; ++g)
            if (p.mode != RnnMode::gru || g < 2 * H) drec[g] = da[g];
          for (long long g = 0; g < GH; ++g) {
            for (long long k = 0; k < in_dim; ++k) {
              sw[g * in_dim + k].term(da[g], x[k]);
              d_in[(t * d.N + n) * in_dim + k].term(lw.w[g * in_dim + k], da[g]);
            }
            for (long long k = 0; k < H; ++k) sr[g * H + k].term(drec[g], hp[k]);
            sbw[g].plus(da[g]), sbr[g].plus(drec[g]);
          }
          for (long long k = 0; k < H; ++k) {
            Sum v;
            for (long long g = 0; g < GH; ++g) v.term(lw.r[g * H + k], drec[g]);
            if (p.mode == RnnMode::gru) v.plus(dh_direct[k]);
            dhn[k] = v.done();
          }
        }
      }
      });
      Sums all = parts[0];
      for (std::size_t c = 1; c < parts.size(); ++c)
        for (auto [to, from] : {std::pair{&all.w, &parts[c].w}, std::pair{&all.r, &parts[c].r}, std::pair{&all.bw, &parts[c].bw}, std::pair{&all.br, &parts[c].br}})
          for (std::size_t i = 0; i < to->size(); ++i) (*to)[i].merge((*from)[i]);
      const std::vector<Sum>&sw = all.w, &sr = all.r, &sbw = all.bw, &sbr = all.br;
      std::copy(dh_next.begin(), dh_next.end(), dhx.begin() + so);
      if (p.lstm()) std::copy(dc_next.begin(), dc_next.end(), dcx.begin() + so);
      auto finish = [](const std::vector<Sum>& sums, std::vector<double>& v, std::vector<double>& e) {
        for (std::size_t i = 0; i < sums.size(); ++i) {
          const Ev r = sums[i].done();
          v[i] = r.v, e[i] = r.e;
        }
      };
      finish(sw, dvals[idx].w, dbounds[idx].w);
      finish(sr, dvals[idx].r, dbounds[idx].r);
      if (p.bias) finish(sbw, dvals[idx].bw, dbounds[idx].bw), finish(sbr, dvals[idx].br, dbounds[idx].br);
    }
    d_out.assign(d_in.size(), Ev{});
    for (std::size_t i = 0; i < d_in.size(); ++i) d_out[i] = d_in[i].done();
  }
  split(d_out, out.bwd_values.dx, out.bwd.dx);
  split(dhx, out.bwd_values.dhx, out.bwd.dhx);
  split(dcx, out.bwd_values.dcx, out.bwd.dcx);
  out.bwd_values.dweights = std::move(dvals);
  out.bwd.dweights = std::move(dbounds);
}

}  // namespace

RnnBounds rnn_bounds(const RnnProblem& p, const RnnInputs& in, bool backward, const std::vector<double>& dy,
                     const std::vector<double>& dhy, const std::vector<double>& dcy) {
  if (auto e = p.validate(); !e.empty()) throw InputError("rnn bound: invalid problem " + to_string(p) + ": " + e.front());
  const Sizes d(p);
  if (static_cast<long long>(in.x.size()) != d.T * d.N * p.input || static_cast<long long>(in.weights.size()) != d.L * d.D)
    throw InputError("rnn bound: x or the weights have the wrong size");
  const EvPass ps = forward(p, in);
  RnnBounds b;
  split(ps.y, b.fwd_values.y, b.fwd.y);
  split(ps.hy, b.fwd_values.hy, b.fwd.hy);
  split(ps.cy, b.fwd_values.cy, b.fwd.cy);
  if (!backward) return b;
  if (dy.size() != ps.y.size()) throw InputError("rnn bound: dy has the wrong size");
  rnn_backward_bounds(p, in, exact(dy), maybe(dhy, ps.h0.size()), maybe(dcy, ps.h0.size()), ps, b);
  return b;
}

}  // namespace hiprim::ref
