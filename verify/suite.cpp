#include "verify/suite.hpp"

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/error.hpp"
#include "verify/suite_data.hpp"
#include "verify/suite_rewrite.hpp"

namespace hiprim::verify {

namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// Calls f(line_without_comment, line_number) for every non-blank line.
template <typename F>
void for_each_data_line(std::string_view text, F&& f) {
  int number = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto nl = text.find('\n', pos);
    const auto end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    ++number;
    line = trim(line.substr(0, line.find('#')));
    if (!line.empty()) f(line, number);
    pos = end + 1;
  }
}

bool in_part(const OpProblem& p, SuitePart part) {
  const bool conv = p.op() == ConvProblem::kOp;
  return part == SuitePart::all || (part == SuitePart::conv) == conv;
}

bool loads(const BuiltinSuite& s, SuitePart part) {
  if (part == SuitePart::all) return !s.bench_only;
  return part == SuitePart::ops || s.conv;
}

// The line's problem, or InputError "<source>:<line><as>: <parser message>".
template <typename Parse>
auto parsed(Parse&& parse, const std::string& s, const std::string& source, int line, const std::string& as = "") {
  try {
    return parse(s);
  } catch (const InputError& err) {
    throw InputError(source + ":" + std::to_string(line) + as + ": " + err.what());
  }
}

void check_options(const SuiteOptions& opts, bool batch, bool dirs) {
  if (batch && opts.batch < 1) throw InputError("suite batch = " + std::to_string(opts.batch) + " must be >= 1");
  if (opts.dtypes.empty()) throw InputError("suite options: the list of dtypes is empty");
  if (opts.channels_last.empty()) throw InputError("suite options: the list of layouts is empty");
  if (dirs && opts.dirs.empty()) throw InputError("suite options: the list of directions is empty");
}

// Each conv shape crossed with the options' dtypes, layouts and directions (a bias is kept for fwd
// only), each with its count.
std::vector<SuiteProblem> cross_options(const std::vector<std::pair<ConvProblem, std::int64_t>>& shapes, const SuiteOptions& opts,
                                        const std::string& suite) {
  std::vector<SuiteProblem> out;
  for (DType dt : opts.dtypes)
    for (bool cl : opts.channels_last)
      for (ConvDir d : opts.dirs)
        for (auto [p, count] : shapes) {
          p.dtype = dt;
          p.channels_last = cl;
          p.dir = d;
          p.bias = p.bias && d == ConvDir::fwd;
          auto errs = p.validate();
          if (!errs.empty()) throw InputError(suite + " suite: " + to_string(p) + ": " + errs.front());
          out.push_back({make_op_problem(p), count});
        }
  return out;
}

std::vector<SuiteProblem> generate(const std::string& suite, const std::string& file, SuiteGenerator g, const SuiteOptions& opts) {
  const std::string_view text = embedded_suite_file(file);
  std::vector<SuiteProblem> out;
  switch (g) {
    case SuiteGenerator::as_written:
      return parse_suite(text, file);
    case SuiteGenerator::cross_options: {
      check_options(opts, false, true);
      std::vector<std::pair<ConvProblem, std::int64_t>> shapes;
      for (const SuiteEntry& e : suite_entries(text)) shapes.push_back({parsed(parse_conv_problem, e.problem, file, e.line), 1});
      return cross_options(shapes, opts, suite);
    }
    case SuiteGenerator::resnet50_layers: {
      check_options(opts, true, true);
      std::vector<std::pair<ConvProblem, std::int64_t>> shapes;
      for (const Resnet50Layer& l : resnet50_layers())
        shapes.push_back({resnet50_problem(l, opts.batch, DType::fp32, false, ConvDir::fwd), l.count});
      return cross_options(shapes, opts, suite);
    }
    case SuiteGenerator::dtype_layout: {
      std::set<std::string> seen;
      for (const SuiteEntry& e : suite_entries(text))
        for (const std::string& s : expand_dtype_layout(e.problem)) {
          OpProblemPtr p = parsed(parse_op_problem, s, file, e.line, " (as \"" + s + "\")");
          if (seen.insert(p->str()).second) out.push_back({p, 1});
        }
      return out;
    }
    case SuiteGenerator::counted_batch: {
      check_options(opts, true, false);
      const auto lines = counted_lines(text, file);
      for (DType dt : opts.dtypes)
        for (bool cl : opts.channels_last)
          for (const CountedLine& l : lines) {
            const std::string s = with_dtype_layout(rebatch_problem(l.problem, kResnet50OpsBatch, opts.batch), dt, cl);
            out.push_back({parsed(parse_op_problem, s, file, l.line, " (as \"" + s + "\")"), l.count});
          }
      return out;
    }
  }
  return out;
}

}  // namespace

