#include "verify/suite_rewrite.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "verify/suite.hpp"

namespace hiprim::verify {

namespace {

std::vector<std::string> tokens_of(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> out;
  for (std::string w; is >> w;) out.push_back(w);
  return out;
}

std::string joined(const std::vector<std::string>& toks) {
  std::string s;
  for (const auto& t : toks) s += (s.empty() ? "" : " ") + t;
  return s;
}

bool is_layout(const std::string& t) { return t == "nchw" || t == "nhwc" || t == "ncdhw" || t == "ndhwc"; }

}  // namespace

std::vector<CountedLine> counted_lines(std::string_view text, const std::string& source) {
  std::vector<CountedLine> out;
  for (const SuiteEntry& e : suite_entries(text)) {
    const auto space = e.problem.find(' ');
    const std::string head = e.problem.substr(0, space);
    const bool digits = !head.empty() && head.size() < 10 && std::all_of(head.begin(), head.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || space == std::string::npos)
      throw InputError(source + ":" + std::to_string(e.line) + ": expected '<count> <problem string>', got '" + e.problem + "'");
    out.push_back({std::stoll(head), e.problem.substr(e.problem.find_first_not_of(' ', space)), e.line});
  }
  return out;
}

std::string rebatch_problem(const std::string& problem, std::int64_t from, std::int64_t to) {
  auto toks = tokens_of(problem);
  const std::string n_from = std::to_string(from), n_to = std::to_string(to);
  for (std::size_t i = 1; i < toks.size(); ++i) {
    std::string& t = toks[i];
    if (t == "n" + n_from) {
      t = "n" + n_to;
      continue;
    }
    for (const char* prefix : {"a", "b", "dims"}) {  // <prefix><d0>x<d1>..: the leading dim
      const std::string pre(prefix);
      if (t.rfind(pre, 0) != 0) continue;
      const std::string rest = t.substr(pre.size());
      if (rest == n_from || rest.rfind(n_from + "x", 0) == 0) t = pre + n_to + rest.substr(n_from.size());
      break;
    }
  }
  return joined(toks);
}

std::string with_dtype_layout(const std::string& problem, DType dtype, bool channels_last) {
  auto toks = tokens_of(problem);
  for (std::size_t i = 1; i < toks.size(); ++i) {
    std::string& t = toks[i];
    if (parse_dtype(t)) t = std::string(dtype_name(dtype));
    else if (t == "nchw" || t == "nhwc") t = channels_last ? "nhwc" : "nchw";
    else if (t == "ncdhw" || t == "ndhwc") t = channels_last ? "ndhwc" : "ncdhw";
  }
  return joined(toks);
}

std::vector<std::string> expand_dtype_layout(const std::string& problem) {
  const auto toks = tokens_of(problem);
  int dtype_at = -1, layout_at = -1;
  for (std::size_t i = 1; i < toks.size(); ++i) {
    if (parse_dtype(toks[i])) dtype_at = static_cast<int>(i);
    if (is_layout(toks[i])) layout_at = static_cast<int>(i);
  }
  std::vector<std::string> layouts{layout_at < 0 ? "" : toks[layout_at]};
  if (layout_at >= 0) {
    static const std::pair<const char*, const char*> other[] = {{"nchw", "nhwc"}, {"nhwc", "nchw"}, {"ncdhw", "ndhwc"}, {"ndhwc", "ncdhw"}};
    for (auto [a, b] : other)
      if (toks[layout_at] == a) layouts.push_back(b);
  }
  std::vector<std::string> dtypes{dtype_at < 0 ? "" : toks[dtype_at]};
  if (dtype_at >= 0) dtypes = {"fp32", "fp16", "bf16"};
  std::vector<std::string> out;
  for (auto& dt : dtypes)
    for (auto& l : layouts) {
      auto t = toks;
      if (dtype_at >= 0) t[dtype_at] = dt;
      if (layout_at >= 0) t[layout_at] = l;
      const std::string s = joined(t);
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  return out;
}

}  // namespace hiprim::verify
