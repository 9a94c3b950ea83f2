// hiprim pool and hiprim lrn: MIOpenDriver's pooling and LRN flags (+ the common op flags,
// cli/op_command.hpp).
#include "cli/op_command.hpp"
#include "core/error.hpp"
#include "core/lrn_problem.hpp"
#include "core/pool_problem.hpp"

namespace hiprim::cli {


namespace {

// -F: 0 both directions, 1 forward only, 2 backward only.
std::vector<bool> directions(int forw) { return {forw == 0 || forw == 1, forw == 0 || forw == 2}; }

}  // namespace

Command add_pool(CLI::App& app) {
  auto* sub = app.add_subcommand("pool", "Run pooling solvers (max, average incl./excl. padding; fwd/bwd; 2D/3D) and verify them");
  struct Flags {
    OpCommonFlags common;
    std::int64_t y = 3, x = 3, Z = 3, p = 0, q = 0, o = 0, v = 1, u = 1, s = 1;
    std::string mode = "max";
    int forw = 0;
  };
  auto f = std::make_shared<Flags>();
  f->common.n = 2;
  f->common.c = 3;
  f->common.H = 32;
  f->common.W = 32;
  f->common.add_to(*sub);
  const auto nonneg = int_at_least(0), positive = int_at_least(1);
  sub->add_option("-y,--win_h", f->y, "Window height")->check(positive)->capture_default_str();
  sub->add_option("-x,--win_w", f->x, "Window width")->check(positive)->capture_default_str();
  sub->add_option("-Z,--win_d", f->Z, "Window depth (3D)")->check(positive)->capture_default_str();
  sub->add_option("-p,--pad_h", f->p, "Zero padding height")->check(nonneg)->capture_default_str();
  sub->add_option("-q,--pad_w", f->q, "Zero padding width")->check(nonneg)->capture_default_str();
  sub->add_option("-o,--pad_d", f->o, "Zero padding depth (3D)")->check(nonneg)->capture_default_str();
  sub->add_option("-v,--pool_stride_h", f->v, "Stride height")->check(positive)->capture_default_str();
  sub->add_option("-u,--pool_stride_w", f->u, "Stride width")->check(positive)->capture_default_str();
  sub->add_option("-s,--pool_stride_d", f->s, "Stride depth (3D)")->check(positive)->capture_default_str();
  sub->add_option("-m,--mode", f->mode,
                  "max, avg (MIOpen: excluding padding) or avg_in (including padding); avg_excl/avg_incl also accepted")
      ->check(CLI::IsMember({"max", "avg", "avg_in", "avg_excl", "avg_incl"}))
      ->capture_default_str();
  sub->add_option("-F,--forw", f->forw, "0 forward and backward, 1 forward only, 2 backward only")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  return [f, sub] {
    PoolProblem p;
    p.shape = f->common.shape();
    p.mode = f->mode == "max" ? PoolMode::max : (f->mode == "avg_in" || f->mode == "avg_incl") ? PoolMode::avg_incl : PoolMode::avg_excl;
    if (p.rank() == 3) {
      p.window = {f->Z, f->y, f->x};
      p.pad = {f->o, f->p, f->q};
      p.stride = {f->s, f->v, f->u};
    } else {
      for (auto* o : {"--win_d", "--pad_d", "--pool_stride_d"})
        if (sub->count(o)) throw InputError(std::string(o) + " needs a 3D input (-D or --layout ncdhw/ndhwc)");
      p.window = {f->y, f->x};
      p.pad = {f->p, f->q};
      p.stride = {f->v, f->u};
    }
    std::vector<OpProblemPtr> problems;
    const auto dirs = directions(f->forw);
    for (auto d : {PoolDir::fwd, PoolDir::bwd}) {
      if (!dirs[d == PoolDir::fwd ? 0 : 1]) continue;
      PoolProblem q = p;
      q.dir = d;
      problems.push_back(make_op_problem(q));
    }
    return run_op_problems(problems, f->common);
  };
}

Command add_lrn(CLI::App& app) {
  auto* sub = app.add_subcommand("lrn", "Run LRN solvers (within/across channel; fwd/bwd) and verify them");
  struct Flags {
    OpCommonFlags common;
    std::int64_t N = 5;
    double A = 0.001, B = 0.75, K = 1.0;
    std::string mode = "within";
    int forw = 0;
  };
  auto f = std::make_shared<Flags>();
  f->common.n = 2;
  f->common.c = 8;
  f->common.H = 16;
  f->common.W = 16;
  f->common.add_to(*sub);
  sub->add_option("-N,--lrnN", f->N, "Window size n (odd)")->capture_default_str();
  sub->add_option("-A,--alpha", f->A, "alpha (scale = k + alpha/area * sum x^2)")->capture_default_str();
  sub->add_option("-B,--beta", f->B, "beta (y = x * scale^-beta)")->capture_default_str();
  sub->add_option("-K,--lrnK", f->K, "k (> 0)")->capture_default_str();
  sub->add_option("-m,--mode", f->mode, "within (within_channel) or across (cross_channel, across_channel)")
      ->check(CLI::IsMember({"within", "within_channel", "across", "cross_channel", "across_channel"}))
      ->capture_default_str();
  sub->add_option("-F,--forw", f->forw, "0 forward and backward, 1 forward only, 2 backward only")
      ->check(CLI::Range(0, 2))
      ->capture_default_str();
  return [f] {
    LrnProblem p;
    p.shape = f->common.shape();
    p.mode = f->mode.rfind("within", 0) == 0 ? LrnMode::within : LrnMode::across;
    p.size = f->N;
    p.alpha = f->A;
    p.beta = f->B;
    p.k = f->K;
    std::vector<OpProblemPtr> problems;
    const auto dirs = directions(f->forw);
    for (auto d : {LrnDir::fwd, LrnDir::bwd}) {
      if (!dirs[d == LrnDir::fwd ? 0 : 1]) continue;
      LrnProblem q = p;
      q.dir = d;
      problems.push_back(make_op_problem(q));
    }
    return run_op_problems(problems, f->common);
  };
}

}  // namespace hiprim::cli
