#include "bench/bench_ops_suite.hpp"

#include <algorithm>
#include <sstream>

#include "core/error.hpp"
#include "verify/suite_data.hpp"

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

std::int64_t op_problem_batch(const OpProblem& p) {
  const auto ts = p.tensors();
  if (ts.empty() || ts.front().desc.dims.empty()) throw InputError("op problem " + p.str() + " has no tensor to take a batch from");
  return ts.front().desc.dims.front();
}

OpProblemPtr op_problem_at_batch(const OpProblem& p, std::int64_t batch) {
  const std::int64_t n = op_problem_batch(p);
  if (batch >= n) return p.clone();
  return parse_op_problem(rebatch_problem(p.str(), n, batch));
}

std::vector<std::string> op_bench_suite_names() { return {"resnet50_ops"}; }

bool op_selected_by(const OpProblem& p, const std::string& token) {
  if (token == "all" || token == p.op()) return true;
  const auto toks = tokens_of(p.str());
  for (std::size_t i = 1; i < toks.size() && !parse_dtype(toks[i]); ++i)
    if (toks[i] == token) return true;
  return false;
}

std::vector<OpBenchProblem> resnet50_ops_suite(const SuiteOptions& opts) {
  if (opts.batch < 1) throw InputError("--batch " + std::to_string(opts.batch) + ": must be >= 1");
  if (opts.dtypes.empty()) throw InputError("suite options: the list of dtypes is empty");
  if (opts.channels_last.empty()) throw InputError("suite options: the list of layouts is empty");
  const auto lines = counted_lines(embedded_suite_file("resnet50_ops.txt"), "resnet50_ops.txt");
  std::vector<OpBenchProblem> out;
  for (DType dt : opts.dtypes)
    for (bool cl : opts.channels_last)
      for (const CountedLine& l : lines) {
        const std::string s = with_dtype_layout(rebatch_problem(l.problem, kResnet50OpsBatch, opts.batch), dt, cl);
        try {
          out.push_back({parse_op_problem(s), l.count});
        } catch (const InputError& e) {
          throw InputError("resnet50_ops.txt:" + std::to_string(l.line) + " (as \"" + s + "\"): " + e.what());
        }
      }
  return out;
}

}  // namespace hiprim::verify
