// Index layer of Hopper's warpgroup MMA (wgmma.mma_async, sm_90a): shared-memory tile layouts,
// matrix descriptors and the accumulator fragment, callable on the host (tests/gpu/test_igemm_sm90_plan.cpp
// checks them without a GPU) and on the device. No device code here.
//
// Operands are 16-bit (bf16/fp16), or fp32 read as TF32 (math=tf32, K-major only). A stage tile holds
// ROWS (m or n) x 128 bytes of k (64 16-bit elements, or 32 fp32), 1024-byte aligned, in the 128-byte swizzle ("B128"); the hardware XORs address bits [4,7) with bits [7,10)
// of the absolute shared address, which is why tiles start 1024-aligned (descriptor base offset 0).
//   K-major (imm-trans 0; rows = m or n, each 64 k = 128 bytes):
//     byte(r, k) = (r/8)*1024 + (r%8)*128 + (((k/8) ^ (r%8)) * 16) + (k%8)*2
//     descriptor: SBO = 1024 (next 8 rows), LBO unused (encoded 1), swizzle 128B. The instruction's
//     k16 step j starts 32*j bytes in; a sub-tile of rows r0.. (r0 % 8 == 0) starts r0*128 bytes in.
//     The formula is in 16-bit units; a 4-byte element e of a row sits at k = 2e (kmajor_chunk_offset:
//     16-byte chunk q of a row = elements q*16/E.. for E-byte elements), and tf32's k8 step (8 fp32 =
//     32 bytes) starts 32*j bytes in too: the byte geometry of a k-block is the same for both.
//   MN-major (imm-trans 1; 64 k rows, mn in atoms of 64 elements = 128 bytes):
//     byte(mn, k) = (mn/64)*8192 + (k/8)*1024 + (k%8)*128 + ((((mn%64)/8) ^ (k%8)) * 16) + (mn%8)*2
//     descriptor: LBO = 8192 (next 64-element atom along mn), SBO = 1024 (next 8 k rows), swizzle
//     128B. The k16 step j starts 2048*j bytes in; mn offset 64*a starts 8192*a bytes in.
// These are the PTX ISA's canonical layouts (Shared Memory Matrix Layout, 128B swizzling), in the
// (shape):(stride) form of 16-byte units:  K-major ((8,m),(1,2)):((8,SBO),(_,1)),
//   MN-major ((8,m),(8,k)):((1,LBO),(8,SBO)); wgmma_canonical_address() below evaluates exactly
//   that form (plus the swizzle) from a descriptor, so tests compare it with the tile formulas.
// Descriptor bits (PTX "Matrix Descriptor Format"): [0,14) start address >> 4, [16,30) LBO >> 4,
//   [32,46) SBO >> 4, [49,52) base offset, [62,64) swizzle (0 none, 1 128B, 2 64B, 3 32B).
// Accumulator D of m64nNk16 (fp32, N/2 registers per thread; t = thread in the warpgroup):
//   d[v]: row = 16*(t/32) + (t%32)/4 + 8*((v/2)%2),  col = 2*(t%4) + (v%2) + 8*(v/4).
#pragma once
#include <cstdint>

#if defined(__CUDACC__) || defined(__HIPCC__)
#define HIPRIM_WG_HD __host__ __device__
#else
#define HIPRIM_WG_HD
#endif

