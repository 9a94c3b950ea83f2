// The token reader of every canonical problem string (conv's, core/conv_problem.hpp, and the ops'):
// whitespace-separated tokens; the first is the primitive's name; the rest in any order, each at most once;
// words (fwd, spatial, ...) and prefixed values: integers n4, dims in8x8 / in4x8x8, reals eps1e-05.
// Errors name the token by position and text: "problem string: token 3 'q7': <why>".
//
// The common data shape of the ops is OpShape: dtype, layout, n<N> c<C> in<HxW> (or in<DxHxW>),
// a tensor [N, C, (D,) H, W] with packed strides, channels last for nhwc/ndhwc.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.hpp"

namespace hiprim {

struct Token {
  std::string text;
  int pos = 0;  // 1-based; one past the last token for "<end>"
};

// Throws InputError("problem string: token <pos> '<text>': <why>").
[[noreturn]] void bad_token(const Token& t, const std::string& why);

// Reals in canonical strings: the shortest decimal that reads back to the same double
// (std::to_chars), e.g. 1e-05, 0.5, -2, inf.
std::string format_real(double v);
// "4x5x6"
std::string join_dims(const Dims& d);
// nchw | nhwc for spatial rank 2 (or any rank but 3), ncdhw | ndhwc for rank 3.
std::string spatial_layout_name(int spatial_rank, bool channels_last);

// Reads the tokens of one problem string. Each accessor looks for its token among the ones not yet
// taken, takes it, and throws InputError when it appears twice or is malformed. finish() rejects
// whatever no accessor took.
class OpTokens {
 public:
  // Splits s on whitespace; InputError when empty or when the first token is not `op`.
  // `example` (a valid string) is quoted in the message for an empty string.
  OpTokens(std::string_view s, std::string_view op, std::string_view example);

  // The bare word, at most once.
  bool word(std::string_view w);
  // At most one of the words (e.g. {"fwd", "bwd"}); `what` names the choice in the message for
  // two of them ("direction").
  std::optional<std::string> one_of(const std::vector<std::string_view>& words, std::string_view what);
  // prefix followed by a non-negative integer ("n4"); a token that is the prefix followed by a
  // digit, '-' or '+' but not a valid integer throws.
  std::optional<std::int64_t> integer(std::string_view prefix);
  // prefix followed by an unsigned 64-bit integer (random seeds: the whole range round-trips).
  std::optional<std::uint64_t> uint64(std::string_view prefix);
  // prefix followed by 1..max_entries non-negative integers joined by 'x' ("in4x8x8").
  std::optional<Dims> dims(std::string_view prefix, std::size_t max_entries = 3);
  // prefix followed by a real (std::from_chars format: 1e-05, -0.5, inf, nan); taken when the text
  // after the prefix starts with a digit, '-', '+', '.', "inf" or "nan".
  std::optional<double> real(std::string_view prefix);
  // fp32 | fp16 | bf16
  std::optional<DType> dtype();
  // prefix followed by a dtype ("scale=fp16"); a token with the prefix and another word throws.
  std::optional<DType> dtype_after(std::string_view prefix);
  // nchw | nhwc (spatial rank 2) | ncdhw | ndhwc (rank 3)
  struct Layout {
    int spatial_rank = 2;
    bool channels_last = false;
    Token token;
  };
  std::optional<Layout> layout();

  // Takes every untaken token for which pred(token) is true, visiting them in order (pred may keep
  // state, e.g. to take a parenthesized group spanning several tokens); returns them in order.
  std::vector<Token> take_if(const std::function<bool(const Token&)>& pred);

  // InputError naming the first token no accessor took; `expected` lists the accepted tokens.
  void finish(std::string_view expected) const;
  // The pseudo token after the last one, for "missing ..." errors.
  Token end() const;
  [[noreturn]] void missing(const std::string& what) const { bad_token(end(), "missing " + what); }

 private:
  // Index of the single untaken token satisfying pred (throws "given twice" for two), or -1.
  template <typename Pred>
  int find(Pred&& pred);
  std::vector<Token> toks_;
  std::vector<bool> taken_;
};

// [N, C, (D,) H, W] data of an op: dtype, layout, sizes. Tokens: "<dtype> <layout> n<N> c<C> in<..>".
struct OpShape {
  DType dtype = DType::fp32;
  bool channels_last = false;  // nhwc / ndhwc
  std::int64_t n = 1, c = 1;
  Dims in{1, 1};  // spatial sizes: 2 (H, W) or 3 (D, H, W)

  int rank() const { return static_cast<int>(in.size()); }
  std::string layout_name() const;  // nchw, nhwc, ncdhw, ndhwc
  Dims dims() const;                // {n, c, in...}
  TensorDesc desc() const;          // packed, the layout's strides
  TensorDesc desc(DType t) const;   // same dims and layout, another dtype
  // A per-channel vector [C] in dtype t, packed (e.g. bnorm's scale).
  TensorDesc channel_desc(DType t) const;
  std::int64_t elements() const;
  // Violations naming the quantity: n, c, each spatial size >= 1, rank 2 or 3, elements < 2^31.
  std::vector<std::string> validate() const;
  // "<dtype> <layout> n<N> c<C> in<..>"
  std::string tokens() const;
  bool operator==(const OpShape&) const = default;
};

// Reads the shape tokens (all required except the layout, default channels first of the rank of
// in<..>); throws InputError naming the missing or inconsistent token.
OpShape read_op_shape(OpTokens& t);

}  // namespace hiprim
