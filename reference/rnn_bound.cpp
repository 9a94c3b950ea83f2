// The running error bound of reference/rnn_bound.hpp: the model evaluated in double with, for every
// quantity, its value v and the bound e on the fp32 solver's deviation from it. A GEMM row's Sum
// (v, prop, abs) is three sums of products in one fixed order (reference/rnn.cpp's), evaluated for
// the whole batch by the ordered products of reference/rnn_gemm.hpp over planes of the operands.
#include "reference/rnn_bound.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"
#include "reference/error_model.hpp"
#include "reference/rnn_chunks.hpp"
#include "reference/rnn_gemm.hpp"

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
// pieces, unit: each term may be computed as `pieces` exact partial products added with relative
// error < unit (WeightGemm below); the defaults are fp32's adds of the terms.
struct Sum {
  double v = 0, prop = 0, abs = 0;
  long long terms = 0;
  long long pieces = 1;
  double unit = u;
  void term(double w, Ev x) {
    v += w * x.v, prop += std::fabs(w) * x.e, abs += std::fabs(w) * mag(x), ++terms;
  }
  void term(Ev a, Ev b) {  // a product of two perturbed values
    v += a.v * b.v, prop += a.e * std::fabs(b.v) + std::fabs(a.v) * b.e + a.e * b.e, abs += mag(a) * mag(b), ++terms;
  }
  void plus(Ev x) { v += x.v, prop += x.e, abs += mag(x), ++terms; }
  void merge(const Sum& o) { v += o.v, prop += o.prop, abs += o.abs, terms += o.terms; }
  Ev done() const { return {v, terms ? prop + gamma_n(terms * pieces, unit) * abs + terms * pieces * tiny : 0.0}; }
};

struct Sizes {
  long long T, N, H, G, D, L, GH;
  explicit Sizes(const RnnProblem& p)
      : T(p.seq), N(p.n), H(p.hidden), G(p.gates()), D(p.directions()), L(p.layers), GH(p.gates() * p.hidden) {}
};

// Ev operands of the products as planes (ordered_gemm's operands): values v, bounds e, mag = |v| + e.
struct Planes {
  std::vector<double> v, e, mag;
  explicit Planes(std::size_t size = 0) : v(size), e(size), mag(size) {}
  void put(std::size_t i, Ev x) { v[i] = x.v, e[i] = x.e, mag[i] = hiprim::ref::mag(x); }
};
Planes planes_of(const Ev* x, std::size_t size) {
  Planes p(size);
  for (std::size_t i = 0; i < size; ++i) p.put(i, x[i]);
  return p;
}

// A forward GEMM's operand h (a computed state: a layer output, h_prev after the first step) as the
// solver may read it under math=h16: x~ rounded to the dtype, |round(x~) - x~| <= u16 |x~| + tiny16
// (round to nearest: u16 = 2^-8 bf16, 2^-11 fp16; tiny16 half the subnormal spacing, 2^-134 / 2^-25;
// |x~| <= mag(x)), so e grows by u16 mag + tiny16; fp16 overflows past 65504 (then no bound). Exact
// inputs (x, hx: dtype values) and math=exact pass unchanged.
Planes gemm_operand(const RnnProblem& p, const Ev* x, std::size_t size, bool computed) {
  if (p.math != RnnMath::h16 || !computed) return planes_of(x, size);
  const bool bf16 = p.dtype == DType::bf16;
  const double u16 = bf16 ? 0x1p-8 : 0x1p-11, tiny16 = bf16 ? 0x1p-134 : 0x1p-25;
  Planes r(size);
  for (std::size_t i = 0; i < size; ++i) {
    const double m = mag(x[i]);
    const double e = !bf16 && m > 65504.0 ? INFINITY : x[i].e + u16 * m + tiny16;
    r.put(i, Ev{x[i].v, e});
  }
  return r;
}

