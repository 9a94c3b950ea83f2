// Generator of valid convolution problems and data for one solver's domain, as a RapidCheck Gen.
//
// A case is drawn as a genome of independent choices (features, sizes, padding mode, data tier,
// special values, seed) and mapped to a problem that is valid by construction: C = G*Cg, K = G*Kg;
// padding is chosen relative to the dilated filter extent E = dil*(f-1)+1 (0, (E-1)/2, ceil(E/2),
// E-1, E) and then repaired so the output has at least one element; output padding is taken modulo
// max(stride, dilation); the size budget (limits) halves n, then channels, then the input until the
// multiply-accumulates fit. So every shrink of any choice is again a valid case.
//
// The choices are biased toward the corners where kernels break: size-1 dims, small primes and
// odd sizes, tile +-1 sizes, padding >= half the filter, stride > filter, dilation, groups and
// depthwise, 3D, transposed with output padding, bias, every dtype and layout, both fill tiers,
// and special values (NaN, Inf, -0, subnormals, huge).
// Shrinking (RapidCheck's shrink tree, choices in this order) goes toward: no special values, the
// bounded tier (where rounding bugs show on a single product), 2D, not transposed, no bias, one group, fp32, channels first, fwd, n = 1, one channel,
// size 1, filter 1, stride 1, dilation 1, no padding, seed 1.
// The problem is then repaired (pad, else stride, else dilation of its sparsest axis lowered) until at least
// kMinLiveFraction of the computed tensor's elements have a real term (structural_live_fraction):
// outputs of mostly structural zeros would be mistrusted by the comparator (> 80% zeros).
// Not generated: non-packed strides (ConvProblem is packed per layout; conv solvers take no strides).
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <rapidcheck/Gen.h>

#include "core/conv_problem.hpp"
#include "fuzz/conv_domain.hpp"
#include "fuzz/conv_special.hpp"
#include "fuzz/target.hpp"
#include "verify/fill.hpp"

namespace hiprim::fuzz {

struct ConvGenLimits {
  std::int64_t max_n = 4;
  std::int64_t max_channels_per_group = 16;
  std::int64_t max_groups = 4;  // depthwise problems may have up to 2*max_groups groups
  std::int64_t max_spatial = 24, max_spatial_3d = 8;
  std::int64_t max_filter = 7, max_filter_3d = 3;
  std::int64_t max_stride = 4, max_dilation = 3;
  // Multiply-accumulates of one case: exact-tier cases without special values (a GPU oracle may
  // check those), bounded-tier cases (the CPU reference: its fast path above 2e7), special-value
  // cases (always the CPU naive loops).
  double max_macs = 1e6, max_macs_bounded = 1e6, max_macs_special = 1e6;
  double max_tensor_elements = 1e6;  // of x, w and y each (host memory and fill time)
};
ConvGenLimits small_conv_limits();  // the defaults: cheap for the CPU reference
ConvGenLimits large_conv_limits();  // bigger problems for GPU campaigns with the GPU oracle

struct SpatialGenome {
  std::int64_t in = 1, filter = 1, stride = 1, dilation = 1;
  int pad_mode = 0;  // 0: 0, 1: (E-1)/2, 2: ceil(E/2), 3: E-1, 4: E
  std::int64_t opad = 0;
};

struct ConvGenome {
  Special special = Special::none;
  verify::FillTier fill = verify::FillTier::bounded;
  bool three_d = false, trans = false, bias = false, depthwise = false;
  std::int64_t groups = 1;
  DType dtype = DType::fp32;
  bool channels_last = false;
  ConvDir dir = ConvDir::fwd;
  std::int64_t n = 1, c_per_group = 1, k_per_group = 1;
  std::array<SpatialGenome, 3> spatial{};  // depth (3D only), height, width
  std::uint64_t seed = 1;
};

// The data of a case: the seed of the fills, the tier when it is not the problem's default, special values.
struct ConvCaseData {
  std::uint64_t seed = 1;
  std::optional<verify::FillTier> fill;  // set only when it differs from the default tier
  Special special = Special::none;
};

struct ConvCase {
  ConvProblem problem;
  ConvCaseData data;
};

rc::Gen<ConvGenome> conv_genome_gen(const ConvDomain& d, const ConvGenLimits& lim);

// Fraction of the elements of the direction's output that have at least one real term (the others
// are structural zeros: outputs reading only padding, dx positions no tap reaches, taps that only
// ever see padding): the product over the spatial axes of each axis's live fraction.
double structural_live_fraction(const ConvProblem& p);
inline constexpr double kMinLiveFraction = 0.5;
ConvCase conv_case_from_genome(const ConvGenome& g, const ConvDomain& d, const ConvGenLimits& lim);

// The tier a case runs with (its explicit fill, else the problem's default).
verify::FillTier conv_case_tier(const ConvCase& c);

// Coverage classes: dir:<d>, dtype:<t>, layout:<l>, fill:<tier>, special:<kind>, size1, odd_size,
// prime_size, tail, pad_ge_half_filter, stride_gt_filter, dilation, groups, depthwise, 3d, trans,
// opad, bias (see conv_gen.cpp for each rule).
std::vector<std::string> conv_case_classes(const ConvCase& c);
std::vector<std::string> conv_reachable_classes(const ConvDomain& d);
std::vector<SkippedClass> conv_skipped_classes(const ConvDomain& d);

}  // namespace hiprim::fuzz
