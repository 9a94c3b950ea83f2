// conv.<inner>.nchw: an NCHW (NCDHW) convolution run by a channels-last solver on transposed copies.
// Every conv tensor has dims [D0][D1][spatial...] (x, y: [N][C or K]; w: [K][C/G] in mode conv,
// [C][K/G] in mode trans). NCHW stores it as [D0][D1][S] and NHWC as [D0][S][D1] (S = the product of
// the spatial sizes), so each layout change is a batched transpose dst[b][j][i] = src[b][i][j]: a bit
// copy, exact. The direction's inputs are transposed into the workspace, the inner solver runs the
// channels-last twin of the problem there, and its output is transposed back (where S == 1 or
// D1 == 1 the two layouts are the same bytes and the tensor is used in place). Cost: each copied
// tensor is read and written once more (gpu/common/transpose16.hpp: transpose16 for 16-bit dtypes,
// transpose32 for fp32).
// Workspace: [x copy | w copy | y copy | the inner solver's workspace], each 256-byte aligned.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "core/error.hpp"
#include "gpu/common/transpose16.hpp"
#include "gpu/conv/nchw_via_nhwc.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/runtime/check.hpp"
#include "gpu/runtime/hip_compat.hpp"

namespace hiprim::gpu {
namespace {

// [d0][rows][cols] -> [d0][cols][rows] of elem_bytes-byte elements (transpose16: 16-byte pieces
// where the extents allow, else one element per access; transpose32 for 4-byte elements).
void transpose(const void* src, void* dst, std::size_t elem_bytes, long long d0, long long rows, long long cols,
               hipStream_t s, const std::string& ctx) {
  const Transpose16 t{rows, cols, cols, cols, rows};
  const AffineBatches batches{0, rows * cols, 0, rows * cols};
  transpose_elems(elem_bytes, src, dst, t, d0, batches, s, ctx);
}

class ConvNchwViaNhwc final : public ConvSolver {
 public:
  explicit ConvNchwViaNhwc(std::shared_ptr<const ConvSolver> inner) : inner_(std::move(inner)) {}
  std::string name() const override { return inner_->name() + ".nchw"; }
  Backend backend() const override { return inner_->backend(); }
  std::string summary() const override {
    return "NCHW/NCDHW as " + inner_->name() + " on channels-last copies (batched transposes in the workspace; " +
           "x, w, y each read and written once more)";
  }
  bool deterministic() const override { return inner_->deterministic(); }
  double accumulation_error_factor() const override { return inner_->accumulation_error_factor(); }
  bool needs_independent_oracle() const override { return inner_->needs_independent_oracle(); }
  std::vector<std::string> perf_configs() const override { return inner_->perf_configs(); }
  std::string default_perf_config() const override { return inner_->default_perf_config(); }

  ImplicitZeros implicit_zeros(const ConvProblem& p) const override { return inner_->implicit_zeros(nhwc_twin(p)); }
  ConvErrorModel error_model(const ConvProblem& p) const override { return inner_->error_model(nhwc_twin(p)); }
  Applicability applicable(const ConvProblem& p) const override {
    if (const std::string why = nchw_via_nhwc_refusal(p, inner_->name()); !why.empty()) return Applicability::no(why);
    return inner_->applicable(nhwc_twin(p));
  }
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    return nchw_copies(p).inner_offset + inner_->workspace_bytes(nhwc_twin(p));
  }
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    return applicable(p) ? inner_->configs_for(nhwc_twin(p)) : std::vector<std::string>{};
  }
  std::string default_config_for(const ConvProblem& p) const override { return inner_->default_config_for(nhwc_twin(p)); }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    return nchw_copies(p).inner_offset + inner_->config_workspace_bytes(nhwc_twin(p), config);
  }

 protected:
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const ConvProblem q = nhwc_twin(p);
    const NchwCopies cp = nchw_copies(p);
    const std::string ctx = name() + " " + to_string(p);
    const hipStream_t hs = static_cast<hipStream_t>(t.stream);
    unsigned char* const ws = static_cast<unsigned char*>(t.workspace);
    ConvTensors u = t;  // the inner solver's tensors: the copies where the layouts differ
    void* ConvTensors::* const slot[3] = {&ConvTensors::x, &ConvTensors::w, &ConvTensors::y};
    const ConvSlot out = p.dir == ConvDir::fwd ? ConvSlot::y : p.dir == ConvDir::bwd_data ? ConvSlot::x : ConvSlot::w;
    for (int i = 0; i < 3; ++i) {
      const NchwCopy& c = cp.copy[i];
      if (!c.copied) continue;
      u.*slot[i] = ws + c.offset;
      if (static_cast<int>(out) != i) transpose(t.*slot[i], u.*slot[i], cp.elem_bytes, c.d0, c.d1, c.s, hs, ctx);
    }
    u.workspace = ws + cp.inner_offset;
    u.workspace_bytes = t.workspace_bytes - cp.inner_offset;
    if (u.workspace_bytes == 0) u.workspace = nullptr;
    inner_->run(q, u);
    const NchwCopy& o = cp.copy[static_cast<int>(out)];
    if (o.copied) transpose(u.*slot[static_cast<int>(out)], t.*slot[static_cast<int>(out)], cp.elem_bytes, o.d0, o.s, o.d1, hs, ctx);
  }

 private:
  std::shared_ptr<const ConvSolver> inner_;
};

}  // namespace

std::shared_ptr<const ConvSolver> make_conv_nchw_via_nhwc(std::shared_ptr<const ConvSolver> inner) {
  return std::make_shared<ConvNchwViaNhwc>(std::move(inner));
}

}  // namespace hiprim::gpu
