// conv.igemm.wgmma: 2D NHWC convolution, fwd / bwd-data (strided by sub-pixel classes) / bwd-weights,
// fp16/bf16 with fp32 accumulation (and fp32 problems with math=tf32: fwd, bwd-data via .flip, inputs
// read as TF32 by wgmma .tf32; igemm_sm90_plan.hpp), as an implicit GEMM on Hopper's warpgroup MMA (wgmma, sm_90a):
// plan and roles in igemm_sm90_plan.hpp, kernels in igemm_sm90_kernel.hpp. Groups 1, K a multiple
// of 8, any stride/pad/dilation; C % 8 != 0 (the stem) runs on channel-padded workspace copies. Padded taps, missing rows and K tails are zero-filled
// loads, so they contribute w*0 like im2col (0*Inf = NaN). Deterministic: each output is one fixed
// sequence of tensor-core adds (plus, with split-K, a fixed-order sum of the split partials).
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <utility>
#include <memory>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "reference/error_model.hpp"
#include "gpu/common/numeric.hpp"
#include "gpu/common/transpose16.hpp"
#include "gpu/conv/conv_geom.hpp"
#include "gpu/runtime/hip_compat.hpp"
#include "gpu/conv/igemm_sm90.hpp"
#include "gpu/conv/igemm_sm90_plan.hpp"
#include "gpu/conv/solvers.hpp"
#include "gpu/runtime/device.hpp"
#include "gpu/runtime/launch.hpp"
#include "gpu/runtime/check.hpp"

namespace hiprim::gpu {
namespace {

using sm90::IgemmConfig;
using sm90::IgemmDir;
using sm90::IgemmPlan;

// Channel padding of the C % 8 != 0 problems (bit copies of 16-bit elements, zeros in the new
// channels): dst[r][ch] = ch < c ? src[r][ch] : 0 over rows x cp, and the cut back.
constexpr int kPadThreads = 256;
__global__ void __launch_bounds__(kPadThreads)
    cut_channels_kernel(const std::uint16_t* __restrict__ src, std::uint16_t* __restrict__ dst, long long rows, int c, int cp) {
  const long long n = rows * c, step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long e = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; e < n; e += step) {
    const long long r = e / c;
    dst[e] = src[r * cp + (e - r * c)];
  }
}
// The pad, one thread per row (cp % 8 == 0: the plan pads to a multiple of 8): cp/8 16-byte pieces.
__global__ void __launch_bounds__(kPadThreads)
    pad_channels_kernel(const std::uint16_t* __restrict__ src, std::uint16_t* __restrict__ dst, long long rows, int c, int cp) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long r = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; r < rows; r += step)
    for (int j = 0; j < cp; j += 8) {
      std::uint32_t w[4];
#pragma unroll
      for (int u = 0; u < 8; u += 2) {
        const std::uint32_t lo = j + u < c ? src[r * c + j + u] : 0u, hi = j + u + 1 < c ? src[r * c + j + u + 1] : 0u;
        w[u / 2] = lo | (hi << 16);
      }
      *reinterpret_cast<uint4*>(dst + r * cp + j) = make_uint4(w[0], w[1], w[2], w[3]);
    }
}
void pad_channels(const void* src, void* dst, long long rows, int c, int cp, hipStream_t s, const std::string& ctx) {
  pad_channels_kernel<<<grid_stride_blocks(rows, kPadThreads), kPadThreads, 0, s>>>(
      static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst), rows, c, cp);
  HIPRIM_CHECK_LAUNCH("pad_channels_kernel", ctx);
}
void cut_channels(const void* src, void* dst, long long rows, int c, int cp, hipStream_t s, const std::string& ctx) {
  cut_channels_kernel<<<grid_stride_blocks(rows * c, kPadThreads), kPadThreads, 0, s>>>(
      static_cast<const std::uint16_t*>(src), static_cast<std::uint16_t*>(dst), rows, c, cp);
  HIPRIM_CHECK_LAUNCH("cut_channels_kernel", ctx);
}

