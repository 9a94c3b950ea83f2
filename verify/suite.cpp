#include "verify/suite.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "verify/suite_data.hpp"

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

std::string names_list() {
  std::string s;
  for (const auto& n : builtin_suite_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

std::vector<SuiteEntry> suite_entries(std::string_view text) {
  std::vector<SuiteEntry> out;
  for_each_data_line(text, [&](std::string_view line, int number) { out.push_back({std::string(line), number}); });
  return out;
}

std::vector<ConvProblem> parse_suite(std::string_view text, const std::string& source_name) {
  std::vector<ConvProblem> out;
  for (const SuiteEntry& e : suite_entries(text)) {
    try {
      out.push_back(parse_conv_problem(e.problem));
    } catch (const InputError& err) {
      throw InputError(source_name + ":" + std::to_string(e.line) + ": " + err.what());
    }
  }
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

std::vector<std::string> builtin_suite_names() { return {"smoke", "resnet50", "edge"}; }

std::string_view builtin_suite_text(const std::string& name) {
  if (name == "smoke") return embedded_suite_file("smoke.txt");
  if (name == "resnet50") return embedded_suite_file("resnet50_layers.txt");
  if (name == "edge") return embedded_suite_file("edge.txt");
  throw InputError("unknown built-in suite '" + name + "'; built-in suites: " + names_list());
}

// Each shape crossed with the options' dtypes, layouts and directions (a bias is kept for fwd only).
std::vector<ConvProblem> expand_shapes(const std::vector<ConvProblem>& shapes, const SuiteOptions& opts, const std::string& suite) {
  if (opts.dtypes.empty()) throw InputError("suite options: the list of dtypes is empty");
  if (opts.channels_last.empty()) throw InputError("suite options: the list of layouts is empty");
  if (opts.dirs.empty()) throw InputError("suite options: the list of directions is empty");
  std::vector<ConvProblem> out;
  for (DType dt : opts.dtypes)
    for (bool cl : opts.channels_last)
      for (ConvDir d : opts.dirs)
        for (ConvProblem p : shapes) {
          p.dtype = dt;
          p.channels_last = cl;
          p.dir = d;
          p.bias = p.bias && d == ConvDir::fwd;
          auto errs = p.validate();
          if (!errs.empty()) throw InputError(suite + " suite: " + to_string(p) + ": " + errs.front());
          out.push_back(p);
        }
  return out;
}

std::vector<ConvProblem> builtin_suite(const std::string& name, const SuiteOptions& opts) {
  const std::string_view text = builtin_suite_text(name);
  if (name == "smoke") return parse_suite(text, "smoke.txt");
  if (name == "edge") return expand_shapes(parse_suite(text, "edge.txt"), opts, name);
  if (opts.batch < 1) throw InputError("suite batch = " + std::to_string(opts.batch) + " must be >= 1");
  std::vector<ConvProblem> shapes;
  for (const Resnet50Layer& l : resnet50_layers()) shapes.push_back(resnet50_problem(l, opts.batch, DType::fp32, false, ConvDir::fwd));
  return expand_shapes(shapes, opts, name);
}

std::vector<ConvProblem> load_suite(const std::string& name_or_path, const SuiteOptions& opts) {
  for (const auto& n : builtin_suite_names())
    if (n == name_or_path) return builtin_suite(n, opts);
  std::error_code ec;
  std::ifstream f;
  if (std::filesystem::is_regular_file(name_or_path, ec)) f.open(name_or_path, std::ios::binary);
  if (!f.is_open())
    throw InputError("suite '" + name_or_path + "' is neither a built-in suite (" + names_list() +
                     ") nor a readable file");
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_suite(ss.str(), name_or_path);
}

}  // namespace hiprim::verify