namespace hiprim::gpu::sm90 {

inline constexpr int kTileK = 64;            // k per stage (one 128-byte row of 16-bit elements)
inline constexpr int kRowBytes = 128;
// Elements of k per stage row (a k-block) and per 16-byte chunk for E-byte elements: 64 and 8
// (fp16/bf16), 32 and 4 (fp32 as TF32).
HIPRIM_WG_HD constexpr int kblock_elems(int elem_bytes) { return kRowBytes / elem_bytes; }
HIPRIM_WG_HD constexpr int chunk_elems(int elem_bytes) { return 16 / elem_bytes; }
inline constexpr int kAtomBytes = 1024;      // 8 rows of 128 bytes
inline constexpr int kMnAtomColBytes = 8192; // MN-major: 64 k rows of one 64-element atom column
inline constexpr int kKStepBytesK = 32;      // K-major: bytes per k16 step (= per tf32 k8 step)
inline constexpr int kKStepBytesMN = 2048;   // MN-major: bytes per k16 step (16 rows of 128 bytes)

enum class Major { k, mn };
enum class Swizzle : int { none = 0, b128 = 1, b64 = 2, b32 = 3 };

// Byte offset of element (r, k) of a K-major B128 tile (k < 64).
HIPRIM_WG_HD constexpr std::uint32_t kmajor_offset(int r, int k) {
  return static_cast<std::uint32_t>((r / 8) * kAtomBytes + (r % 8) * kRowBytes + (((k / 8) ^ (r % 8)) * 16) +
                                    (k % 8) * 2);
}
// Byte offset of 16-byte chunk q (< 8) of row r of a K-major B128 tile, for any element size.
HIPRIM_WG_HD constexpr std::uint32_t kmajor_chunk_offset(int r, int q) { return kmajor_offset(r, q * 8); }
// Byte offset of element (mn, k) of an MN-major B128 tile (k < 64).
HIPRIM_WG_HD constexpr std::uint32_t mnmajor_offset(int mn, int k) {
  return static_cast<std::uint32_t>((mn / 64) * kMnAtomColBytes + (k / 8) * kAtomBytes + (k % 8) * kRowBytes +
                                    ((((mn % 64) / 8) ^ (k % 8)) * 16) + (mn % 8) * 2);
}
// Unswizzled K-major tile of one k16 instruction (the micro-test's layout): 8x8 core matrices of
// 16-bit elements (8 rows x 16 bytes, contiguous), the two k halves LBO = 128 bytes apart, 8-row
// groups SBO = 256 bytes apart.
HIPRIM_WG_HD constexpr std::uint32_t interleave_offset(int r, int k) {
  return static_cast<std::uint32_t>((r / 8) * 256 + (k / 8) * 128 + (r % 8) * 16 + (k % 8) * 2);
}
inline constexpr std::uint32_t kInterleaveLbo = 128, kInterleaveSbo = 256;

HIPRIM_WG_HD constexpr std::uint64_t make_desc(std::uint32_t smem_addr, std::uint32_t lbo, std::uint32_t sbo,
                                               Swizzle sw) {
  return (static_cast<std::uint64_t>((smem_addr >> 4) & 0x3FFFu)) |
         (static_cast<std::uint64_t>((lbo >> 4) & 0x3FFFu) << 16) |
         (static_cast<std::uint64_t>((sbo >> 4) & 0x3FFFu) << 32) |
         (static_cast<std::uint64_t>(static_cast<int>(sw)) << 62);
}
// The descriptors of this kernel family: B128 K-major (LBO field 1, unused) and B128 MN-major.
HIPRIM_WG_HD constexpr std::uint64_t desc_kmajor(std::uint32_t smem_addr) {
  return make_desc(smem_addr, 16, kAtomBytes, Swizzle::b128);
}
HIPRIM_WG_HD constexpr std::uint64_t desc_mnmajor(std::uint32_t smem_addr) {
  return make_desc(smem_addr, kMnAtomColBytes, kAtomBytes, Swizzle::b128);
}
// A descriptor moved by `bytes` (a multiple of 16; start address stays below 256 KiB).
HIPRIM_WG_HD constexpr std::uint64_t desc_advance(std::uint64_t desc, std::uint32_t bytes) {
  return desc + (bytes >> 4);
}

struct DescFields {
  std::uint32_t start, lbo, sbo, base_offset;
  Swizzle swizzle;
};
HIPRIM_WG_HD constexpr DescFields decode_desc(std::uint64_t d) {
  return DescFields{static_cast<std::uint32_t>(d & 0x3FFFu) << 4, static_cast<std::uint32_t>((d >> 16) & 0x3FFFu) << 4,
                    static_cast<std::uint32_t>((d >> 32) & 0x3FFFu) << 4, static_cast<std::uint32_t>((d >> 49) & 7u),
                    static_cast<Swizzle>(static_cast<int>((d >> 62) & 3u))};
}

// Absolute shared address the tensor core reads for element (mn, k) (k < 16) of one instruction's
// operand described by `d` with the given major-ness, evaluated from the canonical layout
// (none or 128B swizzle; the two this project uses). Host-side model for tests.
HIPRIM_WG_HD constexpr std::uint32_t wgmma_canonical_address(std::uint64_t d, Major major, int mn, int k) {
  const DescFields f = decode_desc(d);
  std::uint32_t off = 0;
  if (f.swizzle == Swizzle::none) {  // K-major interleave: ((8,m),(8,2)) elements : ((8,SBO),(1,LBO))
    off = static_cast<std::uint32_t>((mn % 8) * 16 + (mn / 8) * f.sbo + (k % 8) * 2 + (k / 8) * f.lbo);
    (void)major;
    return f.start + off;
  }
  if (major == Major::k)  // ((8,m),(8,2)) elements : ((64 el = 128 B, SBO), (2 B, 16 B))
    off = static_cast<std::uint32_t>((mn % 8) * 128 + (mn / 8) * f.sbo + (k % 8) * 2 + (k / 8) * 16);
  else  // ((8,8,m),(8,k)) elements : ((2 B, 16 B, LBO), (128 B, SBO))
    off = static_cast<std::uint32_t>((mn % 8) * 2 + ((mn / 8) % 8) * 16 + (mn / 64) * f.lbo + (k % 8) * 128 +
                                     (k / 8) * f.sbo);
  const std::uint32_t a = f.start + off;
  return a ^ (((a >> 7) & 7u) << 4);  // 128B swizzle: 16-byte chunk index ^= row within the 1024-byte atom
}

// How THREADS threads share one stage tile of ROWS x 64 (16-byte chunks of 8 elements):
//   K-major: thread t loads chunk t%8 of rows t/8 + i*(THREADS/8), i < per;
//   MN-major: thread t loads mn chunk t%(ROWS/8) of k rows t/(ROWS/8) + i*step, i < per.
// Consecutive threads read consecutive 16-byte pieces of a global row (coalesced).
template <int ROWS, int THREADS>
struct KMajorSplit {
  static constexpr int per = ROWS * 8 / THREADS, step = THREADS / 8;
  static_assert(per >= 1 && per * THREADS == ROWS * 8, "K-major tile split");
  HIPRIM_WG_HD static constexpr int row(int t, int i) { return t / 8 + i * step; }
  HIPRIM_WG_HD static constexpr int chunk(int t) { return t % 8; }
};
template <int ROWS, int THREADS>
struct MnMajorSplit {
  static constexpr int cols = ROWS / 8, step = THREADS / cols, per = kTileK / step;
  static_assert(THREADS % cols == 0 && per >= 1 && per * step == kTileK, "MN-major tile split");
  HIPRIM_WG_HD static constexpr int krow(int t, int i) { return t / cols + i * step; }
  HIPRIM_WG_HD static constexpr int chunk(int t) { return t % cols; }
};

// Accumulator fragment of m64nNk16 (see the header): thread t of the warpgroup, register v.
HIPRIM_WG_HD constexpr int acc_row(int t, int v) { return 16 * (t / 32) + (t % 32) / 4 + 8 * ((v / 2) % 2); }
HIPRIM_WG_HD constexpr int acc_col(int t, int v) { return 2 * (t % 4) + (v % 2) + 8 * (v / 4); }

}  // namespace hiprim::gpu::sm90
