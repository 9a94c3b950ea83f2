#include "core/op_grammar.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <sstream>

#include "core/error.hpp"

namespace hiprim {

void bad_token(const Token& t, const std::string& why) {
  throw InputError("problem string: token " + std::to_string(t.pos) + " '" + t.text + "': " + why);
}

std::string format_real(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  (void)ec;
  return std::string(buf, end);
}

std::string join_dims(const Dims& d) {
  std::string s;
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(d[i]);
  }
  return s;
}

std::string spatial_layout_name(int spatial_rank, bool channels_last) {
  if (spatial_rank == 3) return channels_last ? "ndhwc" : "ncdhw";
  return channels_last ? "nhwc" : "nchw";
}

OpTokens::OpTokens(std::string_view s, std::string_view op, std::string_view example) {
  std::istringstream is{std::string(s)};
  std::string w;
  int i = 0;
  while (is >> w) toks_.push_back({w, ++i});
  if (toks_.empty()) throw InputError("problem string is empty; expected e.g. \"" + std::string(example) + "\"");
  if (toks_[0].text != op) bad_token(toks_[0], "expected the primitive '" + std::string(op) + "' first");
  taken_.assign(toks_.size(), false);
  taken_[0] = true;
}

template <typename Pred>
int OpTokens::find(Pred&& pred) {
  int found = -1;
  for (std::size_t i = 1; i < toks_.size(); ++i) {
    if (taken_[i] || !pred(toks_[i])) continue;
    if (found >= 0) bad_token(toks_[i], "given twice (also token " + std::to_string(toks_[found].pos) + ")");
    found = static_cast<int>(i);
  }
  if (found >= 0) taken_[found] = true;
  return found;
}

bool OpTokens::word(std::string_view w) {
  return find([&](const Token& t) { return t.text == w; }) >= 0;
}

std::optional<std::string> OpTokens::one_of(const std::vector<std::string_view>& words, std::string_view what) {
  int found = -1;
  for (std::size_t i = 1; i < toks_.size(); ++i) {
    if (taken_[i]) continue;
    bool match = false;
    for (auto w : words) match = match || toks_[i].text == w;
    if (!match) continue;
    if (found >= 0) bad_token(toks_[i], std::string(what) + " given twice (also token " + std::to_string(toks_[found].pos) + " '" + toks_[found].text + "')");
    found = static_cast<int>(i);
  }
  if (found < 0) return std::nullopt;
  taken_[found] = true;
  return toks_[found].text;
}

namespace {

bool has_prefix(const std::string& w, std::string_view prefix) {
  return w.size() > prefix.size() && w.compare(0, prefix.size(), prefix) == 0;
}

bool numeric_start(char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' || ch == '+'; }

std::int64_t parse_count(const Token& t, std::string_view s) {
  std::int64_t v = 0;
  if (s.empty()) bad_token(t, "expected a number after the prefix");
  if (s[0] == '-') bad_token(t, "'" + std::string(s) + "' is negative");
  if (s[0] == '+') s.remove_prefix(1);
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range || (ec == std::errc() && v > (std::int64_t{1} << 40))) bad_token(t, "number is too large");
  if (ec != std::errc() || ptr != s.data() + s.size()) bad_token(t, "'" + std::string(s) + "' is not a non-negative integer");
  return v;
}

}  // namespace

std::optional<std::int64_t> OpTokens::integer(std::string_view prefix) {
  int i = find([&](const Token& t) { return has_prefix(t.text, prefix) && numeric_start(t.text[prefix.size()]); });
  if (i < 0) return std::nullopt;
  return parse_count(toks_[i], std::string_view(toks_[i].text).substr(prefix.size()));
}

std::optional<std::uint64_t> OpTokens::uint64(std::string_view prefix) {
  int i = find([&](const Token& t) { return has_prefix(t.text, prefix) && numeric_start(t.text[prefix.size()]); });
  if (i < 0) return std::nullopt;
  const Token& t = toks_[i];
  std::string_view s = std::string_view(t.text).substr(prefix.size());
  if (s[0] == '-') bad_token(t, "'" + std::string(s) + "' is negative");
  if (s[0] == '+') s.remove_prefix(1);
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) bad_token(t, "number is larger than 2^64 - 1");
  if (ec != std::errc() || ptr != s.data() + s.size()) bad_token(t, "'" + std::string(s) + "' is not a non-negative integer");
  return v;
}

std::optional<Dims> OpTokens::dims(std::string_view prefix, std::size_t max_entries) {
  int i = find([&](const Token& t) { return has_prefix(t.text, prefix) && numeric_start(t.text[prefix.size()]); });
  if (i < 0) return std::nullopt;
  const Token& t = toks_[i];
  std::string_view s = std::string_view(t.text).substr(prefix.size());
  Dims d;
  std::size_t start = 0;
  while (true) {
    const std::size_t x = s.find('x', start);
    d.push_back(parse_count(t, s.substr(start, x == std::string_view::npos ? std::string_view::npos : x - start)));
    if (x == std::string_view::npos) break;
    start = x + 1;
  }
  if (d.size() > max_entries) bad_token(t, "more than " + std::to_string(max_entries) + " sizes");
  return d;
}

