// Host side of conv.igemm.wgmma's kernels (include from the igemm_sm90_*.hip files): the launch of
// one config (main kernel, then the split-K reduction when splitk > 1), enqueued on a stream with
// no host synchronisation, allocation or read-back (capturable into a CUDA graph; the one-time
// raise of a kernel's dynamic shared-memory limit happens on its first launch).
// TMA configs (fwd, bwd-weights): the operands' tensor maps (tiled, or im2col for fwd's x) are encoded on the host per
// launch (host work only).
// Each direction's .hip instantiates igemm_sm90_launch<T, DIR> for T = __half and bf16
// (IGEMM_SM90_INSTANTIATE), so the three directions compile in parallel; igemm_sm90_fwd_tf32.hip
// instantiates T = float for fwd (math=tf32) with the tiles igemm_tile_instantiated() lists for
// k-blocks of 32 (the other cases throw; the plan's config space never lists them).
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "gpu/conv/igemm_sm90_kernel.hpp"
#include "gpu/runtime/check.hpp"
#if HIPRIM_PLATFORM_NVIDIA
#include <cudaTypedefs.h>
#endif

namespace hiprim::gpu::sm90 {

#if HIPRIM_PLATFORM_NVIDIA
namespace detail {
using TensorMapEncoder = PFN_cuTensorMapEncodeTiled_v12000;
using Im2colEncoder = PFN_cuTensorMapEncodeIm2col_v12000;
// The TMA encoders, taken from the driver at run time (a driver entry point of version 12000 by
// name, or null when the driver lacks it).
inline void* driver_entry_point(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess || q != cudaDriverEntryPointSuccess)
    fn = nullptr;
  (void)cudaGetLastError();
  return fn;
}
inline TensorMapEncoder tensor_map_encoder() {  // looked up once per process
  static const auto encode = reinterpret_cast<TensorMapEncoder>(driver_entry_point("cuTensorMapEncodeTiled"));
  return encode;
}
inline Im2colEncoder im2col_encoder() {
  static const auto encode = reinterpret_cast<Im2colEncoder>(driver_entry_point("cuTensorMapEncodeIm2col"));
  return encode;
}

// The TMA data type of T.
template <typename T>
constexpr CUtensorMapDataType tma_type() {
  if constexpr (std::is_same_v<T, float>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  else if constexpr (std::is_same_v<T, __half>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  else return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}

// The TMA map of a dense K-major operand [rows][kred] of T (fwd's w, rows = K; or x as [N*H*W][C]):
// box of one k-block (128 bytes: 64 16-bit or 32 fp32 elements) x `bn` rows, 128B swizzle, zero fill
// outside; cuTensorMapEncodeTiled is taken from the driver at run time.
template <typename T>
TensorMap matrix_tensor_map(const void* w, int kred, int rows, int bn, const std::string& context) {
  const TensorMapEncoder encode = tensor_map_encoder();
  if (encode == nullptr) throw RuntimeError("cuTensorMapEncodeTiled is not available from the driver (" + context + ")");
  TensorMap m{};
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(kred), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(kred) * sizeof(T)};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(kblock_elems(sizeof(T))), static_cast<cuuint32_t>(bn)};
  const cuuint32_t elem[2] = {1, 1};
  const CUresult r = encode(&m, tma_type<T>(), 2, const_cast<void*>(w), dims, strides, box, elem, CU_TENSOR_MAP_INTERLEAVE_NONE,
                            CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw RuntimeError("cuTensorMapEncodeTiled failed (CUresult " + std::to_string(static_cast<int>(r)) + ") for " + context);
  return m;
}

// The im2col-mode TMA map of fwd's x (NHWC, dims {C, W, H, N}) for class g with m rows: boxes of
// `pixels` rows x one k-block of channels (64, or 32 fp32), 128B swizzle (the K-major A tile), the bounding box of im2col_corners
// traversed with the convolution's stride, zero fill outside; cuTensorMapEncodeIm2col from the driver.
// edge_shift moves the upper W corner (0; the tma_edge mutant's 1, igemm_sm90_mutant.hpp).
template <typename T>
TensorMap im2col_tensor_map(const void* x, const ActGather& g, int m, int pixels, const std::string& context,
                            int edge_shift = 0) {
  const Im2colEncoder encode = im2col_encoder();
  if (encode == nullptr) throw RuntimeError("cuTensorMapEncodeIm2col is not available from the driver (" + context + ")");
  const long long images = m / (static_cast<long long>(g.rh) * g.rw);
  TensorMap map{};
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(g.sc), static_cast<cuuint64_t>(g.sw), static_cast<cuuint64_t>(g.sh),
                              static_cast<cuuint64_t>(images)};
  const cuuint64_t row = static_cast<cuuint64_t>(g.sc) * sizeof(T);
  const cuuint64_t strides[3] = {row, row * g.sw, row * g.sw * g.sh};
  const Im2colCorners b = im2col_corners(g);
  const int lower[2] = {b.lower_x, b.lower_y}, upper[2] = {b.upper_x + edge_shift, b.upper_y};  // innermost (W) first
  const cuuint32_t elem[4] = {1, static_cast<cuuint32_t>(g.rx_mul), static_cast<cuuint32_t>(g.ry_mul), 1};
  const CUresult r = encode(&map, tma_type<T>(), 4, const_cast<void*>(x), dims, strides, lower, upper,
                            static_cast<cuuint32_t>(kblock_elems(sizeof(T))),
                            static_cast<cuuint32_t>(pixels), elem, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw RuntimeError("cuTensorMapEncodeIm2col failed (CUresult " + std::to_string(static_cast<int>(r)) + ") for " + context);
  return map;
}

// Whether igemm_sm90_kernel<T, BM, BN, DIR, ...> is built: every tile for 16-bit T; for float (tf32)
// fwd only, the tiles igemm_tile_instantiated(32, ...) lists, no persistent variant.
template <typename T, int BM, int BN, IgemmDir DIR, bool PERSIST>
constexpr bool kernel_instantiated() {
  if constexpr (sizeof(T) == 2) return true;
  else return DIR == IgemmDir::fwd && !PERSIST && igemm_tile_instantiated(kblock_elems(sizeof(T)), BM, BN);
}

// Raises the kernel's dynamic shared-memory limit, once per process (prepare() does it for every
// kernel before any run, so a run inside a graph capture never makes this call).
template <typename T, int BM, int BN, IgemmDir DIR, bool WS, bool TMA, bool PERSIST = false,
          IgemmMutant MUT = IgemmMutant::none>
void raise_smem_limit() {
  if constexpr (!kernel_instantiated<T, BM, BN, DIR, PERSIST>()) return;  // (no such kernel: nothing to raise)
  else {
  static const bool raised = [] {
    HIPRIM_CHECK(cudaFuncSetAttribute(igemm_sm90_kernel<T, BM, BN, DIR, WS, TMA, PERSIST, MUT>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemLimit),
                 "raising the shared-memory limit of igemm_sm90_kernel");
    return true;
  }();
  (void)raised;
  }
}

// .p's grid: the CTAs that fit on the device at once (occupancy x SMs, once per kernel and stage
// count), at most the tiles; HIPRIM_IGEMM_PERSIST_CTAS caps it (tests: several tiles per CTA on
// small problems).
template <typename T, int BM, int BN, IgemmDir DIR>
unsigned persistent_grid(unsigned tiles, int stages, int smem, bool fused_fp32) {
  static std::array<std::atomic<unsigned>, 2 * (kMaxStages + 1)> resident{};  // [fused_fp32][stages]
  const std::size_t key = static_cast<std::size_t>(stages) + (fused_fp32 ? kMaxStages + 1 : 0);
  unsigned r = resident.at(key).load();
  if (r == 0) {
    int per_sm = 0, sms = 0, dev = 0;
    HIPRIM_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, igemm_sm90_kernel<T, BM, BN, DIR, true, true, true>,
                                                               BM / 64 * 128 + 128, static_cast<size_t>(smem)),
                 "occupancy of the persistent igemm_sm90_kernel");
    HIPRIM_CHECK(cudaGetDevice(&dev), "cudaGetDevice");
    HIPRIM_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), "SM count");
    r = static_cast<unsigned>(std::max(1, per_sm) * std::max(1, sms));
    resident.at(key).store(r);
  }
  unsigned grid = std::min(tiles, r);
  if (const char* cap = std::getenv("HIPRIM_IGEMM_PERSIST_CTAS"); cap != nullptr && std::atoi(cap) > 0)
    grid = std::min(grid, static_cast<unsigned>(std::atoi(cap)));
  return grid;
}

