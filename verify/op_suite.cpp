#include "verify/op_suite.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "verify/suite_data.hpp"

namespace hiprim::verify {

std::vector<std::string> op_suite_names() { return {"smoke_ops", "ops"}; }

std::vector<std::string> all_suite_names() {
  auto names = builtin_suite_names();
  for (auto& n : op_suite_names()) names.push_back(n);
  return names;
}

SuiteProblems parse_mixed_suite(std::string_view text, const std::string& source_name) {
  SuiteProblems out;
  for (const SuiteEntry& e : suite_entries(text)) {
    try {
      if (first_token(e.problem) == "conv")
        out.conv.push_back(parse_conv_problem(e.problem));
      else
        out.ops.push_back(parse_op_problem(e.problem));
    } catch (const InputError& err) {
      throw InputError(source_name + ":" + std::to_string(e.line) + ": " + err.what());
    }
  }
  return out;
}

std::vector<std::string> expand_dtype_layout(const std::string& problem) {
  std::vector<std::string> toks;
  {
    std::istringstream is(problem);
    std::string w;
    while (is >> w) toks.push_back(w);
  }
  int dtype_at = -1, layout_at = -1;
  for (std::size_t i = 1; i < toks.size(); ++i) {
    if (parse_dtype(toks[i])) dtype_at = static_cast<int>(i);
    if (toks[i] == "nchw" || toks[i] == "nhwc" || toks[i] == "ncdhw" || toks[i] == "ndhwc") layout_at = static_cast<int>(i);
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
      std::string s;
      for (auto& w : t) s += (s.empty() ? "" : " ") + w;
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  return out;
}

namespace {

std::vector<OpProblemPtr> ops_suite() {
  const std::string_view text = embedded_suite_file("ops.txt");
  std::vector<OpProblemPtr> out;
  std::set<std::string> seen;
  for (const SuiteEntry& e : suite_entries(text))
    for (const std::string& s : expand_dtype_layout(e.problem)) {
      OpProblemPtr p;
      try {
        p = parse_op_problem(s);
      } catch (const InputError& err) {
        throw InputError("ops.txt:" + std::to_string(e.line) + " (as \"" + s + "\"): " + err.what());
      }
      if (seen.insert(p->str()).second) out.push_back(p);
    }
  return out;
}

std::vector<OpProblemPtr> smoke_ops_suite() { return parse_mixed_suite(embedded_suite_file("smoke_ops.txt"), "smoke_ops.txt").ops; }

}  // namespace

SuiteProblems load_any_suite(const std::string& name_or_path, const SuiteOptions& opts) {
  SuiteProblems out;
  if (name_or_path == "smoke") {
    out.conv = builtin_suite("smoke", opts);
    out.ops = smoke_ops_suite();
    return out;
  }
  if (name_or_path == "smoke_ops") {
    out.ops = smoke_ops_suite();
    return out;
  }
  if (name_or_path == "ops") {
    out.ops = ops_suite();
    return out;
  }
  for (const auto& n : builtin_suite_names())
    if (n == name_or_path) {
      out.conv = builtin_suite(n, opts);
      return out;
    }
  std::error_code ec;
  std::ifstream f;
  if (std::filesystem::is_regular_file(name_or_path, ec)) f.open(name_or_path, std::ios::binary);
  if (!f.is_open()) {
    std::string names;
    for (auto& n : all_suite_names()) names += (names.empty() ? "" : ", ") + n;
    throw InputError("suite '" + name_or_path + "' is neither a built-in suite (" + names + ") nor a readable file");
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_mixed_suite(ss.str(), name_or_path);
}

}  // namespace hiprim::verify
