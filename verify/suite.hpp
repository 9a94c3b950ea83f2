// Suites: lists of convolution problems, one canonical problem string per line ('#' comments,
// blank lines allowed). Built-in suites are embedded in the library (generated from
// verify/suites/*.txt at configure time), so the hiprim binary works from any directory.
//   smoke:    verify/suites/smoke.txt, ~60 tiny problems covering every feature.
//   edge:     verify/suites/edge.txt, shapes where kernels break (stride > filter, dilation, depthwise,
//             1xN, odd sizes, N=1, C=1, padding >= filter, 3D, transposed), crossed with the options.
//   resnet50: the 23 unique ResNet-50 v1.5 convolutions (verify/suites/resnet50_layers.txt) for
//             every dtype x layout x direction of the SuiteOptions.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/conv_problem.hpp"

namespace hiprim::verify {

// One problem line of a suite text: the text without comment and surrounding blanks, 1-based line.
struct SuiteEntry {
  std::string problem;
  int line = 0;
};

std::vector<SuiteEntry> suite_entries(std::string_view text);
// Parses and validates every entry; InputError "<source_name>:<line>: <parser message>".
std::vector<ConvProblem> parse_suite(std::string_view text, const std::string& source_name);

struct SuiteOptions {
  std::int64_t batch = 1;
  std::vector<DType> dtypes{DType::fp32};
  std::vector<bool> channels_last{false};
  std::vector<ConvDir> dirs{ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights};
};

struct Resnet50Layer {
  std::int64_t c, k, h, w, r, s, stride, pad;
  std::int64_t count;  // occurrences in the network
};
std::vector<Resnet50Layer> resnet50_layers();
ConvProblem resnet50_problem(const Resnet50Layer& l, std::int64_t batch, DType dtype, bool channels_last, ConvDir dir);

std::vector<std::string> builtin_suite_names();  // {"smoke", "resnet50", "edge"}
// The text a built-in suite is read from (its embedded .txt file); InputError for an unknown name.
std::string_view builtin_suite_text(const std::string& name);
// smoke ignores the options; edge and resnet50 order dtype, layout, direction, layer (outermost first).
// InputError for an unknown name or bad options (batch < 1, an empty list).
std::vector<ConvProblem> builtin_suite(const std::string& name, const SuiteOptions& opts);
// A built-in name, else a file path (parsed with parse_suite; the options do not apply). A missing
// file -> InputError naming the path and the built-in names.
std::vector<ConvProblem> load_suite(const std::string& name_or_path, const SuiteOptions& opts);

}  // namespace hiprim::verify
