#include "reference/bnorm.hpp"

#include <cmath>

#include "core/error.hpp"
#include "reference/error_model.hpp"

// Tolerance policy. The solver model (every GPU bnorm solver): per group of M values, in fp32,
//   mean' = (sum x)/M; var' = (sum (x - mean')^2)/M; inv' = 1/sqrt(var' + eps); y = (x - mean')*(scale*inv') + bias;
//   bwd: xhat' = (x - m)*s; dbias' = sum dy; dscale' = sum dy*xhat'; dx = (scale*s/M)*(M*dy - dbias' - xhat'*dscale')
// with sums in any order (gamma(n) = n*u/(1-n*u), u = 2^-24; A = sum|x|/M):
//   Em  = |mean' - mean| <= gamma(M+2)*A                                   (sum, divide)
//   sum (x - mean')^2 = M*var + M*(mean' - mean)^2, each term off by <= gamma(M+3) (subtract, square, M-1 adds), divide:
//   Ev  = |var' - var| <= gamma(M+4)*(var + Em^2) + Em^2
//   inv' relative error es <= (Ev + u*eps)/(2(var + eps)) + 2.5u              (eps rounding, add, sqrt, divide)
//   y:  |scale|*inv*Em + |scale*xhat|*(es + 3u) + u|y|                      (subtract, scale*inv, product; add bias)
//   saved_mean: Em; saved_inv_std: es*inv
//   running_mean <- (1-m) rm + m mean':  |m| Em + 3u(|(1-m) rm| + |m mean|) + u|result|
//   running_var  <- (1-m) rv + m var' f, f = M/(M-1) (fp32 divide): |m| f Ev + 4u|m f var| + 3u|(1-m) rv| + u|result|
//   fwd-infer: y = (x - mean)*(scale*inv) + bias, inv = 1/sqrt(var + eps): 6u|scale*xhat| + u|y|
//   bwd: Edb = gamma(M) sum|dy|; Eds = gamma(M+3) sum|dy*xhat|; with Mag = M|dy| + |dbias| + |xhat*dscale|,
//        c = scale*s/M (two roundings and fp32 M's):  dx: |c| (Edb + |xhat| Eds + 5u Mag) + 4u|dx|
// plus the reference's own double rounding (2^-50 relative) and the store of y/dx into the dtype
// (store_bound); the statistics and dscale/dbias are stored as computed when stats_dtype is fp32,
// else with the store into stats_dtype added the same way (MIOpenDriver's bnormfp16 keeps them in
// fp16). fp16/bf16 scale and bias are inputs: exact values, no extra term.

namespace hiprim::ref {
namespace {

constexpr double u = kUnitFp32;

double g(std::int64_t n) { return gamma_n(n, u); }

double finish(DType dt, double value, double bound) { return stored_bound(dt, value, bound); }
// A statistic or parameter gradient: as computed in fp32, plus the store when stats_dtype is not fp32.
double finish_stat(DType st, double value, double bound) { return st == DType::fp32 ? bound : stored_bound(st, value, bound); }

}  // namespace

std::vector<std::vector<std::int64_t>> bnorm_groups(const BnormProblem& p) {
  const TensorDesc x = p.shape.desc(), pd = p.param_desc();
  std::vector<std::vector<std::int64_t>> groups(static_cast<std::size_t>(pd.storage_elements()));
  for_each_index(x.dims, [&](const Dims& idx) {
    std::int64_t gi;
    if (p.mode == BnormMode::spatial) {
      gi = idx[1];
    } else {
      Dims one = idx;
      one[0] = 0;
      gi = pd.offset(one);
    }
    groups[static_cast<std::size_t>(gi)].push_back(x.offset(idx));
  });
  return groups;
}

std::vector<OpExpected> bnorm_expected(const OpProblem& op, const std::vector<const HostTensor*>& in) {
  const BnormProblem* p = op_problem_cast<BnormProblem>(op);
  if (!p) throw InputError("bnorm reference: not a bnorm problem: " + op.str());
  const DType dt = p->shape.dtype;
  const TensorDesc xd = p->shape.desc(), pd = p->stats_desc();
  const DType st = p->stats_dtype;
  const auto groups = bnorm_groups(*p);
  const double M = static_cast<double>(p->group_size());
  const std::int64_t Mi = p->group_size();
  const double eps = p->epsilon;
  const std::string rule = "two-pass fp32 error model of reference/bnorm.cpp (gamma(M) sums, u=2^-24) + store into " +
                           std::string(dtype_name(dt));
  const HostTensor& x = *in[0];

  if (p->dir == BnormDir::bwd) {
    const HostTensor &dy = *in[1], &scale = *in[2], &smean = *in[3], &sinv = *in[4];
    OpExpected dx = make_expected("dx", xd, rule), dscale = make_expected("dscale", pd, rule), dbias = make_expected("dbias", pd, rule);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const auto& grp = groups[gi];
      const double m = smean.data[gi], s = sinv.data[gi], sc = scale.data[gi];
      double sb = 0, ss = 0, ab = 0, as = 0;
      for (auto o : grp) {
        const double d = dy.data[o], xh = (x.data[o] - m) * s;
        sb += d;
        ss += d * xh;
        ab += std::fabs(d);
        as += std::fabs(d * xh);
      }
      const double edb = g(Mi) * ab, eds = g(Mi + 3) * as;
      dbias.value[gi] = sb;
      dbias.bound[gi] = finish_stat(st, sb, edb + kReferenceRel * ab);
      dscale.value[gi] = ss;
      dscale.bound[gi] = finish_stat(st, ss, eds + kReferenceRel * as);
      const double c = sc * s / M;
      for (auto o : grp) {
        const double d = dy.data[o], xh = (x.data[o] - m) * s;
        const double v = c * (M * d - sb - xh * ss);
        const double mag = M * std::fabs(d) + std::fabs(sb) + std::fabs(xh * ss);
        dx.value[o] = v;
        dx.bound[o] = finish(dt, v, std::fabs(c) * (edb + std::fabs(xh) * eds + 5 * u * mag) + 4 * u * std::fabs(v));
      }
    }
    return {dx, dscale, dbias};
  }