// The filter copies of the two bwd-data lowerings (16-bit elements by transpose16, fp32 by
// transpose32: gpu/common/transpose16.hpp, bit copies), one batch per tap t: w [K][RS][C] -> dst [C_out][RS][K] with
// dst[c][t][k] = w[k][flip ? RS-1-t : t][c] and zero rows for C <= c < C_out. .flip: C_out = C, flip
// (RS-1-t is the tap (R-1-r, S-1-s)); .col2im: w viewed as [K][1][R*S*C], C_out = Jp, no flip (w^T
// with zero rows).
void permute_filter(const void* w, void* dst, int k, int rs, int c, int c_out, bool flip, std::size_t elem_bytes,
                    hipStream_t s, const std::string& ctx) {
  const Transpose16 t{k, c, c_out, static_cast<long long>(rs) * c, static_cast<long long>(rs) * k};
  const AffineBatches m{flip ? (rs - 1LL) * c : 0, flip ? -static_cast<long long>(c) : c, 0, k};
  transpose_elems(elem_bytes, w, dst, t, rs, m, s, ctx);
}

// The strided .flip's sub-filters (igemm_sm90_plan.hpp): dst[(z*C + c)*ld + kk] = w[weight_offset(wt_z,
// kk, c)] for kk < kred_z, else 0; by transpose16 with one batch per (class z, K-wide slot of kk):
// slot j holds the class's tap j (kk = j*K + k, so the source is w[k][tap][c]: rows k, contiguous c),
// or zeros where j*K >= kred_z.
struct SubpixelBatches {
  int slots = 1, k = 0;
  long long class_stride = 0;  // C * ld
  int kred[sm90::kMaxClasses] = {};
  sm90::WeightTaps wt[sm90::kMaxClasses];
  __host__ __device__ long long src(long long b) const {
    const int z = static_cast<int>(b / slots), kk = static_cast<int>(b - static_cast<long long>(z) * slots) * k;
    return kk < kred[z] ? sm90::weight_offset(wt[z], kk, 0) : -1;
  }
  __host__ __device__ long long dst(long long b) const {
    const long long z = b / slots;
    return z * class_stride + (b - z * slots) * k;
  }
  bool src_aligned8(long long batch) const {
    for (long long b = 0; b < batch; ++b)
      if (const long long v = src(b); v >= 0 && v % 8 != 0) return false;  // (a zero slot, -1, loads nothing)
    return true;
  }
  bool dst_aligned8(long long batch) const {
    for (long long b = 0; b < batch; ++b)
      if (dst(b) % 8 != 0) return false;
    return true;
  }
};
void subpixel_filters(const sm90::IgemmPlan& pl, const void* w, void* dst, std::size_t elem_bytes, hipStream_t s,
                      const std::string& ctx) {
  const sm90::IgemmParams& q = pl.flip->params;  // its class order (B' rows z*C.. serve its class z)
  SubpixelBatches m;
  const int kc = q.cls[0].wt.k, c = q.n_cols, ld = q.a_ld;
  if (kc <= 0 || ld % kc != 0) throw InputError(ctx + ": sub-filter rows of " + std::to_string(ld) + " are not whole taps of K");
  m.slots = ld / kc, m.k = kc, m.class_stride = static_cast<long long>(c) * ld;
  for (int z = 0; z < q.classes; ++z) {
    m.kred[z] = q.cls[z].kred, m.wt[z] = q.cls[z].wt;
    if (q.cls[z].kred > 0 && q.cls[z].wt.rsc != q.cls[0].wt.rsc)
      throw InputError(ctx + ": the classes' filters differ in row length");
  }
  const Transpose16 t{kc, c, c, q.cls[0].wt.rsc, ld};
  transpose_elems(elem_bytes, w, dst, t, static_cast<long long>(q.classes) * m.slots, m, s, ctx);
}

// .col2im's second pass: dx = round(col2im_sum) over every dx element, in the plan's thread order.
template <typename T>
__global__ void __launch_bounds__(kPadThreads)
    col2im_kernel(const sm90::Col2im g, const float* __restrict__ dcol, T* __restrict__ dx, long long n) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long t = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; t < n; t += step) {
    const sm90::Col2imElement e = sm90::col2im_element(g, t);
    if (e.valid)
      store_f(dx, ((static_cast<long long>(e.img) * g.h + e.y) * g.w + e.x) * g.c + e.ch,
              sm90::col2im_sum(g, dcol, e.img, e.y, e.x, e.ch));
  }
}