std::optional<double> OpTokens::real(std::string_view prefix) {
  auto starts_real = [&](const Token& t) {
    if (!has_prefix(t.text, prefix)) return false;
    std::string_view rest = std::string_view(t.text).substr(prefix.size());
    if (rest[0] == '-' || rest[0] == '+') rest.remove_prefix(1);
    return !rest.empty() && (std::isdigit(static_cast<unsigned char>(rest[0])) || rest[0] == '.' ||
                             rest.substr(0, 3) == "inf" || rest.substr(0, 3) == "nan");
  };
  int i = find(starts_real);
  if (i < 0) return std::nullopt;
  const Token& t = toks_[i];
  std::string_view s = std::string_view(t.text).substr(prefix.size());
  if (s[0] == '+') s.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) bad_token(t, "'" + std::string(s) + "' is not a real number");
  return v;
}

std::optional<DType> OpTokens::dtype() {
  auto w = one_of({"fp32", "fp16", "bf16"}, "dtype");
  if (!w) return std::nullopt;
  return parse_dtype(*w);
}

std::optional<DType> OpTokens::dtype_after(std::string_view prefix) {
  int i = find([&](const Token& t) { return has_prefix(t.text, prefix); });
  if (i < 0) return std::nullopt;
  auto d = parse_dtype(std::string_view(toks_[i].text).substr(prefix.size()));
  if (!d) bad_token(toks_[i], "expected fp32, fp16 or bf16 after '" + std::string(prefix) + "'");
  return d;
}

std::optional<OpTokens::Layout> OpTokens::layout() {
  int found = -1;
  for (std::size_t i = 1; i < toks_.size(); ++i) {
    const std::string& w = toks_[i].text;
    if (taken_[i] || !(w == "nchw" || w == "nhwc" || w == "ncdhw" || w == "ndhwc")) continue;
    if (found >= 0) bad_token(toks_[i], "layout given twice (also token " + std::to_string(toks_[found].pos) + ")");
    found = static_cast<int>(i);
  }
  if (found < 0) return std::nullopt;
  taken_[found] = true;
  const std::string& w = toks_[found].text;
  Layout l;
  l.spatial_rank = (w == "ncdhw" || w == "ndhwc") ? 3 : 2;
  l.channels_last = w == "nhwc" || w == "ndhwc";
  l.token = toks_[found];
  return l;
}

std::vector<Token> OpTokens::take_if(const std::function<bool(const Token&)>& pred) {
  std::vector<Token> out;
  for (std::size_t i = 1; i < toks_.size(); ++i)
    if (!taken_[i] && pred(toks_[i])) {
      taken_[i] = true;
      out.push_back(toks_[i]);
    }
  return out;
}

void OpTokens::finish(std::string_view expected) const {
  for (std::size_t i = 1; i < toks_.size(); ++i)
    if (!taken_[i]) bad_token(toks_[i], "unknown token; expected " + std::string(expected));
}

Token OpTokens::end() const { return Token{"<end>", static_cast<int>(toks_.size()) + 1}; }

// ---- OpShape ----

std::string OpShape::layout_name() const { return spatial_layout_name(rank(), channels_last); }

Dims OpShape::dims() const {
  Dims d{n, c};
  d.insert(d.end(), in.begin(), in.end());
  return d;
}

TensorDesc OpShape::desc() const { return desc(dtype); }
TensorDesc OpShape::desc(DType t) const { return TensorDesc::packed(t, dims(), channels_last); }
TensorDesc OpShape::channel_desc(DType t) const { return TensorDesc::packed(t, Dims{c}, false); }

std::int64_t OpShape::elements() const {
  std::int64_t e = 1;
  for (auto v : dims()) e *= v;
  return e;
}

std::vector<std::string> OpShape::validate() const {
  std::vector<std::string> e;
  if (rank() != 2 && rank() != 3) {
    e.push_back("spatial rank is " + std::to_string(rank()) + ": only 2 (HxW) and 3 (DxHxW) are supported");
    return e;
  }
  if (n < 1) e.push_back("batch n = " + std::to_string(n) + " must be >= 1");
  if (c < 1) e.push_back("channels c = " + std::to_string(c) + " must be >= 1");
  static const char* names[] = {"depth", "height", "width"};
  for (int i = 0; i < rank(); ++i)
    if (in[i] < 1) e.push_back("input " + std::string(names[i + 3 - rank()]) + " = " + std::to_string(in[i]) + " must be >= 1");
  if (e.empty() && elements() > (std::int64_t{1} << 31) - 1)
    e.push_back("the tensor has " + std::to_string(elements()) + " elements, more than 2^31-1");
  return e;
}

std::string OpShape::tokens() const {
  return std::string(dtype_name(dtype)) + " " + layout_name() + " n" + std::to_string(n) + " c" + std::to_string(c) + " in" +
         join_dims(in);
}

OpShape read_op_shape(OpTokens& t) {
  OpShape s;
  auto dt = t.dtype();
  if (!dt) t.missing("dtype fp32|fp16|bf16");
  s.dtype = *dt;
  auto layout = t.layout();
  auto n = t.integer("n");
  if (!n) t.missing("batch size n<N>");
  auto c = t.integer("c");
  if (!c) t.missing("channels c<C>");
  auto in = t.dims("in", 3);
  if (!in) t.missing("spatial size in<HxW> or in<DxHxW>");
  s.n = *n;
  s.c = *c;
  s.in = *in;
  if (s.in.size() < 2) t.missing("a second spatial size: in<HxW> or in<DxHxW>");
  if (layout) {
    if (layout->spatial_rank != s.rank())
      bad_token(layout->token, "layout is for " + std::to_string(layout->spatial_rank) + "D but in<..> has " +
                                   std::to_string(s.rank()) + " sizes");
    s.channels_last = layout->channels_last;
  }
  return s;
}

}  // namespace hiprim
