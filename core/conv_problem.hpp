// Convolution problem descriptor: shapes, geometry, direction, dtype, layout. No tuning knobs.
//
// Tensors (logical dims; the layout only changes strides):
//   mode conv:  x [N, C, in...]   w [K, C/G, f...]   y [N, K, out...]
//               out_i = (in_i + 2*pad_i - dil_i*(f_i-1) - 1) / str_i + 1
//   mode trans: x [N, C, in...]   w [C, K/G, f...]   y [N, K, out...]
//               out_i = (in_i - 1)*str_i - 2*pad_i + dil_i*(f_i-1) + opad_i + 1
//               (a transposed conv's fwd is the bwd-data of the conv mapping y back to x)
// Directions (MIOpen's naming): fwd computes y from x,w (+bias[K]); bwd-data computes dx from dy,w;
// bwd-weights computes dw from x,dy. Spatial rank 2 (H,W) or 3 (D,H,W).
//
// Canonical string (one per problem; parse(print(p)) == p):
//   conv <dir> <dtype> <layout> n<N> c<C> k<K> in<HxW> f<RxS> pad<..> str<..> dil<..> g<G> [trans opad<..>] [bias] [math=tf32]
//   e.g. "conv fwd fp32 nchw n32 c256 k256 in14x14 f3x3 pad1x1 str1x1 dil1x1 g1"
// The parser (the shared token reader, core/op_grammar.hpp) also accepts tokens in any order and
// omitted defaults (pad0, str1, dil1, g1, opad0).
//
// Math mode (math=tf32, fp32 data only, opt-in as PyTorch's allow_tf32 and cuDNN's tensor-op math with
// conversion): a solver may round each input to TF32 (10 explicit mantissa bits) before its products,
// summed in fp32 on the tensor cores. It allows, it does not require: a solver computing in exact
// fp32 is correct for it too. The reference stays exact in double; a solver that rounds declares it
// (ConvErrorModel::input_unit) and is judged by that derived bound (reference/error_model.hpp).
//
// ConvProblem is an OpProblemValue (core/op_problem.hpp): make_op_problem(p) type-erases it like
// every other primitive. tensors() lists the direction's tensors, inputs first, in this order:
//   fwd:         x input, w input, [bias input, when bias], y output
//   bwd-data:    dy input (y_desc), w input, dx output (x_desc)
//   bwd-weights: x input, dy input (y_desc), dw output (w_desc)
// bytes() is the least traffic through memory: each of those tensors once.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/op_problem.hpp"
#include "core/tensor.hpp"

namespace hiprim {

enum class ConvDir { fwd, bwd_data, bwd_weights };
enum class ConvMode { conv, trans };
enum class ConvMath { exact, tf32 };

std::string_view conv_dir_name(ConvDir d);  // "fwd", "bwd-data", "bwd-weights"

struct ConvProblem {
  static constexpr std::string_view kOp = "conv";
  ConvDir dir = ConvDir::fwd;
  DType dtype = DType::fp32;
  bool channels_last = false;  // nhwc / ndhwc
  std::int64_t n = 1, c = 1, k = 1, groups = 1;
  Dims in{1, 1};  // spatial input sizes, 2 or 3 entries
  Dims filter{1, 1};
  Dims pad{0, 0};
  Dims stride{1, 1};
  Dims dilation{1, 1};
  ConvMode mode = ConvMode::conv;
  Dims out_pad{0, 0};  // only for mode trans
  bool bias = false;   // only for dir fwd
  ConvMath math = ConvMath::exact;  // tf32: fp32 data only (see above)

  int rank() const { return static_cast<int>(in.size()); }
  std::string layout_name() const;  // nchw, nhwc, ncdhw, ndhwc
  Dims out() const;                 // spatial output sizes (may be <= 0 for invalid problems)

  // Every violated rule, each naming the quantities that break it; empty when valid.
  std::vector<std::string> validate() const;
  bool valid() const { return validate().empty(); }

  TensorDesc x_desc() const;
  TensorDesc w_desc() const;
  TensorDesc y_desc() const;
  TensorDesc bias_desc() const;  // [K], fp32 is not implied: the problem's dtype

  // Multiply-accumulates of the whole problem (same for every direction).
  double macs() const;
  double flops() const { return 2.0 * macs(); }
  // The direction's tensors in the order of the header comment.
  std::vector<OpTensor> tensors() const;
  // Least bytes through memory: every tensor of tensors() once, in the problem's dtype.
  double bytes() const { return op_tensor_bytes(tensors()); }
  // Length of each output element's dot product (the K of the error bound), per direction.
  std::int64_t reduction_length() const;

  bool operator==(const ConvProblem&) const = default;
};

std::string to_string(const ConvProblem& p);
// Throws InputError naming the bad token (its position and text) and the rule; validates too.
ConvProblem parse_conv_problem(std::string_view s);
// Parse without validation (for tests of validate()); still rejects malformed tokens.
ConvProblem parse_conv_problem_unchecked(std::string_view s);

static_assert(OpProblemValue<ConvProblem>);

}  // namespace hiprim