// .im2col's first pass: col[pixel][j] = x at im2col_source (an exact copy), 0 where it has none.
// One warp per run of kIm2colRun pixels of a row (img, op) of output pixels (grid-stride over the
// runs); lane l < Jp/8 owns the 8 columns 8l..8l+7 (decoded once) and writes them as one 16-byte
// piece, so a warp writes each pixel's Jp*2 bytes contiguously (Jp % 8 == 0, Jp <= 256); the
// pixels of a run are unrolled by 4 so their loads are in flight together.
constexpr int kIm2colRun = 16;
__global__ void __launch_bounds__(kPadThreads)
    im2col_kernel(const sm90::Im2col g, const std::uint16_t* __restrict__ x, std::uint16_t* __restrict__ col) {
  const int lane = static_cast<int>(threadIdx.x) % 32, warps_per_block = kPadThreads / 32;
  if (lane >= g.jp / 8) return;
  sm90::Im2colColumn cols[8];
#pragma unroll
  for (int u = 0; u < 8; ++u) cols[u] = sm90::im2col_column(g, 8 * lane + u);
  const int runs_per_row = (g.pix.q + kIm2colRun - 1) / kIm2colRun;
  const long long runs = static_cast<long long>(g.pix.pixels) / g.pix.q * runs_per_row;
  const long long warps = static_cast<long long>(gridDim.x) * warps_per_block;
  for (long long run = static_cast<long long>(blockIdx.x) * warps_per_block + threadIdx.x / 32; run < runs; run += warps) {
    const long long row = run / runs_per_row;
    const sm90::Im2colRow r = sm90::im2col_row(g, row);
    const int q0 = static_cast<int>(run - row * runs_per_row) * kIm2colRun, q1 = min(g.pix.q, q0 + kIm2colRun);
    std::uint16_t* const out = col + row * g.pix.q * g.jp + 8 * lane;
#pragma unroll 4
    for (int oq = q0; oq < q1; ++oq) {
      std::uint32_t w[4];
#pragma unroll
      for (int u = 0; u < 8; u += 2) {
        const long long s0 = sm90::im2col_source(g, r, cols[u], oq), s1 = sm90::im2col_source(g, r, cols[u + 1], oq);
        const std::uint32_t lo = s0 >= 0 ? x[s0] : 0u, hi = s1 >= 0 ? x[s1] : 0u;
        w[u / 2] = lo | (hi << 16);
      }
      *reinterpret_cast<uint4*>(out + static_cast<long long>(oq) * g.jp) = make_uint4(w[0], w[1], w[2], w[3]);
    }
  }
}

IgemmConfig config_for(const ConvProblem& p, const IgemmPlan& pl, const std::string& text) {
  const auto c = sm90::parse_igemm_config(text);
  if (!c)
    throw InputError(std::string(kIgemmWgmmaName) + ": config '" + text +
                     "' does not parse (expected e.g. m128n128k64.s4.splitk1)");
  if (const std::string why = sm90::igemm_config_refusal(pl, *c); !why.empty())
    throw InputError(std::string(kIgemmWgmmaName) + ": config '" + text + "' cannot run " + to_string(p) + ": " + why);
  return *c;
}

// The solver's applicability: the plan's refusal, else whether this process can run the kernels.
Applicability igemm_applicability(const IgemmPlan& pl) {
  if (!pl.refusal.empty()) return Applicability::no(pl.refusal);
  if (const std::string why = igemm_sm90_unavailable(); !why.empty()) return Applicability::no(why);
  return Applicability::yes();
}

// The config the solver's run() uses: HIPRIM_CONV_CONFIG's when set and valid for p, else the default.
IgemmConfig config_to_run(const ConvProblem& p, const IgemmPlan& pl) {
  IgemmConfig c = sm90::igemm_default_config(p, pl);
  if (const char* env = std::getenv(kConvConfigEnv); env != nullptr && *env != '\0')
    if (const auto e = sm90::parse_igemm_config(env); e && sm90::igemm_config_refusal(pl, *e).empty()) c = *e;
  return c;
}

