// Suites: lists of problems of any primitive, one canonical problem string per line ('#' comments,
// blank lines allowed; the first token names the primitive), each with a count: how often it occurs
// in the network, the weight of the bench's totals (1 where a suite does not weight).
// `hiprim check` and `hiprim bench` load suites through load_suite alone (check's `--suite corpus`,
// the fuzz corpus, is no suite of problem lines). Built-in suites are
// embedded in the library (generated from verify/suites/*.txt at configure time, so the hiprim
// binary works from any directory); each is a table row: its files, each with the generator that
// turns its lines into problems (verify/suite_rewrite.hpp for the string rewrites):
//   smoke:        smoke.txt (~60 tiny conv problems covering every feature) and smoke_ops.txt (small
//                 op problems covering every primitive's features), as written.
//   resnet50:     resnet50_layers.txt, the 23 unique ResNet-50 v1.5 convolutions ("C K H W R S stride
//                 pad count"), at the options' batch for every dtype x layout x direction; counted.
//   edge:         edge.txt, conv shapes where kernels break (stride > filter, dilation, depthwise, 1xN,
//                 odd sizes, N=1, C=1, padding >= filter, 3D, transposed), x the options' dtype x
//                 layout x direction.
//   smoke_ops:    smoke_ops.txt, as written.
//   ops:          ops.txt, each line x fp32, fp16, bf16 x {its layout, the other channel order};
//                 duplicates dropped.
//   fusion:       fusion.txt (every fusion chain kind over the fused epilogue's edge shapes), each
//                 line x fp32, fp16, bf16 x both channel orders, as ops.txt.
//   resnet50_ops: resnet50_ops.txt ("<count> <problem>" at batch 32, fp32, nchw), at the options'
//                 batch for every dtype x layout; counted. For `hiprim bench --op` only.
// Generated suites order the options outermost (dtype, then layout, then direction), then the lines.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/op_problem.hpp"

namespace hiprim::verify {

// One problem line of a suite text: the text without comment and surrounding blanks, 1-based line.
struct SuiteEntry {
  std::string problem;
  int line = 0;
};
std::vector<SuiteEntry> suite_entries(std::string_view text);

struct SuiteOptions {
  std::int64_t batch = 1;
  std::vector<DType> dtypes{DType::fp32};
  std::vector<bool> channels_last{false};
  std::vector<ConvDir> dirs{ConvDir::fwd, ConvDir::bwd_data, ConvDir::bwd_weights};
  // tf32: every fp32 conv problem the suite loads (built-in or file) gets math=tf32 (the opt-in
  // TF32 mode; other dtypes and the other primitives' problems are left as they are).
  ConvMath math = ConvMath::exact;
};

// One problem of a suite and its weight in the totals.
struct SuiteProblem {
  OpProblemPtr problem;
  std::int64_t count = 1;
};

// Which problems a caller takes: every one (check), conv's (the conv bench: suite files must hold
// conv lines only), or the other primitives' (bench --op: conv lines of a file are dropped).
enum class SuitePart { all, conv, ops };

// How a built-in suite file's lines become problems.
enum class SuiteGenerator {
  as_written,       // each line one problem
  cross_options,    // each conv line x the options' dtypes x layouts x directions (bias kept for fwd)
  resnet50_layers,  // "C K H W R S stride pad count" -> conv at the options' batch, crossed like cross_options
  dtype_layout,     // each line x fp32/fp16/bf16 x both channel orders (expand_dtype_layout), duplicates dropped
  counted_batch,    // "<count> <problem>" at kResnet50OpsBatch -> the options' batch, x dtypes x layouts
};

struct BuiltinSuite {
  std::string name;
  std::vector<std::pair<std::string, SuiteGenerator>> files;  // embedded verify/suites/ files, in order
  bool conv = false;                                          // holds conv problems
  bool bench_only = false;                                    // for `hiprim bench --op` only (not check)
};
const std::vector<BuiltinSuite>& builtin_suites();

// The built-in names a part may load: all: every suite but the bench-only ones; conv: those holding
// conv problems; ops: every one.
std::vector<std::string> suite_names(SuitePart part);
// Every line parsed (conv or op by first token; conv part: parse_conv_problem, so a line of another
// primitive is refused), then the part's problems kept, count 1; InputError "<source>:<line>: ...".
std::vector<SuiteProblem> parse_suite(std::string_view text, const std::string& source_name,
                                      SuitePart part = SuitePart::all);
// A built-in name the part may load (built from its table row and the options), else a suite file
// (parse_suite; of the options only `math` applies). InputError for an unknown name that is no readable file
// (naming it and suite_names(part) but bench-only suites), bad options (batch < 1, an empty list),
// or a bad line.
std::vector<SuiteProblem> load_suite(const std::string& name_or_path, const SuiteOptions& opts,
                                     SuitePart part = SuitePart::all);
// The options a suite reads: cross_options dtypes, layouts, dirs; resnet50_layers those and batch;
// counted_batch batch, dtypes, layouts; as_written, dtype_layout and suite files none.
struct SuiteOptionUse {
  bool batch = false, dtypes = false, layouts = false, dirs = false;
};
SuiteOptionUse suite_option_use(const std::string& name_or_path);
// InputError unless some suite of `names` reads each option the user gave ("--batch", "--dtype",
// "--layout", "--dir", or bench's "--combo" = dtypes and layouts): a flag no selected suite reads
// would leave the run silently other than asked.
void check_suite_options_apply(const std::vector<std::string>& names, const std::vector<std::string>& given_flags);

// The conv problems among `problems`, in order.
std::vector<ConvProblem> conv_problems(const std::vector<SuiteProblem>& problems);

struct Resnet50Layer {
  std::int64_t c, k, h, w, r, s, stride, pad;
  std::int64_t count;  // occurrences in the network
};
std::vector<Resnet50Layer> resnet50_layers();
ConvProblem resnet50_problem(const Resnet50Layer& l, std::int64_t batch, DType dtype, bool channels_last, ConvDir dir);

}  // namespace hiprim::verify