std::vector<SuiteEntry> suite_entries(std::string_view text) {
  std::vector<SuiteEntry> out;
  for_each_data_line(text, [&](std::string_view line, int number) { out.push_back({std::string(line), number}); });
  return out;
}

const std::vector<BuiltinSuite>& builtin_suites() {
  using G = SuiteGenerator;
  static const std::vector<BuiltinSuite> suites{
      {"smoke", {{"smoke.txt", G::as_written}, {"smoke_ops.txt", G::as_written}}, true, false},
      {"resnet50", {{"resnet50_layers.txt", G::resnet50_layers}}, true, false},
      {"edge", {{"edge.txt", G::cross_options}}, true, false},
      {"smoke_ops", {{"smoke_ops.txt", G::as_written}}, false, false},
      {"ops", {{"ops.txt", G::dtype_layout}}, false, false},
      {"fusion", {{"fusion.txt", G::dtype_layout}}, false, false},
      {"resnet50_ops", {{"resnet50_ops.txt", G::counted_batch}}, false, true},
  };
  return suites;
}

std::vector<std::string> suite_names(SuitePart part) {
  std::vector<std::string> out;
  for (const BuiltinSuite& s : builtin_suites())
    if (loads(s, part)) out.push_back(s.name);
  return out;
}

std::vector<SuiteProblem> parse_suite(std::string_view text, const std::string& source_name, SuitePart part) {
  std::vector<SuiteProblem> out;
  for (const SuiteEntry& e : suite_entries(text)) {
    OpProblemPtr p = part == SuitePart::conv
                         ? make_op_problem(parsed(parse_conv_problem, e.problem, source_name, e.line))
                         : parsed(parse_op_problem, e.problem, source_name, e.line);
    if (in_part(*p, part)) out.push_back({std::move(p), 1});
  }
  return out;
}