class ConvIgemmWgmma final : public ConvSolver {
 public:
  std::string name() const override { return kIgemmWgmmaName; }
  Backend backend() const override { return Backend::device; }
  std::string summary() const override {
    return "2D NHWC implicit GEMM on warpgroup MMA (wgmma m64nNk16, sm_90a), cp.async multistage ring, fp32 "
           "accumulation: fwd, bwd-data (sub-pixel classes; stride 1 also as fwd over the flipped filter; short filter rows "
           "as a dcol GEMM + col2im), bwd-weights (short filter rows: im2col + a 1x1 GEMM) "
           "(deterministic split-K); fp16/bf16; "
           "groups 1, K % 8 == 0 (C padded to 8 in the workspace when needed); fp32 with math=tf32 (wgmma m64nNk8.tf32, "
           "inputs read as TF32): fwd and bwd-data (.flip), C % 8 == 0, the k32 configs; perf configs via " +
           std::string(kConvConfigEnv);
  }
  // math=tf32 (fp32 only; the plan refuses fp32 without it): wgmma .tf32 reads each fp32 input as
  // TF32, its low 13 mantissa bits dropped (< 2^-10 relative each); fp16/bf16: exact inputs.
  ConvErrorModel error_model(const ConvProblem& p) const override {
    ConvErrorModel m;
    if (p.dtype == DType::fp32 && p.math == ConvMath::tf32) m.input_unit = ref::kUnitTf32Truncated;
    return m;
  }
  // The tensor core's fp32 adds align to the largest exponent and truncate: each errs by < 2u.
  double accumulation_error_factor() const override { return 2.0; }
  // Padding, K tails and out-of-range rows are zero-filled loads fed to the MMA (multiplied);
  // bwd-data's sub-pixel split gives each sub-problem only its own taps, so stride holes are never
  // formed (skipped), while a tap whose dy row lies outside dy is a zero-filled row (multiplied;
  // .flip: dy's padding in the fwd view, the same). .col2im gathers only taps inside dy (skipped).
  // Of the config run() uses for p.
  ImplicitZeros implicit_zeros(const ConvProblem& p) const override {
    const IgemmPlan pl = sm90::plan_igemm(p);
    const bool gathered = pl.refusal.empty() && config_to_run(p, pl).col2im;
    return {.padding = ZeroTerm::multiplied, .border_taps = gathered ? ZeroTerm::skipped : ZeroTerm::multiplied,
            .stride_holes = ZeroTerm::skipped};
  }
  Applicability applicable(const ConvProblem& p) const override { return igemm_applicability(sm90::plan_igemm(p)); }
  // The whole config space (each problem takes the subset igemm_sm90_configs(p)); the default is
  // picked per problem (igemm_sm90_default_config(p)), so default_perf_config() stays "".
  std::vector<std::string> perf_configs() const override {
    std::vector<std::string> out;
    for (const IgemmConfig& c : sm90::igemm_config_space()) out.push_back(to_string(c));
    return out;
  }
  // Of the config run() will use: HIPRIM_CONV_CONFIG's when set and valid for p, else the heuristic's.
  std::size_t workspace_bytes(const ConvProblem& p) const override {
    const IgemmPlan pl = sm90::plan_igemm(p);
    if (!pl.refusal.empty()) return 0;
    return sm90::make_igemm_launch(pl, config_to_run(p, pl)).workspace_bytes;
  }
  std::vector<std::string> configs_for(const ConvProblem& p) const override {
    return applicable(p) ? igemm_sm90_configs(p) : std::vector<std::string>{};
  }
  std::string default_config_for(const ConvProblem& p) const override {
    const IgemmPlan pl = sm90::plan_igemm(p);
    return pl.refusal.empty() ? to_string(config_to_run(p, pl)) : std::string();
  }
  std::size_t config_workspace_bytes(const ConvProblem& p, const std::string& config) const override {
    return config.empty() ? workspace_bytes(p) : igemm_sm90_workspace_bytes(p, config);
  }

 protected:
  // t.config when given, else HIPRIM_CONV_CONFIG's (an InputError when it does not fit p), else the heuristic's.
  void run_checked(const ConvProblem& p, const ConvTensors& t) const override {
    const char* env = std::getenv(kConvConfigEnv);
    const bool from_env = t.config.empty() && env != nullptr && *env != '\0';
    igemm_sm90_run(p, t, !t.config.empty() ? t.config : from_env ? std::string(env) : igemm_sm90_default_config(p));
  }
};

}  // namespace