// How the whole-sequence GEMMs against the weights (P, dx) may run: fp32 adds of the K products
// (rnn.gemm) or, for bf16 problems, tensor cores (rnn.mma, gpu/rnn/rnn_plan.hpp's bf16x3 engines):
// the fp32 operand split in three bf16 pieces, 3K exact products accumulated with truncating adds
// (|delta| < 2u: f = 2 of reference/error_model.hpp), each operand short of its pieces' sum by < 4 2^-126
// (pieces below bf16's normal range, flushed or not). The bound covers both: gamma_{2u}(3 K'),
// 3 K' 2^-126 for underflowing products, and 4 2^-126 sum_k |w_k| per row.
struct WeightGemm {
  long long pieces = 1;
  double unit = u, loss = 0;
};
WeightGemm weight_gemm(const RnnProblem& p) { return p.dtype == DType::bf16 ? WeightGemm{3, 2 * u, 4 * tiny} : WeightGemm{}; }
// math=h16 (core/rnn_problem.hpp): the forward GEMMs' operands h are rounded to the dtype first
// (gemm_operand below), so the input projection and the per-step R h_prev may run on tensor cores
// with one piece: K exact products (16-bit operands), truncating fp32 adds (2u). Otherwise P as
// weight_gemm and R h_prev in fp32 adds.
WeightGemm input_gemm(const RnnProblem& p) { return p.math == RnnMath::h16 ? WeightGemm{1, 2 * u, 0} : weight_gemm(p); }
WeightGemm step_gemm(const RnnProblem& p) { return p.math == RnnMath::h16 ? WeightGemm{1, 2 * u, 0} : WeightGemm{}; }

// Many Sums' running v, prop and abs (their term counts kept by the caller), as planes; g: how the
// GEMM that forms them may run (the default: fp32 adds).
struct SumPlanes {
  std::vector<double> v, prop, abs;
  WeightGemm g;
  explicit SumPlanes(std::size_t size = 0, WeightGemm gemm = {}) : v(size), prop(size), abs(size), g(gemm) {}
  Sum at(std::size_t i, long long terms) const { return Sum{v[i], prop[i], abs[i], terms, g.pieces, g.unit}; }
};

// Exact weights as ordered_gemm's right operand: w and |w|, B(r, j) = m[r][j] ([K][N]), or m[j][r]
// when transposed ([N][K]); col_abs[j] = sum_r |B(r, j)|.
struct ExactB {
  PackedB w, abs;
  std::vector<double> col_abs;
  ExactB(const std::vector<double>& m, long long K, long long N, bool transposed)
      : w(GemmTerm::product, {rows_of(m.data(), transposed ? N : K, transposed ? K : N, transposed)}, K, N),
        abs(GemmTerm::product, {rows_of(m.data(), transposed ? N : K, transposed ? K : N, transposed, true)}, K, N),
        col_abs(N) {
    for (long long r = 0; r < K; ++r)
      for (long long j = 0; j < N; ++j) col_abs[j] += std::fabs(transposed ? m[j * K + r] : m[r * N + j]);
  }
};

// sums [M][b.N] continue Sum::term(w[r][j], x_i[r]) for r in order: v += w x.v, prop += |w| x.e,
// abs += |w| mag(x); rows(plane) views the rows x_i of one of x's planes. The operand's split loss
// (sums.g.loss per element) adds loss sum_r |w[r][j]| to prop.
template <typename Rows>
void add_weighted(SumPlanes& sums, long long M, const Planes& x, Rows&& rows, const ExactB& b) {
  ordered_gemm(sums.v.data(), b.w.N, M, {rows(x.v)}, b.w);
  ordered_gemm(sums.prop.data(), b.w.N, M, {rows(x.e)}, b.abs);
  ordered_gemm(sums.abs.data(), b.w.N, M, {rows(x.mag)}, b.abs);
  if (sums.g.loss > 0)
    for (std::size_t i = 0; i < sums.prop.size(); ++i) sums.prop[i] += sums.g.loss * b.col_abs[i % b.col_abs.size()];
}

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