  const HostTensor &scale = *in[1], &bias = *in[2];
  OpExpected y = make_expected("y", xd, rule);
  if (p->dir == BnormDir::fwd_infer) {
    const HostTensor &emean = *in[3], &evar = *in[4];
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const double inv = 1.0 / std::sqrt(evar.data[gi] + eps), sc = scale.data[gi], b = bias.data[gi], m = emean.data[gi];
      for (auto o : groups[gi]) {
        const double t = sc * (x.data[o] - m) * inv, v = t + b;
        y.value[o] = v;
        y.bound[o] = finish(dt, v, 6 * u * std::fabs(t) + u * std::fabs(v));
      }
    }
    return {y};
  }

  // fwd-train
  const HostTensor &rmean = *in[3], &rvar = *in[4];
  const double mom = *p->momentum, f = M / (M - 1.0);
  OpExpected rm = make_expected("running_mean", pd, rule), rv = make_expected("running_var", pd, rule);
  OpExpected sm = make_expected("saved_mean", pd, rule), si = make_expected("saved_inv_std", pd, rule);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const auto& grp = groups[gi];
    double sum = 0, asum = 0;
    for (auto o : grp) {
      sum += x.data[o];
      asum += std::fabs(x.data[o]);
    }
    const double mean = sum / M, A = asum / M;
    double sq = 0;
    for (auto o : grp) sq += (x.data[o] - mean) * (x.data[o] - mean);
    const double var = sq / M, inv = 1.0 / std::sqrt(var + eps);
    const double em = g(Mi + 2) * A;
    const double ev = g(Mi + 4) * (var + em * em) + em * em;
    const double es = (ev + u * eps) / (2.0 * (var + eps)) + 2.5 * u;
    const double sc = scale.data[gi], b = bias.data[gi];
    for (auto o : grp) {
      const double xh = (x.data[o] - mean) * inv, v = sc * xh + b;
      y.value[o] = v;
      y.bound[o] = finish(dt, v, std::fabs(sc) * inv * em + std::fabs(sc * xh) * (es + 3 * u) + u * std::fabs(v));
    }
    sm.value[gi] = mean;
    sm.bound[gi] = finish_stat(st, mean, em + kReferenceRel * A);
    si.value[gi] = inv;
    si.bound[gi] = finish_stat(st, inv, es * inv + kReferenceRel * inv);
    const double r0 = rmean.data[gi], v0 = rvar.data[gi];
    const double rmv = (1 - mom) * r0 + mom * mean, rvv = (1 - mom) * v0 + mom * var * f;
    rm.value[gi] = rmv;
    rm.bound[gi] = finish_stat(st, rmv,
                               std::fabs(mom) * em + 3 * u * (std::fabs((1 - mom) * r0) + std::fabs(mom * mean)) + u * std::fabs(rmv) +
                                   kReferenceRel * std::fabs(rmv));
    rv.value[gi] = rvv;
    rv.bound[gi] = finish_stat(st, rvv,
                               std::fabs(mom) * f * ev + 4 * u * std::fabs(mom * f * var) + 3 * u * std::fabs((1 - mom) * v0) +
                                   u * std::fabs(rvv) + kReferenceRel * std::fabs(rvv));
  }
  return {rm, rv, y, sm, si};
}

}  // namespace hiprim::ref