std::string igemm_sm90_unavailable() {
#if HIPRIM_PLATFORM_AMD
  return "wgmma is NVIDIA sm_90a only (no AMD path for this solver)";
#else
  static const std::string why = [] {
    std::string w;
    if (!device_available(&w)) return w;
    int dev = 0, major = 0, minor = 0;
    if (hipGetDevice(&dev) != hipSuccess ||
        hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, dev) != hipSuccess ||
        hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, dev) != hipSuccess) {
      (void)hipGetLastError();
      return std::string("could not query the device's compute capability");
    }
    if (major != 9 || minor != 0)
      return "device is sm_" + std::to_string(major) + std::to_string(minor) +
             ": the warpgroup-MMA kernels are built for sm_90a (Hopper) only";
    try {  // every kernel's one-time setup now, outside any graph capture (applicable() comes first)
      sm90::igemm_sm90_prepare<__half, IgemmDir::fwd>(), sm90::igemm_sm90_prepare<hiprim_bf16_t, IgemmDir::fwd>();
      sm90::igemm_sm90_prepare<__half, IgemmDir::bwd_data>(), sm90::igemm_sm90_prepare<hiprim_bf16_t, IgemmDir::bwd_data>();
      sm90::igemm_sm90_prepare<__half, IgemmDir::bwd_weights>();
      sm90::igemm_sm90_prepare<hiprim_bf16_t, IgemmDir::bwd_weights>();
      sm90::igemm_sm90_prepare<float, IgemmDir::fwd>();  // the tf32 kernels
    } catch (const std::exception& e) {
      return std::string("the kernels' setup failed: ") + e.what();
    }
    return std::string();
  }();
  return why;
#endif
}

std::vector<std::string> igemm_sm90_configs(const ConvProblem& p) {
  std::vector<std::string> out;
  for (const IgemmConfig& c : sm90::igemm_configs(sm90::plan_igemm(p))) out.push_back(to_string(c));
  return out;
}

std::string igemm_sm90_default_config(const ConvProblem& p) {
  const IgemmPlan pl = sm90::plan_igemm(p);
  return pl.refusal.empty() ? to_string(sm90::igemm_default_config(p, pl)) : std::string();
}

std::size_t igemm_sm90_workspace_bytes(const ConvProblem& p, const std::string& config) {
  const IgemmPlan pl = sm90::plan_igemm(p);
  if (!pl.refusal.empty()) throw InputError(std::string(kIgemmWgmmaName) + " cannot run " + to_string(p) + ": " + pl.refusal);
  return sm90::make_igemm_launch(pl, config_for(p, pl, config)).workspace_bytes;
}

std::string igemm_sm90_gemm_fp32_out(DType t, long long m, long long n, long long k, const void* a, const void* b,
                                     const void* bias, float* out, void* stream, const std::string& context) {
  if (const std::string why = igemm_sm90_unavailable(); !why.empty()) return why;
  if (t != DType::fp16 && t != DType::bf16) return "fp16/bf16 operands only";
  if (k % 8 != 0 || n % 8 != 0) return "k and n multiples of 8 only (16-byte rows)";
  for (const void* ptr : {a, b, static_cast<const void*>(out)})
    if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0) return "operands 16-byte aligned only";
  ConvProblem p;
  p.dtype = t, p.channels_last = true, p.n = 1, p.c = k, p.k = n, p.in = {m, 1}, p.bias = bias != nullptr;
  const IgemmPlan pl = sm90::plan_igemm(p);
  if (!pl.refusal.empty()) return pl.refusal;
  if (pl.c_pad > 0) return "channel padding";
  IgemmConfig c = config_to_run(p, pl);
  c.splitk = 1, c.se = false, c.persist = false;  // the fp32 epilogue is the plain one's (igemm_epilogue)
  if (const std::string why = sm90::igemm_config_refusal(pl, c); !why.empty()) return why;
  sm90::IgemmLaunch L = sm90::make_igemm_launch(pl, c);
  L.params.fp32_out = true;
  const sm90::IgemmBuffers buf{a, b, nullptr, bias, out, {}};
  dispatch_dtype(t, [&]<typename T>() {
    if constexpr (!std::is_same_v<T, float>) sm90::igemm_sm90_launch<T, IgemmDir::fwd>(L, c, buf, stream, context);
  });
  return "";
}

namespace {
// fold_bnorm_kernel: a[k] = scale[k] * (1 / sqrt(var[k] + eps)) in fp32, as the bnorm solvers fold it.
__global__ void __launch_bounds__(kPadThreads)
    fold_bnorm_kernel(const float* __restrict__ scale, const float* __restrict__ var, float eps, float* __restrict__ a, int k) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < k) a[i] = scale[i] * (1.0f / sqrtf(var[i] + eps));
}
constexpr std::size_t kFusedAlign = 256;
std::size_t fused_fold_offset(std::size_t conv_ws) { return (conv_ws + kFusedAlign - 1) / kFusedAlign * kFusedAlign; }