// MUT: a planted bug (igemm_sm90_mutant.hpp; tests only), none in the library.
template <typename T, int BM, int BN, IgemmDir DIR, bool WS, bool TMA, bool PERSIST = false,
          IgemmMutant MUT = IgemmMutant::none>
void launch_tile(const IgemmLaunch& L, const IgemmConfig& c, const IgemmBuffers& buf, hipStream_t stream,
                 const std::string& context) {
  if constexpr (!kernel_instantiated<T, BM, BN, DIR, PERSIST>())
    throw InputError("conv.igemm.wgmma: config " + to_string(c) + " has no kernel for this element type");
  else {
  constexpr IgemmMutant KM = kernel_mutant(MUT);
  auto* kernel = igemm_sm90_kernel<T, BM, BN, DIR, WS, TMA, PERSIST, KM>;
  raise_smem_limit<T, BM, BN, DIR, WS, TMA, PERSIST, KM>();
  TensorMap map_b{}, map_a{};
  if constexpr (TMA && DIR == IgemmDir::fwd) {
    // w [K][Kred], or the strided .flip's sub-filters [classes * C][ld] (class z from row z*C; a
    // tile's rows past C read the next class's, whose outputs are never stored)
    map_b = matrix_tensor_map<T>(buf.b, L.params.a_ld, L.params.n_cols * L.params.classes, BN, context);
    if (L.params.a_dense) map_a = matrix_tensor_map<T>(buf.a, L.params.cls[0].kred, L.params.cls[0].m, BM, context);
    if (L.params.a_im2col)
      map_a = im2col_tensor_map<T>(buf.a, L.params.cls[0].act, L.params.cls[0].m, BM, context, MUT == IgemmMutant::tma_edge ? 1 : 0);
  } else if constexpr (TMA && DIR == IgemmDir::bwd_data) {  // 1x1: dy [M][K] K-major, w [K][C] in MN-major boxes
    map_a = matrix_tensor_map<T>(buf.a, L.params.cls[0].kred, L.params.cls[0].m, BM, context);
    map_b = matrix_tensor_map<T>(buf.b, L.params.n_cols, L.params.cls[0].kred, 64, context);
  } else if constexpr (TMA) {  // bwd-weights, MN-major boxes of 64 channels x 64 pixels
    map_a = matrix_tensor_map<T>(buf.a, L.params.a_ld, L.params.cls[0].kred, 64, context);
    if (L.params.b_dense) map_b = matrix_tensor_map<T>(buf.b, L.params.n_cols, L.params.cls[0].kred, 64, context);
    if (L.params.b_im2col) map_b = im2col_tensor_map<T>(buf.b, act_gather_of(L.params.pix), L.params.cls[0].kred, 64, context);
  }
  IgemmParams params = L.params;
  params.ep = buf.ep;
  unsigned grid_x = L.grid_x;
  if constexpr (PERSIST) grid_x = persistent_grid<T, BM, BN, DIR>(L.grid_x, c.stages, L.smem, buf.ep.fused);
  kernel<<<dim3(grid_x, L.grid_y, L.grid_z), dim3(L.threads), static_cast<size_t>(L.smem), stream>>>(
      params, static_cast<const T*>(buf.a), static_cast<const T*>(buf.b), static_cast<T*>(buf.out),
      static_cast<const T*>(buf.bias), c.splitk > 1 || L.params.fp32_out ? static_cast<float*>(buf.workspace) : nullptr, c.stages, map_b,
      map_a);
  HIPRIM_CHECK_LAUNCH("igemm_sm90_kernel", context);
  }
}

