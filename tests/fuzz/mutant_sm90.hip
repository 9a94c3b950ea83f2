// GPU mutants of conv.igemm.wgmma (see mutant_sm90.hpp): the one translation unit that instantiates
// the production kernels with IgemmMutant != none (built for sm_90a only, test-only library).
// Host side: the production plan (plan_igemm, make_igemm_launch) of a bf16 NHWC fwd problem with
// C % 8 == 0, config m128n128k64.s3.splitk{1|3}.ws.tma, then igemm_sm90_launch_mutant<..., M>: the
// production launch_tile (TMA maps, grid, smem) and split-K reductions with the bug planted.
#define HIPRIM_IGEMM_MUTANTS 1
#include "tests/fuzz/mutant_sm90.hpp"

#include "core/error.hpp"
#include "gpu/conv/igemm_sm90.hpp"
#include "gpu/conv/igemm_sm90_launch.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::fuzz_test {
namespace {

namespace sm90 = gpu::sm90;
constexpr int kSplit = 3;  // the split-K config's splits: 3 partials, so a rotated order is not commutative

sm90::IgemmConfig config_of(const sm90::IgemmPlan& pl, bool split) {
  const long long kb = (pl.kred_max + pl.kblock - 1) / pl.kblock;
  return sm90::IgemmConfig{128, 128, 3, split && kb >= kSplit ? kSplit : 1, true, true};
}

// The watchdog's count of timed-out mbarrier waits (igemm_sm90_mutant.hpp), read after the run and reset.
unsigned take_watchdog_timeouts(hipStream_t s, const std::string& ctx) {
#if HIPRIM_PLATFORM_NVIDIA
  unsigned n = 0;
  HIPRIM_CHECK(cudaStreamSynchronize(s), "synchronising " + ctx);
  HIPRIM_CHECK(cudaMemcpyFromSymbol(&n, sm90::igemm_mutant_counters, sizeof n), "reading the watchdog of " + ctx);
  if (n != 0) {
    const unsigned zero = 0;
    HIPRIM_CHECK(cudaMemcpyToSymbol(sm90::igemm_mutant_counters, &zero, sizeof zero), "resetting the watchdog");
  }
  return n;
#else
  (void)s, (void)ctx;
  return 0;
#endif
}

template <IgemmMutant M>
void launch(const sm90::IgemmLaunch& L, const sm90::IgemmConfig& c, const sm90::IgemmBuffers& buf, void* stream,
            const std::string& ctx) {
#if HIPRIM_PLATFORM_NVIDIA
  sm90::igemm_sm90_launch_mutant<hiprim_bf16_t, 128, 128, sm90::IgemmDir::fwd, true, true, M>(L, c, buf, stream, ctx);
#else
  (void)L, (void)c, (void)buf, (void)stream;
  throw InputError(ctx + ": the sm90 mutants need NVIDIA sm_90a");
#endif
}

class Sm90Mutant final : public ConvSolver {
 public:
  Sm90Mutant(IgemmMutant m, bool split) : m_(m), split_(split) {}
  std::string name() const override {
    return "sm90.mutant." + sm90_mutant_name(m_) + (split_ && m_ == IgemmMutant::none ? ".splitk" : "");
  }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override { return "conv.igemm.wgmma's kernel path with a planted bug: " + sm90_mutant_description(m_); }
  double accumulation_error_factor() const override { return 2.0; }  // as conv.igemm.wgmma: truncating tensor-core adds
  // As conv.igemm.wgmma's fwd: padding and border taps are zero-filled loads fed to the MMA.
  ImplicitZeros implicit_zeros(const ConvProblem&) const override {
    return {.padding = ZeroTerm::multiplied, .border_taps = ZeroTerm::multiplied, .stride_holes = ZeroTerm::skipped};
  }
  Applicability applicable(const ConvProblem& p) const override {
    if (const std::string why = gpu::igemm_sm90_unavailable(); !why.empty()) return Applicability::no(why);
    if (p.dir != ConvDir::fwd || p.dtype != DType::bf16) return Applicability::no("the mutants' kernels are bf16 fwd only");
    const sm90::IgemmPlan pl = sm90::plan_igemm(p);
    if (!pl.refusal.empty()) return Applicability::no(pl.refusal);
    if (pl.c_pad > 0) return Applicability::no("C % 8 != 0 (the channel-padding copies are not wired into the mutants)");
    if (m_ == IgemmMutant::no_fence && (pl.params.a_dense || pl.params.a_im2col))  // (TMA writes need no proxy fence)
      return Applicability::no("no_fence needs A by cp.async: the fence orders its generic-proxy writes before wgmma's reads");
    // (s22's device run: unrestricted, 1500 cases held too few with 3 k-blocks to show the rotated order)
    if (m_ == IgemmMutant::splitk_order && (pl.kred_max + pl.kblock - 1) / pl.kblock < kSplit)
      return Applicability::no("splitk_order needs at least 3 k-blocks of 64 (C*R*S > 128) to split the reduction");
    if (m_ == IgemmMutant::tma_edge && !pl.params.a_im2col)
      return Applicability::no("tma_edge needs A by TMA im2col (C % 64 == 0, not a dense 1x1)");
    if (const std::string why = sm90::igemm_config_refusal(pl, config_of(pl, split_)); !why.empty()) return Applicability::no(why);
    return Applicability::yes();
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    const sm90::IgemmPlan pl = sm90::plan_igemm(p);
    return pl.refusal.empty() ? sm90::make_igemm_launch(pl, config_of(pl, split_)).workspace_bytes : 0;
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const sm90::IgemmPlan pl = sm90::plan_igemm(p);
    const sm90::IgemmConfig c = config_of(pl, split_);
    const sm90::IgemmLaunch L = sm90::make_igemm_launch(pl, c);
    const sm90::IgemmBuffers buf{t.x, t.w, t.y, p.bias ? t.bias : nullptr, t.workspace, {}};
    const std::string ctx = name() + " " + to_string(c) + " " + to_string(p);
    switch (m_) {
      case IgemmMutant::none: launch<IgemmMutant::none>(L, c, buf, t.stream, ctx); break;
      case IgemmMutant::parity: launch<IgemmMutant::parity>(L, c, buf, t.stream, ctx); break;
      case IgemmMutant::no_fence: launch<IgemmMutant::no_fence>(L, c, buf, t.stream, ctx); break;
      case IgemmMutant::early_release: launch<IgemmMutant::early_release>(L, c, buf, t.stream, ctx); break;
      case IgemmMutant::k_tail: launch<IgemmMutant::k_tail>(L, c, buf, t.stream, ctx); break;
      case IgemmMutant::tma_edge: launch<IgemmMutant::tma_edge>(L, c, buf, t.stream, ctx); break;
      case IgemmMutant::splitk_order: launch<IgemmMutant::splitk_order>(L, c, buf, t.stream, ctx); break;
    }
    if (const unsigned n = take_watchdog_timeouts(static_cast<hipStream_t>(t.stream), ctx); n != 0)
      throw RuntimeError("watchdog: " + std::to_string(n) + " mbarrier waits timed out (a deadlock) in " + ctx);
  }

