// Option parsing shared by the subcommands: dtype/layout/direction names, the run options (cli/options.cpp).
#pragma once
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/conv_problem.hpp"
#include "core/text.hpp"
#include "verify/runner.hpp"
#include "verify/suite.hpp"

namespace hiprim::cli {

// --seed, --fill, --no-determinism-check, --config on a subcommand.
struct RunFlags {
  std::uint64_t seed = 1;
  std::string fill;    // "", "exact", "bounded"
  std::string config;  // the solver's perf config; "": its default
  bool no_determinism = false;
  void add_to(CLI::App& sub);
  verify::RunOptions options() const;
};

DType dtype_from(const std::string& s);   // InputError names the flag value
ConvDir dir_from(const std::string& s);
using hiprim::split_list;  // "a,b,c" (core/text.hpp)
// Generated-suite options from --batch and the comma-separated --dtype, --layout (nchw|nhwc), --dir,
// and --math (exact | tf32: math=tf32 on every fp32 conv problem; InputError when a --dtype is not fp32).
verify::SuiteOptions suite_options_from(std::int64_t batch, const std::string& dtypes, const std::string& layouts,
                                        const std::string& dirs, const std::string& math = "exact");
// The --math option's help text (check and bench).
inline constexpr const char* kMathHelp =
    "Conv math mode: exact, or tf32 (appends math=tf32 to every fp32 conv problem of the suite: the opt-in "
    "TF32 mode, e.g. to time cuDNN's TF32 engines; every --dtype must be fp32)";
// A problem string as a folder name (--dump): spaces become '_'.
std::string folder_name(const std::string& problem);

}  // namespace hiprim::cli