// Step s's cells for samples [lo, hi): a [s][n] holds P = W x + bW on entry, q_sums [n] R h_prev's sums.
void forward_cells(const RnnProblem& p, const Sizes& d, const RnnLayerWeights& lw, EvTrace& tr, const SumPlanes& q_sums,
                   const Ev* h0, const Ev* c0, long long s, long long lo, long long hi) {
  const long long H = d.H;
  std::vector<Ev> Q(d.GH);
  for (long long n = lo; n < hi; ++n) {
    const Ev* hp = s == 0 ? h0 + n * H : &tr.h[((s - 1) * d.N + n) * H];
    const Ev* cp = s == 0 ? c0 + n * H : &tr.c[((s - 1) * d.N + n) * H];
    for (long long g = 0; g < d.GH; ++g) {
      Sum sq = q_sums.at(n * d.GH + g, H);
      if (p.bias) sq.plus(Ev{lw.br[g], 0});
      Q[g] = sq.done();
    }
    Ev* a = &tr.a[(s * d.N + n) * d.GH];  // P on entry
    Ev* act = &tr.act[(s * d.N + n) * d.GH];
    const long long o = (s * d.N + n) * H;
    for (long long j = 0; j < H; ++j) {
      switch (p.mode) {
        case RnnMode::relu:
        case RnnMode::tanh:
          a[j] = add(a[j], Q[j]);
          tr.h[o + j] = act[j] = p.mode == RnnMode::relu ? relu(a[j]) : tnh(a[j]);
          break;
        case RnnMode::lstm: {
          for (int k = 0; k < 4; ++k) a[k * H + j] = add(a[k * H + j], Q[k * H + j]);
          const Ev i = sig(a[j]), f = sig(a[H + j]), og = sig(a[2 * H + j]), g = tnh(a[3 * H + j]);
          act[j] = i, act[H + j] = f, act[2 * H + j] = og, act[3 * H + j] = g;
          tr.c[o + j] = add(mul(f, cp[j]), mul(i, g));
          tr.h[o + j] = mul(og, tnh(tr.c[o + j]));
          break;
        }
        case RnnMode::gru: {
          a[j] = add(a[j], Q[j]), a[H + j] = add(a[H + j], Q[H + j]);
          const Ev z = sig(a[j]), r = sig(a[H + j]);
          tr.q[o + j] = Q[2 * H + j];
          a[2 * H + j] = add(a[2 * H + j], mul(r, Q[2 * H + j]));
          const Ev nn = tnh(a[2 * H + j]);
          act[j] = z, act[H + j] = r, act[2 * H + j] = nn;
          tr.h[o + j] = add(mul(one_minus(z), nn), mul(z, hp[j]));
          break;
        }
      }
    }
  }
}