// igemm_sm90_run with the fused epilogue ep (ep.fused false: the plain epilogue) and, for fwd, the
// bias fused_bias (the chain's, when not null; else the problem's own when p.bias).
void run_igemm(const ConvProblem& p, const ConvTensors& t, const std::string& config, const sm90::IgemmEpilogue& ep,
               const void* fused_bias);
}  // namespace

void igemm_sm90_run(const ConvProblem& p, const ConvTensors& t, const std::string& config) {
  run_igemm(p, t, config, sm90::IgemmEpilogue{}, nullptr);
}

std::string igemm_sm90_fused_refusal(const ConvProblem& p, const std::string& config, bool staged) {
  const IgemmPlan pl = sm90::plan_igemm(p);
  if (!pl.refusal.empty()) return pl.refusal;
  if (p.dtype == DType::fp32) return "the fused epilogue stages 16-bit outputs (fp16/bf16 only; not math=tf32)";
  if (pl.params.dir != IgemmDir::fwd || p.bias) return "the fused epilogue follows a forward convolution without a bias of its own";
  const auto c = sm90::parse_igemm_config(config);
  if (!c) return "config '" + config + "' does not parse";
  if (const std::string why = sm90::igemm_config_refusal(pl, *c); !why.empty()) return "config " + config + ": " + why;
  if (!staged) return {};  // the plain epilogue (acc + bias): every config the conv takes
  if (const std::string why = sm90::igemm_fused_staging_refusal(*c); !why.empty()) return "config " + config + ": " + why;
  return {};
}

std::string igemm_sm90_fused_default_config(const ConvProblem& p) {
  const IgemmPlan pl = sm90::plan_igemm(p);
  if (!pl.refusal.empty()) return {};
  return to_string(sm90::igemm_fused_config(pl, sm90::igemm_default_config(p, pl)));
}

std::size_t igemm_sm90_fused_workspace_bytes(const ConvProblem& p, const std::string& config) {
  return fused_fold_offset(igemm_sm90_workspace_bytes(p, config)) + static_cast<std::size_t>(p.k) * sizeof(float);
}

void igemm_sm90_run_fused(const ConvProblem& p, const ConvTensors& t, const std::string& config, const IgemmFusedSteps& f) {
  const std::string me = std::string(kIgemmWgmmaName) + " (fused epilogue)";
  // A chain of conv (+ bias) alone is the plain epilogue (acc + bias, one rounding): no staging.
  const bool staged = f.bn_scale != nullptr || f.residual != nullptr || f.activ_mode >= 0;
  if (const std::string why = igemm_sm90_fused_refusal(p, config, staged); !why.empty())
    throw InputError(me + " cannot run " + to_string(p) + ": " + why);
  const std::size_t need = igemm_sm90_fused_workspace_bytes(p, config), fold = fused_fold_offset(igemm_sm90_workspace_bytes(p, config));
  if (t.workspace_bytes < need || t.workspace == nullptr)
    throw InputError(me + ": workspace of " + std::to_string(t.workspace_bytes) + " bytes, needs " + std::to_string(need));
  for (auto [what, ptr] : {std::pair{"bias", f.bias}, std::pair{"residual", f.residual}})
    if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0)
      throw InputError(me + ": buffer " + what + " is not 16-byte aligned (the epilogue reads 16-byte pieces)");
  if ((f.bn_scale == nullptr) != (f.bn_var == nullptr) || (f.bn_scale == nullptr) != (f.bn_mean == nullptr) ||
      (f.bn_scale == nullptr) != (f.bn_shift == nullptr))
    throw InputError(me + ": bnorm-infer needs all four of scale, shift, mean and var");
  sm90::IgemmEpilogue ep;
  ep.fused = staged;
  if (f.bn_scale != nullptr) {
    auto* a = reinterpret_cast<float*>(static_cast<unsigned char*>(t.workspace) + fold);
    const int k = static_cast<int>(p.k);
    fold_bnorm_kernel<<<(k + kPadThreads - 1) / kPadThreads, kPadThreads, 0, static_cast<hipStream_t>(t.stream)>>>(
        f.bn_scale, f.bn_var, static_cast<float>(f.bn_epsilon), a, k);
    HIPRIM_CHECK_LAUNCH("fold_bnorm_kernel", me + " " + to_string(p));
    ep.bn_a = a, ep.bn_mean = f.bn_mean, ep.bn_shift = f.bn_shift;
  }
  ep.residual = f.residual;
  ep.add_alpha = static_cast<float>(f.add_alpha), ep.add_beta = static_cast<float>(f.add_beta);
  ep.activ_mode = f.activ_mode;
  ep.activ_alpha = static_cast<float>(f.activ_alpha), ep.activ_beta = static_cast<float>(f.activ_beta);
  ep.activ_gamma = static_cast<float>(f.activ_gamma);
  ConvTensors conv_t = t;
  conv_t.workspace_bytes = fold;
  run_igemm(p, conv_t, config, ep, f.bias);
}