// The warp-specialised tiles with TMA operands (every direction; bwd-data only with a_dense, which
// igemm_config_refusal enforces).
template <typename T, int BM, int BN, IgemmDir DIR>
void launch_tma(const IgemmLaunch& L, const IgemmConfig& c, const IgemmBuffers& buf, hipStream_t stream,
                const std::string& context) {
  if (DIR == IgemmDir::bwd_data && !L.params.a_dense)
    throw InputError("conv.igemm.wgmma: config " + to_string(c) + " (TMA) takes bwd-data only for 1x1, stride 1, pad 0");
  if (!c.persist) return launch_tile<T, BM, BN, DIR, true, true>(L, c, buf, stream, context);
  if constexpr (DIR != IgemmDir::bwd_weights && sizeof(T) == 2 && igemm_persist_tile(BM, BN))
    launch_tile<T, BM, BN, DIR, true, true, true>(L, c, buf, stream, context);
  else
    throw InputError("conv.igemm.wgmma: config " + to_string(c) + " (.p) has no persistent instantiation");
}
// The split classes' reductions (after the main kernel, on the same stream); MUT splitk_order: the
// mutant's rotated order (tests only).
template <typename T, IgemmMutant MUT = IgemmMutant::none>
void launch_reductions(const IgemmLaunch& L, const IgemmBuffers& buf, hipStream_t stream, const std::string& context) {
  constexpr IgemmMutant RM = MUT == IgemmMutant::splitk_order ? MUT : IgemmMutant::none;
  for (int i = 0; i < L.params.classes; ++i) {  // the split classes' reductions
    const IgemmClass& cl = L.params.cls[i];
    if (cl.splits <= 1) continue;
    const long long mn = static_cast<long long>(cl.m) * L.params.n_cols;
    const int groups = igemm_reduce_groups(cl.splits), pairs_per_block = kReduceThreads / groups;
    const long long blocks = std::clamp<long long>((mn / 2 + pairs_per_block - 1) / pairs_per_block, 1, 16LL * kNumSms);
    auto* const reduce = groups == 8 ? igemm_sm90_reduce<T, 8, RM> : igemm_sm90_reduce<T, 1, RM>;
    reduce<<<static_cast<unsigned>(blocks), kReduceThreads, 0, stream>>>(
        static_cast<const float*>(buf.workspace) + cl.partial_off, cl.splits, mn, L.params.n_cols,
        static_cast<const T*>(buf.bias), static_cast<T*>(buf.out), buf.ep, cl.out);
    HIPRIM_CHECK_LAUNCH("igemm_sm90_reduce", context);
  }
}
}  // namespace detail

