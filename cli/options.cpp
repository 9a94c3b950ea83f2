// Option parsing shared by the subcommands (cli/options.hpp).
#include "cli/options.hpp"

#include "core/error.hpp"

namespace hiprim::cli {

void RunFlags::add_to(CLI::App& sub) {
  sub.add_option("--seed", seed, "Seed of the data fills")->capture_default_str();
  sub.add_option("--fill", fill, "Data fill tier: exact (integers, zero threshold) or bounded (reals, error bound); default: exact when possible")
      ->check(CLI::IsMember({"exact", "bounded"}));
  sub.add_flag("--no-determinism-check", no_determinism, "Skip the second run that checks a solver's determinism claim");
  sub.add_option("--config", config, "The solver's perf config to run (hiprim list solvers; default: its default for the problem)");
}

verify::RunOptions RunFlags::options() const {
  verify::RunOptions o;
  o.seed = seed;
  if (!fill.empty()) o.fill = *verify::parse_fill_tier(fill);
  o.check_determinism = !no_determinism;
  o.config = config;
  return o;
}

DType dtype_from(const std::string& s) {
  if (auto t = parse_dtype(s)) return *t;
  throw InputError("--dtype '" + s + "': expected fp32, fp16 or bf16");
}

ConvDir dir_from(const std::string& s) {
  if (s == "fwd") return ConvDir::fwd;
  if (s == "bwd-data") return ConvDir::bwd_data;
  if (s == "bwd-weights") return ConvDir::bwd_weights;
  throw InputError("--dir '" + s + "': expected fwd, bwd-data or bwd-weights");
}


verify::SuiteOptions suite_options_from(std::int64_t batch, const std::string& dtypes, const std::string& layouts,
                                        const std::string& dirs, const std::string& math) {
  verify::SuiteOptions so;
  if (math == "tf32") so.math = ConvMath::tf32;
  else if (math != "exact") throw InputError("--math '" + math + "': expected exact or tf32");
  so.batch = batch;
  so.dtypes.clear();
  for (auto& d : split_list(dtypes)) so.dtypes.push_back(dtype_from(d));
  so.channels_last.clear();
  for (auto& l : split_list(layouts)) {
    if (l != "nchw" && l != "nhwc") throw InputError("--layout '" + l + "': expected nchw or nhwc");
    so.channels_last.push_back(l == "nhwc");
  }
  so.dirs.clear();
  for (auto& d : split_list(dirs)) so.dirs.push_back(dir_from(d));
  if (so.dtypes.empty() || so.channels_last.empty() || so.dirs.empty())
    throw InputError("--dtype, --layout and --dir each need at least one value");
  if (so.math == ConvMath::tf32)
    for (DType d : so.dtypes)
      if (d != DType::fp32)
        throw InputError("--math tf32 takes fp32 data only (--dtype " + std::string(dtype_name(d)) +
                         ": its inputs are already below TF32's precision)");
  return so;
}

std::string folder_name(const std::string& problem) {
  std::string s = problem;
  for (char& ch : s)
    if (ch == ' ') ch = '_';
  return s;
}

}  // namespace hiprim::cli