 private:
  IgemmMutant m_;
  bool split_;
};

}  // namespace

std::string sm90_mutant_name(IgemmMutant m) {
  switch (m) {
    case IgemmMutant::none: return "none";
    case IgemmMutant::parity: return "parity";
    case IgemmMutant::no_fence: return "no_fence";
    case IgemmMutant::early_release: return "early_release";
    case IgemmMutant::k_tail: return "k_tail";
    case IgemmMutant::tma_edge: return "tma_edge";
    case IgemmMutant::splitk_order: return "splitk_order";
  }
  return "?";
}

std::string sm90_mutant_description(IgemmMutant m) {
  switch (m) {
    case IgemmMutant::none: return "no bug (control)";
    case IgemmMutant::parity:
      return "wrong mbarrier phase parity: the producer waits empty[s] for parity use&1 instead of (use-1)&1: once the "
             "consumers released the stage it waits for a release that needs the refill it is about to issue (a deadlock), "
             "before that it does not wait at all (an early refill) (igemm_sm90_kernel.hpp, producer's empty wait)";
    case IgemmMutant::no_fence:
      return "missing fences: no fence.proxy.async after the full[s] wait and no wgmma.fence before a stage's MMAs "
             "(igemm_sm90_kernel.hpp, consumer loop and mma_stage)";
    case IgemmMutant::early_release:
      return "stage reused before its consumers released it: the producer never waits on empty[s] (igemm_sm90_kernel.hpp)";
    case IgemmMutant::k_tail:
      return "dropped K tail: k-blocks = kred / 64 (floor), the last partial k-block is never multiplied (igemm_sm90_kernel.hpp)";
    case IgemmMutant::tma_edge:
      return "wrong TMA box at the image edge: the im2col map's upper W corner one pixel too far, so the traversal "
             "walks Q+1 base positions per output row (igemm_sm90_launch.hpp, im2col_tensor_map)";
    case IgemmMutant::splitk_order:
      return "split-K partials summed in a varying order: the reduction starts at split (launch ticket % splits), a "
             "device counter never reset (igemm_sm90_kernel.hpp, igemm_sm90_reduce)";
  }
  return "?";
}

std::string sm90_mutant_expected_catch(IgemmMutant m) {
  switch (m) {
    case IgemmMutant::none: return "passes";
    case IgemmMutant::parity: return "watchdog error (deadlock) or wrong answer";
    case IgemmMutant::early_release: return "wrong answer or watchdog error";
    case IgemmMutant::no_fence: return "wrong answer (a race: may survive)";
    case IgemmMutant::splitk_order: return "nondeterminism (second run differs)";
    default: return "wrong answer";
  }
}

std::vector<IgemmMutant> all_sm90_mutants() {
  return {IgemmMutant::parity, IgemmMutant::no_fence, IgemmMutant::early_release, IgemmMutant::k_tail, IgemmMutant::tma_edge,
          IgemmMutant::splitk_order};
}

std::optional<IgemmMutant> sm90_mutant_by_name(const std::string& name) {
  for (IgemmMutant m : all_sm90_mutants())
    if (sm90_mutant_name(m) == name) return m;
  if (name == "none") return IgemmMutant::none;
  return std::nullopt;
}

bool sm90_mutant_splits(IgemmMutant m) { return m == IgemmMutant::splitk_order; }
bool sm90_mutant_may_survive(IgemmMutant m) { return m == IgemmMutant::no_fence; }

std::string sm90_mutant_config(const ConvProblem& p, bool split) {
  const sm90::IgemmPlan pl = sm90::plan_igemm(p);
  if (!pl.refusal.empty()) return "";
  return to_string(config_of(pl, split));
}

std::shared_ptr<const ConvSolver> make_sm90_mutant(IgemmMutant m, bool split) { return std::make_shared<Sm90Mutant>(m, split); }

}  // namespace hiprim::fuzz_test