// One tile's kernel (no .p) and its reductions with a planted bug MUT (igemm_sm90_mutant.hpp): the
// tests' entry (tests/fuzz/mutant_sm90.hip), which instantiates it for its few configs only.
template <typename T, int BM, int BN, IgemmDir DIR, bool WS, bool TMA, IgemmMutant MUT>
void igemm_sm90_launch_mutant(const IgemmLaunch& L, const IgemmConfig& c, const IgemmBuffers& buf, void* stream,
                              const std::string& context) {
  if (c.bm != BM || c.bn != BN || c.ws != WS || c.tma != TMA || c.persist)
    throw InputError("conv.igemm.wgmma mutant: config " + to_string(c) + " is not the instantiated one");
  detail::launch_tile<T, BM, BN, DIR, WS, TMA, false, MUT>(L, c, buf, static_cast<hipStream_t>(stream), context);
  detail::launch_reductions<T, MUT>(L, buf, static_cast<hipStream_t>(stream), context);
}

template <typename T, IgemmDir DIR>
void igemm_sm90_prepare() {
  using namespace detail;
  raise_smem_limit<T, 128, 128, DIR, false, false>(), raise_smem_limit<T, 128, 256, DIR, false, false>();
  raise_smem_limit<T, 256, 128, DIR, false, false>(), raise_smem_limit<T, 128, 64, DIR, false, false>();
  raise_smem_limit<T, 64, 128, DIR, false, false>(), raise_smem_limit<T, 64, 64, DIR, false, false>();
  raise_smem_limit<T, 128, 128, DIR, true, false>(), raise_smem_limit<T, 128, 256, DIR, true, false>();
  raise_smem_limit<T, 128, 64, DIR, true, false>(), raise_smem_limit<T, 64, 128, DIR, true, false>();
  raise_smem_limit<T, 64, 64, DIR, true, false>();
  raise_smem_limit<T, 128, 128, DIR, true, true>(), raise_smem_limit<T, 128, 256, DIR, true, true>();
  raise_smem_limit<T, 128, 64, DIR, true, true>(), raise_smem_limit<T, 64, 128, DIR, true, true>();
  raise_smem_limit<T, 64, 64, DIR, true, true>();
  if constexpr (DIR != IgemmDir::bwd_weights) {
    raise_smem_limit<T, 128, 256, DIR, true, true, true>(), raise_smem_limit<T, 128, 128, DIR, true, true, true>();
    raise_smem_limit<T, 64, 128, DIR, true, true, true>(), raise_smem_limit<T, 64, 64, DIR, true, true, true>();
  }
  (void)tensor_map_encoder();
  (void)im2col_encoder();
}