namespace {
// opts.math on the fp32 conv problems of a loaded suite (SuiteOptions::math).
std::vector<SuiteProblem> with_math(std::vector<SuiteProblem> problems, ConvMath math) {
  if (math == ConvMath::exact) return problems;
  for (SuiteProblem& sp : problems)
    if (const ConvProblem* c = op_problem_cast<ConvProblem>(*sp.problem); c != nullptr && c->dtype == DType::fp32) {
      ConvProblem q = *c;
      q.math = math;
      sp.problem = make_op_problem(q);
    }
  return problems;
}

// load_suite without opts.math applied: the problems as the suite and the other options give them.
std::vector<SuiteProblem> load_suite_as_given(const std::string& name_or_path, const SuiteOptions& opts, SuitePart part) {
  for (const BuiltinSuite& s : builtin_suites()) {
    if (s.name != name_or_path || !loads(s, part)) continue;
    std::vector<SuiteProblem> out;
    for (const auto& [file, g] : s.files)
      for (SuiteProblem& p : generate(s.name, file, g, opts))
        if (in_part(*p.problem, part)) out.push_back(std::move(p));
    return out;
  }
  std::error_code ec;
  std::ifstream f;
  if (std::filesystem::is_regular_file(name_or_path, ec)) f.open(name_or_path, std::ios::binary);
  if (!f.is_open()) {
    std::string names;
    for (const BuiltinSuite& s : builtin_suites())
      if (loads(s, part) && !s.bench_only) names += (names.empty() ? "" : ", ") + s.name;
    throw InputError("suite '" + name_or_path + "' is neither a built-in suite (" + names + ") nor a readable file");
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_suite(ss.str(), name_or_path, part);
}
}  // namespace

std::vector<SuiteProblem> load_suite(const std::string& name_or_path, const SuiteOptions& opts, SuitePart part) {
  return with_math(load_suite_as_given(name_or_path, opts, part), opts.math);
}

SuiteOptionUse suite_option_use(const std::string& name_or_path) {
  SuiteOptionUse u;
  for (const BuiltinSuite& s : builtin_suites()) {
    if (s.name != name_or_path) continue;
    for (const auto& [file, g] : s.files) {
      const bool cross = g == SuiteGenerator::cross_options, layers = g == SuiteGenerator::resnet50_layers,
                 counted = g == SuiteGenerator::counted_batch;
      u.batch = u.batch || layers || counted;
      u.dtypes = u.dtypes || cross || layers || counted;
      u.layouts = u.layouts || cross || layers || counted;
      u.dirs = u.dirs || cross || layers;
    }
  }
  return u;
}

void check_suite_options_apply(const std::vector<std::string>& names, const std::vector<std::string>& given_flags) {
  for (const std::string& flag : given_flags) {
    auto reads = [&](const std::string& suite) {
      const SuiteOptionUse u = suite_option_use(suite);
      return (flag == "--batch" && u.batch) || ((flag == "--dtype" || flag == "--combo") && u.dtypes) ||
             (flag == "--layout" && u.layouts) || (flag == "--dir" && u.dirs);
    };
    if (std::any_of(names.begin(), names.end(), reads)) continue;
    std::string which, joined;
    for (const BuiltinSuite& s : builtin_suites())
      if (reads(s.name)) which += (which.empty() ? "" : ", ") + s.name;
    for (const std::string& n : names) joined += (joined.empty() ? "" : ",") + n;
    throw InputError(flag + " is read by no suite of '" + joined + "' (their problems carry their own; it applies to " + which +
                     "): drop it, or add a suite that reads it");
  }
}

std::vector<ConvProblem> conv_problems(const std::vector<SuiteProblem>& problems) {
  std::vector<ConvProblem> out;
  for (const SuiteProblem& p : problems)
    if (const ConvProblem* c = op_problem_cast<ConvProblem>(*p.problem)) out.push_back(*c);
  return out;
}

std::vector<Resnet50Layer> resnet50_layers() {
  std::vector<Resnet50Layer> out;
  for_each_data_line(embedded_suite_file("resnet50_layers.txt"), [&](std::string_view line, int number) {
    std::istringstream is{std::string(line)};
    Resnet50Layer l{};
    std::string extra;
    if (!(is >> l.c >> l.k >> l.h >> l.w >> l.r >> l.s >> l.stride >> l.pad >> l.count) || (is >> extra))
      throw InputError("resnet50_layers.txt:" + std::to_string(number) +
                       ": expected 9 integers 'C K H W R S stride pad count', got '" + std::string(line) + "'");
    out.push_back(l);
  });
  return out;
}

ConvProblem resnet50_problem(const Resnet50Layer& l, std::int64_t batch, DType dtype, bool channels_last, ConvDir dir) {
  ConvProblem p;
  p.dir = dir;
  p.dtype = dtype;
  p.channels_last = channels_last;
  p.n = batch;
  p.c = l.c;
  p.k = l.k;
  p.in = {l.h, l.w};
  p.filter = {l.r, l.s};
  p.pad = {l.pad, l.pad};
  p.stride = {l.stride, l.stride};
  p.dilation = {1, 1};
  p.out_pad = {0, 0};
  return p;
}

}  // namespace hiprim::verify