// computed_in: `in` is a layer output (not x).
EvTrace forward_direction(const RnnProblem& p, const RnnLayerWeights& lw, long long in_dim, const std::vector<Ev>& in,
                          bool computed_in, const Ev* h0, const Ev* c0, bool reverse) {
  const Sizes d(p);
  EvTrace tr;
  tr.a.resize(d.T * d.N * d.GH), tr.act.resize(tr.a.size());
  tr.h.resize(d.T * d.N * d.H), tr.c.resize(tr.h.size()), tr.q.resize(tr.h.size());
  {  // P = sum_k term(w[g][k], x[k]) (k ascending) + bW of every step at once (no recurrence in it): a [s][n][g].
    const Planes x = gemm_operand(p, in.data(), in.size(), computed_in);
    SumPlanes sums(tr.a.size(), input_gemm(p));
    auto rows = [&](const std::vector<double>& plane) { return sequence_rows(plane.data(), d.T, d.N, in_dim, reverse); };
    add_weighted(sums, d.T * d.N, x, rows, ExactB(lw.w, in_dim, d.GH, true));
    for_rnn_parts(d.T * d.N, kRnnElementWork * d.T * d.N * d.GH, [&](long long lo, long long hi) {
      for (long long i = lo * d.GH; i < hi * d.GH; ++i) {
        Sum sp = sums.at(i, in_dim);
        if (p.bias) sp.plus(Ev{lw.bw[i % d.GH], 0});
        tr.a[i] = sp.done();
      }
    });
  }
  // Q = sum_k term(r[g][k], h_prev[k]) + bR per step, then the cells.
  const ExactB rt(lw.r, d.H, d.GH, true);
  for (long long s = 0; s < d.T; ++s) {
    const Planes hp = gemm_operand(p, s == 0 ? h0 : &tr.h[(s - 1) * d.N * d.H], d.N * d.H, s > 0);
    SumPlanes q_sums(d.N * d.GH, step_gemm(p));
    add_weighted(q_sums, d.N, hp, [&](const std::vector<double>& plane) { return rows_of(plane.data(), d.N, d.H); }, rt);
    for_rnn_parts(d.N, kRnnElementWork * d.N * d.GH,
                  [&](long long lo, long long hi) { forward_cells(p, d, lw, tr, q_sums, h0, c0, s, lo, hi); });
  }
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
      EvTrace tr = forward_direction(p, in.weights[idx], p.layer_input(l), cur, l > 0, &ps.h0[so], &ps.c0[so], dir == 1);
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

// One layer and direction's backward recursion with bounds (rnn.cpp's Backward): per step s the
// planes of da and drec [s][n][G*H] (drec: GRU only, the other modes' is da), GRU's dh_direct [n][H],
// the running dh_next, dc_next [n][H].
struct EvBackward {
  const RnnProblem& p;
  const Sizes& d;
  const EvTrace& tr;
  const std::vector<Ev>& d_out;  // the layer output's gradient [T][N][D*H]
  long long dir;
  const Ev *h0, *c0;  // [N][H]
  std::vector<Ev> dh_next, dc_next, dh_direct;
  Planes da, drec;

  const Planes& rec() const { return p.mode == RnnMode::gru ? drec : da; }

  // Step s's cell derivatives for samples [lo, hi).
  void cells(long long s, long long lo, long long hi) {
    const long long H = d.H, t = dir == 1 ? d.T - 1 - s : s;
    for (long long n = lo; n < hi; ++n) {
      const Ev* hp = s == 0 ? h0 + n * H : &tr.h[((s - 1) * d.N + n) * H];
      const Ev* cp = s == 0 ? c0 + n * H : &tr.c[((s - 1) * d.N + n) * H];
      const Ev* a = &tr.a[(s * d.N + n) * d.GH];
      const Ev* act = &tr.act[(s * d.N + n) * d.GH];
      const long long o = (s * d.N + n) * H, row = (s * d.N + n) * d.GH;
      Ev* dhn = &dh_next[n * H];
      Ev* dcn = &dc_next[n * H];
      for (long long j = 0; j < H; ++j) {
        const Ev dh = add(d_out[(t * d.N + n) * d.D * H + dir * H + j], dhn[j]);
        switch (p.mode) {
          case RnnMode::relu: da.put(row + j, relu_back(a[j], dh)); break;
          case RnnMode::tanh: da.put(row + j, mul(dh, one_minus(mul(act[j], act[j])))); break;
          case RnnMode::lstm: {
            const Ev i = act[j], f = act[H + j], og = act[2 * H + j], g = act[3 * H + j], tc = tnh(tr.c[o + j]);
            const Ev dc = add(dcn[j], mul(mul(dh, og), one_minus(mul(tc, tc))));
            da.put(row + j, mul(mul(dc, g), mul(i, one_minus(i))));
            da.put(row + H + j, mul(mul(dc, cp[j]), mul(f, one_minus(f))));
            da.put(row + 2 * H + j, mul(mul(dh, tc), mul(og, one_minus(og))));
            da.put(row + 3 * H + j, mul(mul(dc, i), one_minus(mul(g, g))));
            dcn[j] = mul(dc, f);
            break;
          }
          case RnnMode::gru: {
            const Ev z = act[j], r = act[H + j], nn = act[2 * H + j];
            const Ev dn = mul(mul(dh, one_minus(z)), one_minus(mul(nn, nn)));
            const Ev dz = mul(mul(dh, sub(hp[j], nn)), mul(z, one_minus(z)));
            const Ev dr = mul(mul(dn, tr.q[o + j]), mul(r, one_minus(r)));
            da.put(row + j, dz), da.put(row + H + j, dr), da.put(row + 2 * H + j, dn);
            drec.put(row + j, dz), drec.put(row + H + j, dr), drec.put(row + 2 * H + j, mul(dn, r));
            dh_direct[n * H + j] = mul(dh, z);
            break;
          }
        }
      }
    }
  }
};

// total = the chunk sums (reference/rnn_chunks.hpp) merged in chunk order (the first copied, then
// Sum::merge); form(part, order) forms chunk c's sums over its (s, n) order into part (zeros).
template <typename Form>
void merge_chunk_sums(SumPlanes& total, const Sizes& d, Form&& form) {
  for (long long c = 0; c < rnn_chunks(d.N); ++c) {
    SumPlanes part(total.v.size());
    form(part, rnn_chunk_order(d.T, d.N, c));
    for (auto [to, from] : {std::pair{&total.v, &part.v}, std::pair{&total.prop, &part.prop}, std::pair{&total.abs, &part.abs}})
      for (std::size_t i = 0; i < to->size(); ++i) (*to)[i] = c == 0 ? (*from)[i] : (*to)[i] + (*from)[i];
  }
}

// total [rows][cols]: sums over (s, n) of Sum::term(a(s, n)[g], b(s, n)[k]), the Ev operands' rows at
// a_off(s, n) in a's planes and b_off(s, n) in b's; per chunk, merged in chunk order.
template <typename AOff, typename BOff>
void chunked_products(SumPlanes& total, long long rows, long long cols, const Sizes& d, const Planes& a, AOff&& a_off,
                      const Planes& b, BOff&& b_off) {
  merge_chunk_sums(total, d, [&](SumPlanes& part, const std::vector<std::pair<long long, long long>>& order) {
    auto view = [&](const std::vector<double>& plane, auto&& off, bool transposed, bool abs) {
      return rows_by(order, [&](long long s, long long n) { return plane.data() + off(s, n); }, transposed, abs);
    };
    const long long K = static_cast<long long>(order.size());
    ordered_gemm(part.v.data(), cols, rows, {view(a.v, a_off, true, false)},  // v += a.v b.v
                 PackedB(GemmTerm::product, {view(b.v, b_off, false, false)}, K, cols));
    ordered_gemm(part.prop.data(), cols, rows, {view(a.e, a_off, true, false), view(a.v, a_off, true, true)},
                 PackedB(GemmTerm::cross, {view(b.v, b_off, false, true), view(b.e, b_off, false, false)}, K, cols));
    ordered_gemm(part.abs.data(), cols, rows, {view(a.mag, a_off, true, false)},  // abs += mag(a) mag(b)
                 PackedB(GemmTerm::product, {view(b.mag, b_off, false, false)}, K, cols));
  });
}

// total [rows]: sums over (s, n) of Sum::plus(a(s, n)[g]); per chunk, merged in chunk order.
template <typename AOff>
void chunked_sums(SumPlanes& total, long long rows, const Sizes& d, const Planes& a, AOff&& a_off) {
  merge_chunk_sums(total, d, [&](SumPlanes& part, const std::vector<std::pair<long long, long long>>& order) {
    for (auto [s, n] : order)
      for (long long g = 0, i = a_off(s, n); g < rows; ++g, ++i)
        part.v[g] += a.v[i], part.prop[g] += a.e[i], part.abs[g] += a.mag[i];
  });
}

void finish(const SumPlanes& sums, long long terms, std::vector<double>& v, std::vector<double>& e) {
  for (std::size_t i = 0; i < sums.v.size(); ++i) {
    const Ev r = sums.at(i, terms).done();
    v[i] = r.v, e[i] = r.e;
  }
}

void rnn_backward_bounds(const RnnProblem& p, const RnnInputs& in, const std::vector<Ev>& dy, const std::vector<Ev>& dhy,
                         const std::vector<Ev>& dcy, const EvPass& ps, RnnBounds& out) {
  const Sizes d(p);
  const long long H = d.H, GH = d.GH;
  std::vector<Ev> dhx(ps.h0.size()), dcx(p.lstm() ? ps.h0.size() : 0);
  RnnWeights dvals = rnn_weights_like(p), dbounds = rnn_weights_like(p);
  std::vector<Ev> d_out = dy;
  for (long long l = d.L - 1; l >= 0; --l) {
    const long long in_dim = p.layer_input(l);
    const Planes x = planes_of(ps.layer_in[l].data(), ps.layer_in[l].size());
    SumPlanes d_in(x.v.size(), weight_gemm(p));  // over both directions: D*GH terms each
    for (long long dir = 0; dir < d.D; ++dir) {
      const long long idx = l * d.D + dir, so = idx * d.N * H;
      const EvTrace& tr = ps.traces[idx];
      const RnnLayerWeights& lw = in.weights[idx];
      EvBackward bw{p, d, tr, d_out, dir, &ps.h0[so], &ps.c0[so], {}, {}, std::vector<Ev>(d.N * H), Planes(d.T * d.N * GH),
                    Planes(p.mode == RnnMode::gru ? d.T * d.N * GH : 0)};
      bw.dh_next.assign(dhy.begin() + so, dhy.begin() + so + d.N * H);
      bw.dc_next = p.lstm() ? std::vector<Ev>(dcy.begin() + so, dcy.begin() + so + d.N * H) : std::vector<Ev>(d.N * H);
      const ExactB r_rows(lw.r, GH, H, false);
      for (long long s = d.T - 1; s >= 0; --s) {
        for_rnn_parts(d.N, kRnnElementWork * d.N * GH, [&](long long lo, long long hi) { bw.cells(s, lo, hi); });
        // dh_prev[n][k]: Sum over g ascending of term(r[g][k], drec[n][g]), then GRU's dh_direct.
        SumPlanes dh(d.N * H);
        auto step_rows = [&](const std::vector<double>& plane) { return rows_of(&plane[s * d.N * GH], d.N, GH); };
        add_weighted(dh, d.N, bw.rec(), step_rows, r_rows);
        for (long long i = 0; i < d.N * H; ++i) {
          Sum v = dh.at(i, GH);
          if (p.mode == RnnMode::gru) v.plus(bw.dh_direct[i]);
          bw.dh_next[i] = v.done();
        }
      }
      // d_in[t][n][k] continues its Sum with term(w[g][k], da[s][n][g]) (g ascending).
      auto da_rows = [&](const std::vector<double>& plane) { return sequence_rows(plane.data(), d.T, d.N, GH, dir == 1); };
      add_weighted(d_in, d.T * d.N, bw.da, da_rows, ExactB(lw.w, GH, in_dim, false));
      // The parameters: W x rows take da, R h rows drec; h_prev [s][n][H] = h0, then h of steps 0 .. T-2.
      std::vector<Ev> h_prev(ps.h0.begin() + so, ps.h0.begin() + so + d.N * H);
      h_prev.insert(h_prev.end(), tr.h.begin(), tr.h.end() - d.N * H);
      const Planes hp = planes_of(h_prev.data(), h_prev.size());
      auto da_off = [&](long long s, long long n) { return (s * d.N + n) * GH; };
      auto x_off = [&](long long s, long long n) { return ((dir == 1 ? d.T - 1 - s : s) * d.N + n) * in_dim; };
      auto h_off = [&](long long s, long long n) { return (s * d.N + n) * H; };
      SumPlanes sw(GH * in_dim), sr(GH * H);
      chunked_products(sw, GH, in_dim, d, bw.da, da_off, x, x_off);
      chunked_products(sr, GH, H, d, bw.rec(), da_off, hp, h_off);
      finish(sw, d.T * d.N, dvals[idx].w, dbounds[idx].w);
      finish(sr, d.T * d.N, dvals[idx].r, dbounds[idx].r);
      if (p.bias) {
        SumPlanes sbw(GH), sbr(GH);
        chunked_sums(sbw, GH, d, bw.da, da_off);
        chunked_sums(sbr, GH, d, bw.rec(), da_off);
        finish(sbw, d.T * d.N, dvals[idx].bw, dbounds[idx].bw), finish(sbr, d.T * d.N, dvals[idx].br, dbounds[idx].br);
      }
      std::copy(bw.dh_next.begin(), bw.dh_next.end(), dhx.begin() + so);
      if (p.lstm()) std::copy(bw.dc_next.begin(), bw.dc_next.end(), dcx.begin() + so);
    }
    d_out.assign(d_in.v.size(), Ev{});
    for (std::size_t i = 0; i < d_out.size(); ++i) d_out[i] = d_in.at(i, d.D * GH).done();
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