template <typename T, IgemmDir DIR>
void igemm_sm90_launch(const IgemmLaunch& L, const IgemmConfig& c, const IgemmBuffers& buf, void* stream_ptr,
                       const std::string& context) {
  using namespace detail;
  const hipStream_t stream = static_cast<hipStream_t>(stream_ptr);
  const int key = igemm_key(c.bm, c.bn, c.ws) + (c.tma ? 10000000 : 0);
  switch (key) {
    case igemm_key(128, 128, false): launch_tile<T, 128, 128, DIR, false, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 256, false): launch_tile<T, 128, 256, DIR, false, false>(L, c, buf, stream, context); break;
    case igemm_key(256, 128, false): launch_tile<T, 256, 128, DIR, false, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 64, false): launch_tile<T, 128, 64, DIR, false, false>(L, c, buf, stream, context); break;
    case igemm_key(64, 128, false): launch_tile<T, 64, 128, DIR, false, false>(L, c, buf, stream, context); break;
    case igemm_key(64, 64, false): launch_tile<T, 64, 64, DIR, false, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 128, true): launch_tile<T, 128, 128, DIR, true, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 256, true): launch_tile<T, 128, 256, DIR, true, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 64, true): launch_tile<T, 128, 64, DIR, true, false>(L, c, buf, stream, context); break;
    case igemm_key(64, 128, true): launch_tile<T, 64, 128, DIR, true, false>(L, c, buf, stream, context); break;
    case igemm_key(64, 64, true): launch_tile<T, 64, 64, DIR, true, false>(L, c, buf, stream, context); break;
    case igemm_key(128, 128, true) + 10000000: launch_tma<T, 128, 128, DIR>(L, c, buf, stream, context); break;
    case igemm_key(128, 256, true) + 10000000: launch_tma<T, 128, 256, DIR>(L, c, buf, stream, context); break;
    case igemm_key(128, 64, true) + 10000000: launch_tma<T, 128, 64, DIR>(L, c, buf, stream, context); break;
    case igemm_key(64, 128, true) + 10000000: launch_tma<T, 64, 128, DIR>(L, c, buf, stream, context); break;
    case igemm_key(64, 64, true) + 10000000: launch_tma<T, 64, 64, DIR>(L, c, buf, stream, context); break;
    default: throw InputError("conv.igemm.wgmma: tile of config " + to_string(c) + " is not instantiated");
  }
  launch_reductions<T>(L, buf, stream, context);
}
#else
template <typename T, IgemmDir DIR>
void igemm_sm90_prepare() {}
template <typename T, IgemmDir DIR>
void igemm_sm90_launch(const IgemmLaunch&, const IgemmConfig&, const IgemmBuffers&, void*,
                       const std::string& context) {
  throw InputError("conv.igemm.wgmma needs NVIDIA sm_90a (wgmma); cannot run " + context);
}
#endif

#define IGEMM_SM90_INSTANTIATE(DIR)                                                                           \
  template void igemm_sm90_prepare<__half, DIR>();                                                            \
  template void igemm_sm90_prepare<hiprim_bf16_t, DIR>();                                                     \
  template void igemm_sm90_launch<__half, DIR>(const IgemmLaunch&, const IgemmConfig&, const IgemmBuffers&,  \
                                               void*, const std::string&);                                   \
  template void igemm_sm90_launch<hiprim_bf16_t, DIR>(const IgemmLaunch&, const IgemmConfig&,                \
                                                      const IgemmBuffers&, void*, const std::string&);
// fp32 read as TF32 (math=tf32): fwd only (igemm_sm90_fwd_tf32.hip).
#define IGEMM_SM90_INSTANTIATE_TF32()                                                                         \
  template void igemm_sm90_prepare<float, IgemmDir::fwd>();                                                   \
  template void igemm_sm90_launch<float, IgemmDir::fwd>(const IgemmLaunch&, const IgemmConfig&,              \
                                                        const IgemmBuffers&, void*, const std::string&);

}  // namespace hiprim::gpu::sm90