namespace {
void run_igemm(const ConvProblem& p, const ConvTensors& t, const std::string& config, const sm90::IgemmEpilogue& ep,
               const void* fused_bias) {
  const std::string me = kIgemmWgmmaName;
  const IgemmPlan pl = sm90::plan_igemm(p);
  // The solver's checks (its run() made them for the config it picks), here for `config`.
  const Applicability a = igemm_applicability(pl);
  const IgemmConfig c = a ? config_for(p, pl, config) : IgemmConfig{};
  sm90::IgemmLaunch L = a ? sm90::make_igemm_launch(pl, c) : sm90::IgemmLaunch{};
  if (ep.fused && c.persist) L.smem = sm90::igemm_smem_bytes(c, true);  // .p's region holds the fp32 tile
  check_conv_run(me + " (" + config + ")", p, t, a, L.workspace_bytes);
  for (auto [what, ptr] : {std::pair{"x", static_cast<const void*>(t.x)}, std::pair{"w", static_cast<const void*>(t.w)},
                           std::pair{"y", static_cast<const void*>(t.y)}, std::pair{"workspace", static_cast<const void*>(t.workspace)}})
    if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0)
      throw InputError(me + ": buffer " + what + " is not 16-byte aligned (the kernels copy 16-byte pieces)");
  sm90::IgemmBuffers buf;
  void* const stream = t.stream;
  const std::string context = me + " " + config + " " + to_string(p);
  const hipStream_t hs = static_cast<hipStream_t>(stream);
  const int rs = static_cast<int>(p.filter[0] * p.filter[1]);
  if (c.col2im) {  // dcol = dy x w^T (fp32, workspace offset 0), then the col2im gather into dx
    void* const wt = static_cast<unsigned char*>(t.workspace) + L.wt_offset;
    const sm90::Col2im& g = pl.col2im_geom;
    permute_filter(t.w, wt, static_cast<int>(p.k), 1, rs * static_cast<int>(p.c), g.jp, false, dtype_size(p.dtype), hs, context);
    buf = {wt, t.y, nullptr, nullptr, t.workspace, {}};  // the GEMM's "x" is w^T, its "filter" dy
    const long long n = sm90::col2im_threads(g);
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if constexpr (!std::is_same_v<T, float>) {
        sm90::igemm_sm90_launch<T, IgemmDir::fwd>(L, c, buf, stream, context);
        col2im_kernel<T><<<grid_stride_blocks(n, kPadThreads), kPadThreads, 0, hs>>>(
            g, static_cast<const float*>(t.workspace), static_cast<T*>(t.x), n);
        HIPRIM_CHECK_LAUNCH("col2im_kernel", context);
      }
    });
    return;
  }
  if (c.im2col) {  // col = im2col(x) [pixels][Jp], dw' = the 1x1 bwd-weights GEMM of dy and col, cut to dw
    unsigned char* const ws = static_cast<unsigned char*>(t.workspace);
    void* const col = ws + L.col_offset;
    void* const dwp = ws + L.dwp_offset;
    const long long runs = static_cast<long long>(pl.im2col_geom.pix.pixels) / pl.im2col_geom.pix.q *
                           ((pl.im2col_geom.pix.q + kIm2colRun - 1) / kIm2colRun);
    im2col_kernel<<<grid_stride_blocks(runs * 32, kPadThreads), kPadThreads, 0, hs>>>(
        pl.im2col_geom, static_cast<const std::uint16_t*>(t.x), static_cast<std::uint16_t*>(col));
    HIPRIM_CHECK_LAUNCH("im2col_kernel", context);
    buf = {t.y, col, dwp, nullptr, t.workspace, {}};
    dispatch_dtype(p.dtype, [&]<typename T>() {
      if constexpr (!std::is_same_v<T, float>) sm90::igemm_sm90_launch<T, IgemmDir::bwd_weights>(L, c, buf, stream, context);
    });
    cut_channels(dwp, t.w, p.k, pl.im2col_geom.j, pl.im2col_geom.jp, hs, context);
    return;
  }
  if (c.flip) {  // bwd-data as the fwd convolution of dy with w' (stride 1) or over the classes' sub-filters
                 // (strided), a workspace copy: L is the fwd plan's
    void* const w_flip = static_cast<unsigned char*>(t.workspace) + L.w_flip_offset;
    if (pl.flip_subpixel)
      subpixel_filters(pl, t.w, w_flip, dtype_size(p.dtype), hs, context);
    else
      permute_filter(t.w, w_flip, static_cast<int>(p.k), rs, static_cast<int>(p.c), static_cast<int>(p.c), true,
                     dtype_size(p.dtype), hs, context);
    buf = {t.y, w_flip, t.x, nullptr, t.workspace, {}};
    dispatch_dtype(p.dtype, [&]<typename T>() {  // (float: math=tf32, the k32 kernels)
      sm90::igemm_sm90_launch<T, IgemmDir::fwd>(L, c, buf, stream, context);
    });
    return;
  }
  switch (pl.params.dir) {
    case IgemmDir::fwd: buf = {t.x, t.w, t.y, fused_bias != nullptr ? fused_bias : p.bias ? t.bias : nullptr, t.workspace, ep}; break;
    case IgemmDir::bwd_data: buf = {t.y, t.w, t.x, nullptr, t.workspace, {}}; break;
    case IgemmDir::bwd_weights: buf = {t.y, t.x, t.w, nullptr, t.workspace, {}}; break;
  }
  const long long act_rows = p.n * p.in[0] * p.in[1], w_rows = p.k * p.filter[0] * p.filter[1];
  if (pl.c_pad > 0) {  // the 3-channel stem: the GEMM runs on channel-padded copies in the workspace
    void* const act_pad = static_cast<unsigned char*>(t.workspace) + L.act_pad_offset;
    void* const w_pad = static_cast<unsigned char*>(t.workspace) + L.w_pad_offset;
    switch (pl.params.dir) {
      case IgemmDir::fwd:
        pad_channels(t.x, act_pad, act_rows, pl.c_real, pl.c_pad, hs, context);
        pad_channels(t.w, w_pad, w_rows, pl.c_real, pl.c_pad, hs, context);
        buf.a = act_pad, buf.b = w_pad;
        break;
      case IgemmDir::bwd_data:
        pad_channels(t.w, w_pad, w_rows, pl.c_real, pl.c_pad, hs, context);
        buf.b = w_pad, buf.out = act_pad;
        break;
      case IgemmDir::bwd_weights:
        pad_channels(t.x, act_pad, act_rows, pl.c_real, pl.c_pad, hs, context);
        buf.b = act_pad, buf.out = w_pad;
        break;
    }
  }
  dispatch_dtype(p.dtype, [&]<typename T>() {
    if constexpr (std::is_same_v<T, float>) {  // math=tf32: fwd only (the plan refuses the rest)
      if (pl.params.dir != IgemmDir::fwd) throw InputError(context + ": fp32 (math=tf32) runs fwd kernels only");
      sm90::igemm_sm90_launch<float, IgemmDir::fwd>(L, c, buf, stream, context);
    } else {
      switch (pl.params.dir) {
        case IgemmDir::fwd: sm90::igemm_sm90_launch<T, IgemmDir::fwd>(L, c, buf, stream, context); break;
        case IgemmDir::bwd_data: sm90::igemm_sm90_launch<T, IgemmDir::bwd_data>(L, c, buf, stream, context); break;
        case IgemmDir::bwd_weights:
          sm90::igemm_sm90_launch<T, IgemmDir::bwd_weights>(L, c, buf, stream, context);
          break;
      }
    }
  });
  if (pl.c_pad > 0 && pl.params.dir == IgemmDir::bwd_data) cut_channels(buf.out, t.x, act_rows, pl.c_real, pl.c_pad, hs, context);
  if (pl.c_pad > 0 && pl.params.dir == IgemmDir::bwd_weights) cut_channels(buf.out, t.w, w_rows, pl.c_real, pl.c_pad, hs, context);
}
}  // namespace

std::shared_ptr<const ConvSolver> make_conv_igemm_wgmma() { return std::make_shared<ConvIgemmWgmma>(); }

}  // namespace hiprim::gpu
